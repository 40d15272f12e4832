// Chapter 01's exercises: three tensor kernels written as plain loops over row-major data.
// What each must do, and how it is checked: README.md in this folder.
#pragma once

#include "exercises/not_done.h"
#include "tensor/ops.h"

namespace heed::student {

// a (R1, C1) + b (R2, C2) with NumPy broadcasting of 2-D shapes: each size of b (and of a) is
// either the other's size or 1. The result is (max(R1, R2), max(C1, C2)).
Tensor broadcast_add(const Tensor& a, const Tensor& b);

// C (M, N) = A (M, K) B (K, N), as a triple loop: C[i, j] = sum_k A[i, k] B[k, j].
Tensor matmul_loops(const Tensor& a, const Tensor& b);

// softmax of every row of x (N, D): exp(x[i, j] - m_i) / sum_j' exp(x[i, j'] - m_i), with m_i the
// row's maximum, so that logits of any finite size give finite weights.
Tensor softmax_rows(const Tensor& x);

}  // namespace heed::student
