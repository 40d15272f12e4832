// Chapter 07: the solutions registered for the self-test, and wrong answers its checks must reject.
#include <cmath>

#include "exercises/check/07_check.h"
// The solution, compiled here in namespace heed::solution (one translation unit for both).
#define student solution
#include "exercises/solutions/07_additive_attention/exercises.cpp"
#undef student

namespace heed::check {
namespace {

// The query forgotten: v^T tanh(W1 h_i) looks at the same places at every decoder step.
Var scores_no_query(const Var& h, const Var&, const Var& W1, const Var&, const Var& v) {
  const int64_t B = h.shape()[0], S = h.shape()[1], H = h.shape()[2], A = W1.shape()[0];
  return reshape(matmul_nt(tanh(matmul_nt(reshape(h, {B * S, H}), W1)), reshape(v, {1, A})), {B, S});
}
// tanh forgotten: v^T (W1 h_i + W2 s), a linear score.
Var scores_no_tanh(const Var& h, const Var& s, const Var& W1, const Var& W2, const Var& v) {
  const int64_t B = h.shape()[0], S = h.shape()[1], H = h.shape()[2], A = W1.shape()[0];
  Var t = reshape(matmul_nt(reshape(h, {B * S, H}), W1), {B, S, A}) + reshape(matmul_nt(s, W2), {B, 1, A});
  return reshape(matmul_nt(reshape(t, {B * S, A}), reshape(v, {1, A})), {B, S});
}
// The mask forgotten: padding gets weight.
Var softmax_unmasked(const Var& scores, const Tensor&) { return softmax(scores, 1); }
// -inf at padding: an all-padding row becomes NaN (exp(-inf - -inf)).
Var softmax_minus_inf(const Var& scores, const Tensor& mask) {
  Tensor off = Tensor::zeros(mask.shape());
  for (int64_t i = 0; i < mask.numel(); ++i) off[i] = mask[i] == 0;
  return softmax(masked_fill(scores, off, -INFINITY), 1);
}
// -1e9 at padding but no zeroing: an all-padding row comes out uniform, not zero.
Var softmax_uniform_empty(const Var& scores, const Tensor& mask) {
  Tensor off = Tensor::zeros(mask.shape());
  for (int64_t i = 0; i < mask.numel(); ++i) off[i] = mask[i] == 0;
  return softmax(masked_fill(scores, off, -1e9), 1);
}
// Masked right, but a temperature of 2 (softmax of 2 x): every masked weight is exactly 0, the
// real ones are wrong, and the report must say so rather than blame the masked weights.
Var softmax_doubled(const Var& scores, const Tensor& mask) {
  Tensor off = Tensor::zeros(mask.shape());
  for (int64_t i = 0; i < mask.numel(); ++i) off[i] = mask[i] == 0;
  return where(mask, softmax(masked_fill(scores * 2.0, off, -1e30), 1), Var(Tensor::zeros(mask.shape())));
}
// Summed over the features instead of the positions.
Var context_wrong_axis(const Var& weights, const Var& values) {
  const int64_t B = weights.shape()[0], S = weights.shape()[1];
  return sum(reshape(weights, {B, S, 1}) * values, 2);
}
// The mean of the weighted values: divided by S.
Var context_mean(const Var& weights, const Var& values) {
  const int64_t B = weights.shape()[0], S = weights.shape()[1];
  return mean(reshape(weights, {B, S, 1}) * values, 1);
}

Impl07 solution() { return HEED_IMPL_07(heed::solution); }
template <class F>
std::function<std::vector<Exercise>()> with(F change) {
  return [change] {
    Impl07 impl = solution();
    change(impl);
    return exercises_07(impl);
  };
}

Register sol({"07", "exercises/07_additive_attention", "solution", [] { return exercises_07(solution()); }});
RegisterWrong w1({"07", "additive_scores", "no query", with([](Impl07& i) { i.additive_scores = scores_no_query; })});
RegisterWrong w2({"07", "additive_scores", "no tanh", with([](Impl07& i) { i.additive_scores = scores_no_tanh; })});
// The training check on its own: a score blind to the decoder state gives the same weights at
// every step, and the model must fail to reverse.
RegisterWrong w2t({"07", "additive_scores", "no query, training alone", [] {
  return std::vector<Exercise>{{"additive_scores", [] { expect_learns_reverse(scores_no_query); }}};
}});
RegisterWrong w3({"07", "masked_softmax_rows", "no mask", with([](Impl07& i) { i.masked_softmax_rows = softmax_unmasked; }),
                  "a masked weight must be exactly 0"});
RegisterWrong w3t({"07", "masked_softmax_rows", "doubled scores", with([](Impl07& i) { i.masked_softmax_rows = softmax_doubled; }),
                   "the weights of the real positions"});
RegisterWrong w4({"07", "masked_softmax_rows", "-inf: NaN rows", with([](Impl07& i) { i.masked_softmax_rows = softmax_minus_inf; })});
RegisterWrong w5({"07", "masked_softmax_rows", "uniform empty row", with([](Impl07& i) { i.masked_softmax_rows = softmax_uniform_empty; })});
RegisterWrong w6({"07", "context_vector", "wrong axis", with([](Impl07& i) { i.context_vector = context_wrong_axis; })});
RegisterWrong w7({"07", "context_vector", "mean", with([](Impl07& i) { i.context_vector = context_mean; })});

}  // namespace
}  // namespace heed::check
