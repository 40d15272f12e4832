// The matrix product's entry: gemm_naive, the reference, and gemm, gemm_packed and gemm_small,
// which hand the work to the kernel set in use (tensor/kernels.h); gemm cuts a large product
// into tiles for the thread pool (tensor/threads.h). The kernel itself, packed and
// register-tiled the way GotoBLAS and BLIS build theirs, is tensor/gemm_kernel.cpp.
#include "tensor/gemm.h"

#include <cstdlib>
#include <memory>
#include <new>

#include "tensor/kernels.h"
#include "tensor/threads.h"

namespace heed {

void gemm_naive(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B,
                real* C, bool accumulate) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      real s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += (trans_a ? A[k * M + i] : A[i * K + k]) * (trans_b ? B[j * K + k] : B[k * N + j]);
      C[i * N + j] = accumulate ? C[i * N + j] + s : s;
    }
}

namespace {

// A growable scratch buffer, aligned to a cache line; two per thread (the packed panels of A and
// of B), so that in the steady state a product allocates nothing.
class Scratch {
 public:
  real* get(int64_t n) {
    if (n > capacity_) {
      size_t bytes = (static_cast<size_t>(n) * sizeof(real) + 63) / 64 * 64;
      data_.reset();  // (the old buffer first: the peak is one buffer, not two)
      data_.reset(static_cast<real*>(::operator new(bytes, std::align_val_t{64})));  // throws std::bad_alloc
      capacity_ = n;
    }
    return data_.get();
  }

 private:
  struct Free {
    // (aligned new and delete, not std::aligned_alloc, which Windows's C runtime lacks)
    void operator()(real* p) const { ::operator delete(p, std::align_val_t{64}); }
  };
  std::unique_ptr<real, Free> data_;
  int64_t capacity_ = 0;
};

real* scratch(int which, int64_t n) {
  thread_local Scratch buffers[2];
  return buffers[which].get(n);
}

}  // namespace

// Threads. A product of at least two grains of work (multiply-adds) is cut into tiles of whole
// rows of C, or of whole columns when C is wider than tall (so that the operand each tile must
// pack again, B or A, is the smaller one), and the tiles go to the thread pool
// (tensor/threads.h). A tile is kernel set's gemm_tile, which computes its elements exactly as
// the whole product would, each with its own sum over k in ascending order: nothing is summed
// across tiles, so the result is the same bits for any thread count (tests/tensor/threads_test.cpp
// compares them with 1, 2, 3 and 8 threads; tests/tensor/ch01_gemm_test.cpp holds gemm to gemm_naive).
// The cut depends only on the shapes: rows go in units of 24 (four of the register tile's 6
// rows), columns in units of 32 (a whole number of every set's register tile, 8 to 32 wide).
// The grain, about 2 million multiply-adds (some 50 to 100 microseconds on one core), keeps the
// cost of waking a thread small beside a tile: at configuration S (H 64) hardly a product is cut;
// at M (H 256, batch 64) each step's recurrent product (64 x 768 x 256) makes 6 column tiles.
constexpr int64_t kGemmGrain = int64_t{1} << 21;
constexpr int64_t kRowUnit = 24, kColUnit = 32;

void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B, real* C,
          bool accumulate) {
  const KernelSet& k = kernels();
  if (M * N * K < 2 * kGemmGrain) return k.gemm(trans_a, trans_b, M, N, K, A, B, C, accumulate, scratch);
  const bool by_rows = M >= N;
  const int64_t unit = by_rows ? kRowUnit : kColUnit, extent = by_rows ? M : N;
  const int64_t unit_work = unit * (by_rows ? N : M) * K;
  parallel_for((extent + unit - 1) / unit, (kGemmGrain + unit_work - 1) / unit_work, [&](int64_t u0, int64_t u1) {
    const int64_t lo = u0 * unit, hi = u1 * unit < extent ? u1 * unit : extent;
    if (by_rows)
      k.gemm_tile(trans_a, trans_b, M, N, K, A, B, C, accumulate, scratch, lo, hi, 0, N);
    else
      k.gemm_tile(trans_a, trans_b, M, N, K, A, B, C, accumulate, scratch, 0, M, lo, hi);
  });
}

void gemm_packed(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B,
                 real* C, bool accumulate) {
  kernels().gemm_packed(trans_a, trans_b, M, N, K, A, B, C, accumulate, scratch);
}

void gemm_small(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B,
                real* C, bool accumulate) {
  kernels().gemm_small(trans_a, trans_b, M, N, K, A, B, C, accumulate, scratch);
}

}  // namespace heed
