#!/usr/bin/env bash
# heed beside PyTorch, in one run: for each configuration and model, `heed bench` in double
# (build/heed) and in float (build-float/heed, from `make float`) and the PyTorch reference of
# reference/pytorch (fp32 and fp64) run one after the other, so all see the same machine, and a
# Markdown table of medians, ratios and memory is printed: heed float64 against PyTorch fp64,
# heed float32 against PyTorch fp32. Each pair runs twice: on one thread each (--threads 1), and
# on every core the process may use (heed's default; PyTorch given as many), the `threads` column
# saying how many each used ("1" and "default" in THREADS).
#
#   tools/bench_vs_pytorch.sh                   # S and M, plain additive general dot
#   CONFIGS=S MODELS="plain dot" tools/bench_vs_pytorch.sh
#   THREADS=1 tools/bench_vs_pytorch.sh         # one thread only (THREADS=default: defaults only)
#   BLAS_DIR=/path/to/openblas-pthread tools/bench_vs_pytorch.sh   # PyTorch with that libblas.so.3
#
# Needs python3-torch (Debian); reference/pytorch/README.md says how to give it a fast BLAS.
# heed itself never depends on any of it: this script is only for measuring.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ref=$here/reference/pytorch
heed=${HEED:-$here/build/heed}
heed_float=${HEED_FLOAT:-$here/build-float/heed}
python=${PYTHON:-/usr/bin/python3}
CONFIGS=${CONFIGS:-S M}
MODELS=${MODELS:-plain additive general dot}
BLAS_DIR=${BLAS_DIR:-}
THREADS=${THREADS:-1 default}

[ -x "$heed" ] || { echo "bench_vs_pytorch: $heed is not built (run: make build/heed)" >&2; exit 2; }
[ -x "$heed_float" ] || { echo "bench_vs_pytorch: $heed_float is not built (run: make float)" >&2; exit 2; }
. "$here/tools/pytorch_env.sh"
pytorch_env bench_vs_pytorch

# One JSON field of the last line of stdin.
field() { "$python" -c "import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])['$1'])"; }

pytorch_blas bench_vs_pytorch ""
echo
echo "| config | model | threads heed / PyTorch | heed f64 ms | PyTorch fp64 ms | heed f64 / fp64 | heed f32 ms | PyTorch fp32 ms | heed f32 / fp32 | heed f64 / f32 GFLOP/s | heed f64 / f32 step MB | PyTorch fp64 / fp32 step MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for c in $CONFIGS; do
  for m in $MODELS; do
    for t in $THREADS; do
      steps=20
      [ "$c" = S ] && steps=100
      case $t in
        1) ht=(--threads 1); pt=1; penv=() ;;
        # heed's default (every core the process may use), and PyTorch on as many threads, its
        # BLAS's pools free again (pytorch_env holds them to one). PyTorch's own default may be
        # fewer: PyTorch 1.13 took one thread on the 2-core machine of tutorials/performance.md.
        default) ht=(); pt=; penv=(-u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS -u BLIS_NUM_THREADS) ;;
        *) echo "bench_vs_pytorch: THREADS holds 1 and/or default, not '$t'" >&2; exit 2 ;;
      esac
      h=$(env -u HEED_THREADS "$heed" bench --config "$c" --model "$m" --steps "$steps" ${ht[@]+"${ht[@]}"} --json)
      f=$(env -u HEED_THREADS "$heed_float" bench --config "$c" --model "$m" --steps "$steps" ${ht[@]+"${ht[@]}"} --json)
      [ "$(field dtype <<<"$h")" = float64 ] && [ "$(field dtype <<<"$f")" = float32 ] ||
        { echo "bench_vs_pytorch: $heed must be the double build and $heed_float the float one" >&2; exit 2; }
      [ -n "$pt" ] || pt=$(field threads <<<"$h")
      t32=$(env ${penv[@]+"${penv[@]}"} "$python" "$ref/bench_step.py" --config "$c" --model "$m" --dtype float32 --threads "$pt" --steps "$steps")
      t64=$(env ${penv[@]+"${penv[@]}"} "$python" "$ref/bench_step.py" --config "$c" --model "$m" --dtype float64 --threads "$pt" --steps "$steps")
      hm=$(field ms_per_step <<<"$h"); hg=$(field gflops_per_second <<<"$h"); hs=$(field step_peak_mb <<<"$h")
      fm=$(field ms_per_step <<<"$f"); fg=$(field gflops_per_second <<<"$f"); fs=$(field step_peak_mb <<<"$f")
      p32=$(field ms_per_step <<<"$t32"); p64=$(field ms_per_step <<<"$t64")
      s32=$(field step_peak_mb <<<"$t32"); s64=$(field step_peak_mb <<<"$t64")
      hn=$(field threads <<<"$h"); pn=$(field threads <<<"$t32")
      awk -v c="$c" -v m="$m" -v hm="$hm" -v fm="$fm" -v p32="$p32" -v p64="$p64" -v hg="$hg" -v fg="$fg" \
        -v hs="$hs" -v fs="$fs" -v s32="$s32" -v s64="$s64" -v hn="$hn" -v pn="$pn" \
        'BEGIN { printf "| %s | %s | %s / %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f / %.1f | %.0f / %.0f | %.0f / %.0f |\n",
                 c, m, hn, pn, hm, p64, hm / p64, fm, p32, fm / p32, hg, fg, hs, fs, s64, s32 }'
    done
  done
done
