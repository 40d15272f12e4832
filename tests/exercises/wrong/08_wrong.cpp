// Chapter 08: the solutions registered for the self-test, and wrong answers its checks must reject.
#include <cmath>

#include "exercises/check/08_check.h"
// The solution, compiled here in namespace heed::solution (one translation unit for both).
#define student solution
#include "exercises/solutions/08_multiplicative_attention/exercises.cpp"
#undef student

namespace heed::check {
namespace {

// W used transposed: s^T W^T h_i (the same shape when Dq = Dk).
Var general_transposed(const Var& s, const Var& h, const Var& W) { return heed::solution::general_scores(s, h, transpose(W)); }
// Divided by D instead of sqrt(D).
Var scaled_by_d(const Var& s, const Var& h) {
  const real D = static_cast<real>(h.shape()[2]);
  return heed::solution::scaled_dot_scores(s, h) * std::sqrt(D) / D;
}
// Not scaled at all.
Var scaled_none(const Var& s, const Var& h) {
  return heed::solution::scaled_dot_scores(s, h) * std::sqrt(static_cast<real>(h.shape()[2]));
}
// [s; c] instead of [c; s].
Var attentional_swapped(const Var& c, const Var& s, const Var& W_c) { return tanh(matmul_nt(concat({s, c}, 1), W_c)); }
// No tanh.
Var attentional_linear(const Var& c, const Var& s, const Var& W_c) { return matmul_nt(concat({c, s}, 1), W_c); }

// Attends with s_{t-1} (Bahdanau's order) instead of s_t.
std::pair<Var, Var> feeding_attends_before(const Cell& cell, const Var& y, const Var& s_prev, const Var& feed, const Var& h,
                                           const Tensor& mask, const Var& W, const Var& W_c) {
  Var s = cell.step(concat({y, feed}, 1), {s_prev, Var()}).h;
  Var c = weighted_sum(masked_softmax(heed::solution::general_scores(s_prev, h, W), mask), h);
  return {s, heed::solution::attentional_state(c, s, W_c)};
}
// Feeds zeros: the previous attentional state never reaches the cell.
std::pair<Var, Var> feeding_zeros(const Cell& cell, const Var& y, const Var& s_prev, const Var& feed, const Var& h,
                                  const Tensor& mask, const Var& W, const Var& W_c) {
  return heed::solution::feeding_step(cell, y, s_prev, Var(Tensor::zeros(feed.shape())), h, mask, W, W_c);
}
// The mask forgotten: padding gets attention.
std::pair<Var, Var> feeding_unmasked(const Cell& cell, const Var& y, const Var& s_prev, const Var& feed, const Var& h,
                                     const Tensor& mask, const Var& W, const Var& W_c) {
  return heed::solution::feeding_step(cell, y, s_prev, feed, h, Tensor::ones(mask.shape()), W, W_c);
}

Impl08 solution() { return HEED_IMPL_08(heed::solution); }
template <class F>
std::function<std::vector<Exercise>()> with(F change) {
  return [change] {
    Impl08 impl = solution();
    change(impl);
    return exercises_08(impl);
  };
}

Register sol({"08", "exercises/08_multiplicative_attention", "solution", [] { return exercises_08(solution()); }});
RegisterWrong w1({"08", "general_scores", "W transposed", with([](Impl08& i) { i.general_scores = general_transposed; })});
RegisterWrong w2({"08", "scaled_dot_scores", "divided by D", with([](Impl08& i) { i.scaled_dot_scores = scaled_by_d; })});
RegisterWrong w3({"08", "scaled_dot_scores", "no scale", with([](Impl08& i) { i.scaled_dot_scores = scaled_none; })});
RegisterWrong w4({"08", "attentional_state", "[s; c]", with([](Impl08& i) { i.attentional_state = attentional_swapped; })});
RegisterWrong w5({"08", "attentional_state", "no tanh", with([](Impl08& i) { i.attentional_state = attentional_linear; })});
RegisterWrong w6({"08", "feeding_step", "attends with s_{t-1}", with([](Impl08& i) { i.feeding_step = feeding_attends_before; })});
RegisterWrong w7({"08", "feeding_step", "feeds zeros", with([](Impl08& i) { i.feeding_step = feeding_zeros; })});
RegisterWrong w8({"08", "feeding_step", "no mask", with([](Impl08& i) { i.feeding_step = feeding_unmasked; })});

}  // namespace
}  // namespace heed::check
