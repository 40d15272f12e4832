#!/usr/bin/env bash
# How the cost of a training step grows with one dimension, heed beside PyTorch: for each model
# and value of the sweep, `heed bench` in double (build/heed) and, when it is built, in float
# (build-float/heed, from `make float`), and reference/pytorch/bench_step.py in fp64 and fp32,
# one thread each, one after the other at the same point (so that all four see the machine in
# the same state), every run a process of its own. Then `heed bench --from` prints every point
# and the side-by-side table (heed's time over PyTorch's in the same dtype) and draws one chart.
#
#   tools/bench_sweep.sh                                  # len=5,10,20,40,80; plain additive general; S
#   SWEEP=hidden=32,64,128,256 MODELS=additive CONFIG=M tools/bench_sweep.sh build/sweep-hidden.svg
#   BLAS_DIR=/path/to/openblas-pthread tools/bench_sweep.sh   # PyTorch with that libblas.so.3
#
# Writes the chart to $1 (build/sweep.svg) and every point's JSON beside it (build/sweep.jsonl),
# which `build/heed bench --from build/sweep.jsonl --svg other.svg` redraws without timing again.
# Needs python3-torch; heed itself never depends on it.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ref=$here/reference/pytorch
heed=${HEED:-$here/build/heed}
heed_float=${HEED_FLOAT:-$here/build-float/heed}
python=${PYTHON:-/usr/bin/python3}
SWEEP=${SWEEP:-len=5,10,20,40,80}
MODELS=${MODELS:-plain additive general}
CONFIG=${CONFIG:-S}
STEPS=${STEPS:-20}
BLAS_DIR=${BLAS_DIR:-}
svg=${1:-$here/build/sweep.svg}
points=${svg%.svg}.jsonl

[ -x "$heed" ] || { echo "bench_sweep: $heed is not built (run: make build/heed)" >&2; exit 2; }
[ -x "$heed_float" ] || { echo "bench_sweep: no float build at $heed_float (make float): double only" >&2; heed_float=; }
. "$here/tools/pytorch_env.sh"
pytorch_env bench_sweep

dim=${SWEEP%%=*}
values=${SWEEP#*=}
models=${MODELS//,/ }
case $dim in len|hidden|batch) ;; *) echo "bench_sweep: SWEEP=$SWEEP: the dimension must be len, hidden or batch" >&2; exit 2 ;; esac
lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1 | sed 's/^/CPU: /'
pytorch_blas bench_sweep "; timing $STEPS steps a point at config $CONFIG"
: >"$points"
for m in $models; do
  for v in ${values//,/ }; do
    for h in "$heed" $heed_float; do
      "$h" bench --config "$CONFIG" --model "$m" "--$dim" "$v" --steps "$STEPS" --json | tail -1 >>"$points"
    done
    for d in float64 float32; do
      "$python" "$ref/bench_step.py" --config "$CONFIG" --model "$m" "--$dim" "$v" --dtype "$d" --threads 1 \
        --steps "$STEPS" | tail -1 >>"$points"
    done
    echo "$m $dim $v: done" >&2
  done
done
echo
"$heed" bench --from "$points" --svg "$svg"
echo "points: $points"
