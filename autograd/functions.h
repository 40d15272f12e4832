// Differentiable functions on Vars: the tensor ops of tensor/ops.h, each recording its
// backward in the graph. Each function computes the forward value, then attaches the
// backward right below it, with the derivative as a one-line comment. Gradients always
// accumulate (+=); a broadcast input gets its gradient summed back to its own shape.
#pragma once

#include <vector>

#include "autograd/var.h"

namespace heed {

// ---- elementwise, unary
Var neg(const Var& x);
Var exp(const Var& x);
Var log(const Var& x);
Var tanh(const Var& x);
Var sigmoid(const Var& x);
Var relu(const Var& x);  // the derivative at exactly 0 is taken as 0
Var sqrt(const Var& x);
Var pow(const Var& x, real p);

// ---- elementwise, binary, broadcasting
Var add(const Var& a, const Var& b);
Var sub(const Var& a, const Var& b);
Var mul(const Var& a, const Var& b);
Var div(const Var& a, const Var& b);
Var add(const Var& a, real b);
Var mul(const Var& a, real b);

Var operator+(const Var& a, const Var& b);
Var operator-(const Var& a, const Var& b);
Var operator*(const Var& a, const Var& b);
Var operator/(const Var& a, const Var& b);
Var operator-(const Var& a);
Var operator+(const Var& a, real b);
Var operator+(real a, const Var& b);
Var operator-(const Var& a, real b);
Var operator-(real a, const Var& b);
Var operator*(const Var& a, real b);
Var operator*(real a, const Var& b);
Var operator/(const Var& a, real b);

// ---- reductions
Var sum(const Var& x);
Var sum(const Var& x, int64_t axis, bool keepdim = false);
Var mean(const Var& x);
Var mean(const Var& x, int64_t axis, bool keepdim = false);
// The gradient goes to the first maximum when there are ties (as torch.max(x, dim)).
Var max(const Var& x);
Var max(const Var& x, int64_t axis, bool keepdim = false);

// ---- matrix products (2-D or batched 3-D)
Var matmul(const Var& a, const Var& b);     // A B
Var matmul_nt(const Var& a, const Var& b);  // A B^T
Var matmul_tn(const Var& a, const Var& b);  // A^T B
// x W^T + b for x (N, in), W (out, in), b (out) or an undefined Var for none: a Linear layer's
// product and bias as one node (PyTorch's addmm). The same numbers as matmul_nt(x, W) + b, to
// the last bit, with one node and no broadcast in between.
Var linear(const Var& x, const Var& weight, const Var& bias);

// ---- layout
Var transpose(const Var& x);
Var reshape(const Var& x, Shape shape);
Var concat(const std::vector<Var>& xs, int64_t axis);
Var stack(const std::vector<Var>& xs, int64_t axis);
Var slice(const Var& x, int64_t axis, int64_t start, int64_t stop);
Var index_select(const Var& x, const std::vector<int64_t>& index);

// ---- softmax and masking
Var softmax(const Var& x, int64_t axis);
Var log_softmax(const Var& x, int64_t axis);
// The mask is a constant: no gradient flows to it; filled positions get no gradient.
Var masked_fill(const Var& x, const Tensor& mask, real value);

// a where cond is non-zero, else b (cond is a constant, broadcast to a's shape). The chosen
// side gets the gradient, the other exactly zero: how padding is kept out of a result.
Var where(const Tensor& cond, const Var& a, const Var& b);

}  // namespace heed
