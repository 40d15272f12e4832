// Chapter 04: the solutions registered for the self-test, and wrong answers its checks must reject.
#include <cmath>

#include "exercises/check/04_check.h"
// The solution, compiled here in namespace heed::solution (one translation unit for both).
#define student solution
#include "exercises/solutions/04_classifiers/exercises.cpp"
#undef student

namespace heed::check {
namespace {

Tensor softmax_diagonal(const Tensor& y, const Tensor& dy) {
  return mul(dy, mul(y, sub(Tensor::ones(y.shape()), y)));  // y (1 - y) dy: the diagonal of the Jacobian only
}
real ce_unshifted(const Tensor& logits, const std::vector<int64_t>& targets, int64_t ignore_index) {
  const int64_t N = logits.shape()[0], V = logits.shape()[1];
  real total = 0;
  int64_t kept = 0;
  for (int64_t r = 0; r < N; ++r) {
    if (targets[r] == ignore_index) continue;
    real s = 0;
    for (int64_t j = 0; j < V; ++j) s += std::exp(logits[r * V + j]);  // overflows at 1000
    total += std::log(s) - logits[r * V + targets[r]];
    ++kept;
  }
  return kept ? total / kept : 0;
}
real ce_mean_over_all(const Tensor& logits, const std::vector<int64_t>& targets, int64_t ignore_index) {
  int64_t kept = 0;
  for (int64_t t : targets) kept += t != ignore_index;
  const real v = heed::solution::cross_entropy_value(logits, targets, ignore_index);
  return v * kept / static_cast<real>(targets.size());  // divides by every row, ignored ones too
}
Tensor ce_backward_sign(const Tensor& logits, const std::vector<int64_t>& targets, int64_t ignore_index) {
  return neg(heed::solution::cross_entropy_backward(logits, targets, ignore_index));  // onehot - softmax
}
Tensor ce_backward_sum(const Tensor& logits, const std::vector<int64_t>& targets, int64_t ignore_index) {
  int64_t kept = 0;
  for (int64_t t : targets) kept += t != ignore_index;
  return mul(heed::solution::cross_entropy_backward(logits, targets, ignore_index), static_cast<real>(kept));  // no mean
}
Var linear_no_bias(const Var& x, const Var& W, const Var&) { return matmul_nt(x, W); }
Var linear_no_transpose(const Var& x, const Var& W, const Var& b) { return matmul(x, W) + b; }
Tensor embedding_assign(const std::vector<int64_t>& ids, const Tensor& dy, int64_t V, int64_t padding_idx) {
  const int64_t E = dy.shape()[1];
  Tensor dW = Tensor::zeros({V, E});
  for (size_t r = 0; r < ids.size(); ++r) {
    if (ids[r] == padding_idx) continue;
    for (int64_t e = 0; e < E; ++e) dW[ids[r] * E + e] = dy[static_cast<int64_t>(r) * E + e];  // = not +=
  }
  return dW;
}
Tensor embedding_with_padding(const std::vector<int64_t>& ids, const Tensor& dy, int64_t V, int64_t) {
  return heed::solution::embedding_backward(ids, dy, V, -1);  // the padding row learns too
}
void adam_uncorrected(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, int64_t, real lr, real b1, real b2, real eps) {
  for (int64_t i = 0; i < p.numel(); ++i) {  // no bias correction
    m[i] = b1 * m[i] + (1 - b1) * g[i];
    v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
    p[i] -= lr * m[i] / (std::sqrt(v[i]) + eps);
  }
}

Impl04 solution() { return HEED_IMPL_04(heed::solution); }
template <class F>
std::function<std::vector<Exercise>()> with(F change) {
  return [change] {
    Impl04 impl = solution();
    change(impl);
    return exercises_04(impl);
  };
}

Register sol({"04", "exercises/04_classifiers", "solution", [] { return exercises_04(solution()); }});
RegisterWrong w1({"04", "softmax_backward", "diagonal only", with([](Impl04& i) { i.softmax_backward = softmax_diagonal; })});
RegisterWrong w2({"04", "cross_entropy_value", "no max shift", with([](Impl04& i) { i.cross_entropy_value = ce_unshifted; })});
RegisterWrong w3({"04", "cross_entropy_value", "mean over ignored rows too", with([](Impl04& i) { i.cross_entropy_value = ce_mean_over_all; })});
RegisterWrong w4({"04", "cross_entropy_backward", "sign", with([](Impl04& i) { i.cross_entropy_backward = ce_backward_sign; })});
RegisterWrong w5({"04", "cross_entropy_backward", "sum, not mean", with([](Impl04& i) { i.cross_entropy_backward = ce_backward_sum; })});
RegisterWrong w6({"04", "linear_forward", "no bias", with([](Impl04& i) { i.linear_forward = linear_no_bias; })});
RegisterWrong w7({"04", "linear_forward", "no transpose", with([](Impl04& i) { i.linear_forward = linear_no_transpose; })});
RegisterWrong w8({"04", "embedding_backward", "= instead of +=", with([](Impl04& i) { i.embedding_backward = embedding_assign; })});
RegisterWrong w9({"04", "embedding_backward", "padding row updated", with([](Impl04& i) { i.embedding_backward = embedding_with_padding; })});
RegisterWrong w10({"04", "adam_step", "no bias correction", with([](Impl04& i) { i.adam_step = adam_uncorrected; })});

}  // namespace
}  // namespace heed::check
