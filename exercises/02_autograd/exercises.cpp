// Chapter 02: write these four backward functions and the backward pass, then run `make exercise-02`.
// Everything in tensor/ops.h is at hand: mul, sub, add, neg, matmul, matmul_nt (A B^T),
// matmul_tn (A^T B), transpose, reshape, broadcast_to,
// normalize_axis, Tensor::ones ...
#include "exercises/02_autograd/exercises.h"

namespace heed::student {

Tensor tanh_backward(const Tensor& x, const Tensor& y, const Tensor& dy) {
  not_done("write tanh_backward: dx = dy * (the derivative of tanh, from y)");
}

std::pair<Tensor, Tensor> mul_backward(const Tensor& a, const Tensor& b, const Tensor& dy) {
  not_done("write mul_backward: da and db for y = a * b");
}

std::pair<Tensor, Tensor> matmul_backward(const Tensor& a, const Tensor& b, const Tensor& dy) {
  not_done("write matmul_backward: da (M, K) and db (K, N) for y = a b, from dy (M, N)");
}

Tensor sum_backward(const Tensor& x, int64_t axis, bool keepdim, const Tensor& dy) {
  not_done("write sum_backward: dx of x's shape, each element the dy of the sum it went into");
}

void backward_pass(GraphView& graph, const Tensor& seed) {
  not_done("write backward_pass: reach every node from graph.root(), order them, seed the root, run each rule once");
}

}  // namespace heed::student
