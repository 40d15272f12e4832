// The matrix product's entry: gemm_naive, the reference, and gemm, gemm_packed and gemm_small,
// which hand the work to the kernel set in use (tensor/kernels.h). The kernel itself, packed and
// register-tiled the way GotoBLAS and BLIS build theirs, is tensor/gemm_kernel.cpp.
#include "tensor/gemm.h"

#include <cstdlib>
#include <memory>
#include <new>

#include "tensor/kernels.h"

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
      data_.reset(static_cast<real*>(std::aligned_alloc(64, bytes)));
      if (!data_) throw std::bad_alloc();
      capacity_ = n;
    }
    return data_.get();
  }

 private:
  struct Free {
    void operator()(real* p) const { std::free(p); }
  };
  std::unique_ptr<real, Free> data_;
  int64_t capacity_ = 0;
};

real* scratch(int which, int64_t n) {
  thread_local Scratch buffers[2];
  return buffers[which].get(n);
}

}  // namespace

void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B, real* C,
          bool accumulate) {
  kernels().gemm(trans_a, trans_b, M, N, K, A, B, C, accumulate, scratch);
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
