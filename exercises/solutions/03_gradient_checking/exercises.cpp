// Chapter 03's solutions.
#include "exercises/03_gradient_checking/exercises.h"

namespace heed::student {

Tensor numeric_gradient(const std::function<real(const Tensor&)>& f, const Tensor& x, real eps) {
  Tensor g = Tensor::zeros(x.shape());
  Tensor probe = x;
  for (int64_t i = 0; i < x.numel(); ++i) {
    probe[i] = x[i] + eps;
    real plus = f(probe);
    probe[i] = x[i] - eps;
    real minus = f(probe);
    probe[i] = x[i];
    g[i] = (plus - minus) / (2 * eps);
  }
  return g;
}

Tensor softplus_backward(const Tensor& x, const Tensor& dy) {
  return mul(dy, sigmoid(x));  // the bug was sigmoid(-x): a sign in the exponent
}

std::pair<Tensor, Tensor> div_backward(const Tensor& a, const Tensor& b, const Tensor& dy) {
  Tensor da = div(dy, b);                       // d(a/b)/da = 1 / b
  Tensor db = neg(div(mul(dy, a), mul(b, b)));  // d(a/b)/db = -a / b^2: the bug was the missing minus
  return {da, db};
}

}  // namespace heed::student
