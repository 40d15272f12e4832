// Chapter 01: write these three functions, then run `make exercise-01`.
// A Tensor's data is row-major: element [i, j] of an (R, C) tensor is t[i * C + j].
// Tensor::zeros(shape) makes the result; t.shape()[0] and t.shape()[1] are its sizes.
#include "exercises/01_tensors/exercises.h"

namespace heed::student {

Tensor broadcast_add(const Tensor& a, const Tensor& b) {
  not_done("write broadcast_add: out[i, j] = a[i or 0, j or 0] + b[i or 0, j or 0], a size 1 repeating");
}

Tensor matmul_loops(const Tensor& a, const Tensor& b) {
  not_done("write matmul_loops: C[i, j] = sum over k of A[i, k] * B[k, j]");
}

Tensor softmax_rows(const Tensor& x) {
  not_done("write softmax_rows: each row's exp(x - max) divided by its sum");
}

}  // namespace heed::student
