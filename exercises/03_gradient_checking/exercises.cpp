// Chapter 03: write numeric_gradient, and find the bug in each of the two backward functions
// below (run `make exercise-03`: the gradient check's table points at it), then delete their
// not_done lines.
#include "exercises/03_gradient_checking/exercises.h"

namespace heed::student {

Tensor numeric_gradient(const std::function<real(const Tensor&)>& f, const Tensor& x, real eps) {
  not_done("write numeric_gradient: g[i] = (f(x + eps at i) - f(x - eps at i)) / (2 eps)");
}

Tensor softplus_backward(const Tensor& x, const Tensor& dy) {
  not_done("find the bug in softplus_backward (the gradient check shows it once you delete this line)");
  // softplus(x) = log(1 + exp(x)); its derivative is exp(x) / (1 + exp(x)), the sigmoid of x.
  return mul(dy, sigmoid(neg(x)));
}

std::pair<Tensor, Tensor> div_backward(const Tensor& a, const Tensor& b, const Tensor& dy) {
  not_done("find the bug in div_backward (the gradient check shows it once you delete this line)");
  Tensor da = div(dy, b);                   // d(a/b)/da = 1 / b
  Tensor db = div(mul(dy, a), mul(b, b));   // d(a/b)/db = ?
  return {da, db};
}

}  // namespace heed::student
