// Chapter 03: the solutions registered for the self-test, and wrong answers its checks must reject.
#include "exercises/check/03_check.h"
// The solution, compiled here in namespace heed::solution (one translation unit for both).
#define student solution
#include "exercises/solutions/03_gradient_checking/exercises.cpp"
#undef student

namespace heed::check {
namespace {

// A one-sided (forward) difference: error of order eps, not eps^2.
Tensor forward_difference(const std::function<real(const Tensor&)>& f, const Tensor& x, real eps) {
  Tensor g = Tensor::zeros(x.shape());
  Tensor probe = x;
  const real at = f(x);
  for (int64_t i = 0; i < x.numel(); ++i) {
    probe[i] = x[i] + eps;
    g[i] = (f(probe) - at) / eps;
    probe[i] = x[i];
  }
  return g;
}
// Divides by eps instead of 2 eps: twice the derivative.
Tensor half_step(const std::function<real(const Tensor&)>& f, const Tensor& x, real eps) {
  Tensor g = Tensor::zeros(x.shape());
  Tensor probe = x;
  for (int64_t i = 0; i < x.numel(); ++i) {
    probe[i] = x[i] + eps;
    real plus = f(probe);
    probe[i] = x[i] - eps;
    real minus = f(probe);
    probe[i] = x[i];
    g[i] = (plus - minus) / eps;
  }
  return g;
}
// Never puts an element back: element i stays at x[i] - eps while the later ones are probed.
// Right for a function that is a sum of one-element terms, wrong as soon as f couples them.
Tensor never_restores(const std::function<real(const Tensor&)>& f, const Tensor& x, real eps) {
  Tensor g = Tensor::zeros(x.shape());
  Tensor probe = x;
  for (int64_t i = 0; i < x.numel(); ++i) {
    probe[i] = x[i] + eps;
    real plus = f(probe);
    probe[i] = x[i] - eps;
    g[i] = (plus - f(probe)) / (2 * eps);
  }
  return g;
}
// sigmoid(x) written as exp(x) / (1 + exp(x)): right on [-3, 3], inf / inf = NaN once exp(x)
// overflows (x above about 709 in double, 88 in float).
Tensor softplus_overflows(const Tensor& x, const Tensor& dy) {
  Tensor e = exp(x);
  return mul(dy, div(e, add(e, 1.0)));
}
// The planted bugs left in place (the not_done line merely deleted).
Tensor softplus_planted(const Tensor& x, const Tensor& dy) { return mul(dy, sigmoid(neg(x))); }
std::pair<Tensor, Tensor> div_planted(const Tensor& a, const Tensor& b, const Tensor& dy) {
  return {div(dy, b), div(mul(dy, a), mul(b, b))};
}

Impl03 solution() { return HEED_IMPL_03(heed::solution); }
template <class F>
std::function<std::vector<Exercise>()> with(F change) {
  return [change] {
    Impl03 impl = solution();
    change(impl);
    return exercises_03(impl);
  };
}

Register sol({"03", "exercises/03_gradient_checking", "solution", [] { return exercises_03(solution()); }});
RegisterWrong w1({"03", "numeric_gradient", "forward difference", with([](Impl03& i) { i.numeric_gradient = forward_difference; })});
RegisterWrong w2({"03", "numeric_gradient", "divides by eps", with([](Impl03& i) { i.numeric_gradient = half_step; })});
RegisterWrong w3({"03", "softplus_backward", "the planted sign", with([](Impl03& i) { i.softplus_backward = softplus_planted; })});
RegisterWrong w4({"03", "div_backward", "the planted missing minus", with([](Impl03& i) { i.div_backward = div_planted; })});
RegisterWrong w5({"03", "numeric_gradient", "never puts the element back", with([](Impl03& i) { i.numeric_gradient = never_restores; })});
RegisterWrong w6({"03", "softplus_backward", "exp(x) / (1 + exp(x)) overflows", with([](Impl03& i) { i.softplus_backward = softplus_overflows; })});

}  // namespace
}  // namespace heed::check
