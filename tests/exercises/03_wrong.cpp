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

}  // namespace
}  // namespace heed::check
