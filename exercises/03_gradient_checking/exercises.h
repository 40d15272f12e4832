// Chapter 03's exercises: a central-difference derivative, and two backward functions that each
// hide a mistake for the gradient check to find. What each must do: README.md in this folder.
#pragma once

#include <functional>
#include <utility>

#include "exercises/not_done.h"
#include "tensor/ops.h"

namespace heed::student {

// The gradient of the scalar function f at x, element by element, by central differences:
// g[i] = (f(x + eps e_i) - f(x - eps e_i)) / (2 eps), with e_i the i-th unit tensor.
Tensor numeric_gradient(const std::function<real(const Tensor&)>& f, const Tensor& x, real eps);

// y = softplus(x) = log(1 + exp(x)) elementwise. Given x and dy, dx. (It has a bug: find it.)
Tensor softplus_backward(const Tensor& x, const Tensor& dy);

// y = a / b elementwise (same shapes). Given a, b and dy, {da, db}. (It has a bug: find it.)
std::pair<Tensor, Tensor> div_backward(const Tensor& a, const Tensor& b, const Tensor& dy);

}  // namespace heed::student
