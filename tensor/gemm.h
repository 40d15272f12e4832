// The matrix-product kernel under matmul and every layer: C = op(A) op(B), or C += it.
// op(A) is [M, K]: A is stored row-major as [M, K], or as [K, M] when trans_a.
// op(B) is [K, N]: B is stored as [K, N], or as [N, K] when trans_b.
// gemm picks one of two kernels by size: gemm_packed packs A and B, blocks for the caches and tiles
// for the registers (see gemm.cpp); gemm_small works straight from A and B, for tiny or thin
// products. gemm_naive is the textbook triple loop, kept as the oracle the others are tested against.
// All four take the same arguments and agree up to rounding; each is deterministic.
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
