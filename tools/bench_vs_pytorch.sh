#!/usr/bin/env bash
# heed beside PyTorch, in one run: for each configuration and model, `heed bench` and the PyTorch
# reference of ../shared/bench (fp32 and fp64, one thread) are run one after the other, so both
# see the same machine, and a Markdown table of medians, ratios and peak memory is printed.
#
#   tools/bench_vs_pytorch.sh                   # S and M, plain additive general dot
#   CONFIGS=S MODELS="plain dot" tools/bench_vs_pytorch.sh
#
# Needs what ../shared/bench/README.md installs (python3-torch, and OpenBLAS unpacked in $OB).
# heed itself never depends on any of it: this script is only for measuring.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bench_dir=${BENCH_DIR:-$here/../shared/bench}
heed=${HEED:-$here/build/heed}
OB=${OB:-/tmp/openblas/root/usr/lib/x86_64-linux-gnu/openblas-openmp}
CONFIGS=${CONFIGS:-S M}
MODELS=${MODELS:-plain additive general dot}

[ -x "$heed" ] || { echo "bench_vs_pytorch: $heed not built (make build/heed)" >&2; exit 2; }
[ -f "$bench_dir/bench_step.py" ] || { echo "bench_vs_pytorch: no $bench_dir/bench_step.py" >&2; exit 2; }
/usr/bin/python3 -c 'import torch' 2>/dev/null ||
  { echo "bench_vs_pytorch: /usr/bin/python3 has no torch (apt-get install -y python3-torch)" >&2; exit 2; }
[ -d "$OB" ] || echo "bench_vs_pytorch: warning: no OpenBLAS in $OB; PyTorch uses the slow reference BLAS" >&2

# One JSON field of the last line of stdin.
field() { /usr/bin/python3 -c "import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])['$1'])"; }

echo "| config | model | heed ms | PyTorch fp32 ms | PyTorch fp64 ms | heed / fp32 | heed / fp64 | heed GFLOP/s | heed peak MB | PyTorch fp32 / fp64 peak MB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for c in $CONFIGS; do
  for m in $MODELS; do
    steps=20
    [ "$c" = S ] && steps=100
    h=$("$heed" bench --config "$c" --model "$m" --steps "$steps" --json)
    t32=$(cd "$bench_dir" && LD_LIBRARY_PATH=$OB /usr/bin/python3 bench_step.py --child --config "$c" --model "$m" \
      --dtype float32 --threads 1)
    t64=$(cd "$bench_dir" && LD_LIBRARY_PATH=$OB /usr/bin/python3 bench_step.py --child --config "$c" --model "$m" \
      --dtype float64 --threads 1)
    hm=$(field ms_per_step <<<"$h"); hg=$(field gflops_per_second <<<"$h"); hp=$(field peak_rss_mb <<<"$h")
    p32=$(field ms_median <<<"$t32"); p64=$(field ms_median <<<"$t64")
    r32=$(field peak_rss_mb <<<"$t32"); r64=$(field peak_rss_mb <<<"$t64")
    awk -v c="$c" -v m="$m" -v hm="$hm" -v p32="$p32" -v p64="$p64" -v hg="$hg" -v hp="$hp" -v r32="$r32" -v r64="$r64" \
      'BEGIN { printf "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %.0f | %.0f / %.0f |\n",
               c, m, hm, p32, p64, hm / p32, hm / p64, hg, hp, r32, r64 }'
  done
done
