// Chapter 02: the solutions registered for the self-test, and wrong answers its checks must reject.
#include "exercises/check/02_check.h"
// The solution, compiled here in namespace heed::solution (one translation unit for both).
#define student solution
#include "exercises/solutions/02_autograd/exercises.cpp"
#undef student

namespace heed::check {
namespace {

Tensor tanh_from_x(const Tensor& x, const Tensor&, const Tensor& dy) {
  return mul(dy, sub(Tensor::ones(x.shape()), mul(x, x)));  // 1 - x^2: the derivative read from the input
}
Tensor tanh_sign(const Tensor&, const Tensor& y, const Tensor& dy) {
  return mul(dy, sub(mul(y, y), Tensor::ones(y.shape())));  // y^2 - 1: a sign error
}
std::pair<Tensor, Tensor> mul_swapped(const Tensor& a, const Tensor& b, const Tensor& dy) {
  return {mul(dy, a), mul(dy, b)};  // each input's gradient uses itself, not the other input
}
std::pair<Tensor, Tensor> matmul_no_transpose(const Tensor& a, const Tensor& b, const Tensor& dy) {
  return {matmul_nt(dy, b), matmul(transpose(dy), a)};  // db = dy^T a: the transpose of the right one
}
std::pair<Tensor, Tensor> matmul_forgot_b(const Tensor&, const Tensor& b, const Tensor& dy) {
  return {matmul_nt(dy, b), Tensor::zeros(b.shape())};  // only a's gradient
}

Impl02 solution() { return HEED_IMPL_02(heed::solution); }
template <class F>
std::function<std::vector<Exercise>()> with(F change) {
  return [change] {
    Impl02 impl = solution();
    change(impl);
    return exercises_02(impl);
  };
}

Register sol({"02", "exercises/02_autograd", "solution", [] { return exercises_02(solution()); }});
RegisterWrong w1({"02", "tanh_backward", "1 - x^2", with([](Impl02& i) { i.tanh_backward = tanh_from_x; })});
RegisterWrong w2({"02", "tanh_backward", "y^2 - 1", with([](Impl02& i) { i.tanh_backward = tanh_sign; })});
RegisterWrong w3({"02", "mul_backward", "da = dy a", with([](Impl02& i) { i.mul_backward = mul_swapped; })});
RegisterWrong w4({"02", "matmul_backward", "db = dy^T a", with([](Impl02& i) { i.matmul_backward = matmul_no_transpose; })});
RegisterWrong w5({"02", "matmul_backward", "db = 0", with([](Impl02& i) { i.matmul_backward = matmul_forgot_b; })});

}  // namespace
}  // namespace heed::check
