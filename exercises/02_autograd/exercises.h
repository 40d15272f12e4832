// Chapter 02's exercises: backward functions, written on plain tensors. The checker turns each
// into a graph op (its forward is the library's) and gradient-checks it by central differences.
// What each must do, and how it is checked: README.md in this folder.
#pragma once

#include <utility>

#include "exercises/not_done.h"
#include "tensor/ops.h"

namespace heed::student {

// y = tanh(x) elementwise. Given x, y and dy = dL/dy (all the same shape), return dx = dL/dx.
Tensor tanh_backward(const Tensor& x, const Tensor& y, const Tensor& dy);

// y = a * b elementwise, a, b and dy of one shape (no broadcasting). Return {da, db}.
std::pair<Tensor, Tensor> mul_backward(const Tensor& a, const Tensor& b, const Tensor& dy);

// y (M, N) = a (M, K) b (K, N). Given dy (M, N), return {da (M, K), db (K, N)}.
std::pair<Tensor, Tensor> matmul_backward(const Tensor& a, const Tensor& b, const Tensor& dy);

}  // namespace heed::student
