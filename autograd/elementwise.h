// Differentiable elementwise ops on Vars (autograd/elementwise.cpp): unary maths, binary maths
// with NumPy broadcasting (a broadcast input gets its gradient summed back to its own shape), and
// where / masked_fill, which route the gradient around padding.
#pragma once

#include "autograd/var.h"

namespace heed {

// ---- unary
Var neg(const Var& x);
Var exp(const Var& x);
Var log(const Var& x);
Var tanh(const Var& x);
Var sigmoid(const Var& x);
Var relu(const Var& x);  // the derivative at exactly 0 is taken as 0
Var sqrt(const Var& x);
Var pow(const Var& x, real p);

// ---- binary, broadcasting
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

// ---- masking
// The mask is a constant: no gradient flows to it; filled positions get no gradient.
Var masked_fill(const Var& x, const Tensor& mask, real value);

// a where cond is non-zero, else b (cond is a constant, broadcast to a's shape). The chosen
// side gets the gradient, the other exactly zero: how padding is kept out of a result.
Var where(const Tensor& cond, const Var& a, const Var& b);

}  // namespace heed
