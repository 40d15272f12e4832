# Sourced by tools/bench_vs_pytorch.sh and tools/bench_sweep.sh: the PyTorch side of a comparison,
# set up the same way for both. Expects $python, $ref and $BLAS_DIR (possibly empty); $1 of each
# function is the calling script's name, for its messages.

# Checks that $python has torch, puts BLAS_DIR's libblas.so.3 first on the library path, and
# makes every BLAS use one thread (torch.set_num_threads(1) does not reach every BLAS's own pool).
pytorch_env() {
  command -v "$python" >/dev/null || python=python3
  "$python" -c 'import torch' 2>/dev/null ||
    { echo "$1: $python has no torch (apt-get install python3-torch)" >&2; exit 2; }
  if [ -n "$BLAS_DIR" ]; then
    [ -f "$BLAS_DIR/libblas.so.3" ] || { echo "$1: no libblas.so.3 in BLAS_DIR=$BLAS_DIR" >&2; exit 2; }
    export LD_LIBRARY_PATH=$BLAS_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  fi
  export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 BLIS_NUM_THREADS=1
}

# Prints the BLAS library PyTorch loaded (ending the line with $2), and warns if it is the slow
# reference BLAS.
pytorch_blas() {
  local blas
  blas=$("$python" "$ref/bench_step.py" --config S --model plain --steps 1 --warmup 0 | tail -1 |
    "$python" -c "import json,sys; print(json.loads(sys.stdin.read())['blas'])")
  echo "PyTorch's BLAS: $blas$2"
  case $blas in
    */blas/libblas.so*) echo "$1: warning: that is the slow reference BLAS; see reference/pytorch/README.md" >&2 ;;
  esac
}
