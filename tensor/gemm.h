// The matrix-product kernel under matmul and every layer: C = op(A) op(B), or C += it (accumulate).
// op(A) is [M, K], stored row-major as [M, K] or, when trans_a, [K, M]; op(B) is [K, N], stored as
// [K, N] or, when trans_b, [N, K]. Any sizes, 0 included. REQUIRES: C does not overlap A or B.
// gemm picks by shape between gemm_packed (packed, cache-blocked, register-tiled; see
// gemm_kernel.cpp) and gemm_small (straight from A and B, for thin products); gemm_naive, the
// textbook loop, is their reference: tests/tensor/ch01_gemm_test.cpp holds gemm, gemm_packed and gemm_small
// equal to it (up to rounding) in every transposition form. Each gives bit-identical results from
// call to call, and with every kernel set (tensor/kernels.h; tests/tensor/kernels_test.cpp compares their
// bits). A large gemm runs on the thread pool in tiles of C (tensor/gemm.cpp), with the same bits
// for any thread count (tests/tensor/threads_test.cpp). The differentiable matmul and linear on top are
// autograd/matmul.cpp.
#pragma once

#include <cstdint>

#include "tensor/tensor.h"

namespace heed {

void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B, real* C,
          bool accumulate);
void gemm_packed(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B,
                 real* C, bool accumulate);
void gemm_small(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B,
                real* C, bool accumulate);
void gemm_naive(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B,
                real* C, bool accumulate);

}  // namespace heed
