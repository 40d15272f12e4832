// Chapter 14: the solutions registered for the self-test, and wrong answers its checks must reject.
#include <algorithm>
#include <cmath>

#include "exercises/check/14_check.h"
// The solution, compiled here in namespace heed::solution (one translation unit for both).
#define student solution
#include "exercises/solutions/14_induction_heads/exercises.cpp"
#undef student

namespace heed::check {
namespace {

// ---- causal_mask

// mask[b, i, j] = 1 where `allowed(i, j, len)`, else 0: the wrong masks below differ only in it.
template <class Allowed>
Tensor mask_where(const std::vector<int64_t>& lengths, int64_t T, Allowed allowed) {
  const int64_t B = static_cast<int64_t>(lengths.size());
  Tensor mask = Tensor::zeros({B, T, T});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j < T; ++j) mask[(b * T + i) * T + j] = allowed(i, j, lengths[static_cast<size_t>(b)]);
  return mask;
}
// Position t also sees t+1, the token it is to predict.
Tensor mask_sees_next(const std::vector<int64_t>& lengths, int64_t T) {
  solution::causal_mask(lengths, T);  // its errors
  return mask_where(lengths, T, [](int64_t i, int64_t j, int64_t len) { return j <= i + 1 && j < len; });
}
// Off by one: j < i, so position t does not see itself (and position 0 sees nothing).
Tensor mask_not_itself(const std::vector<int64_t>& lengths, int64_t T) {
  solution::causal_mask(lengths, T);
  return mask_where(lengths, T, [](int64_t i, int64_t j, int64_t len) { return j < i && j < len; });
}
// The padding forgotten: every key up to the query, real or not.
Tensor mask_ignores_padding(const std::vector<int64_t>& lengths, int64_t T) {
  solution::causal_mask(lengths, T);
  return mask_where(lengths, T, [](int64_t i, int64_t j, int64_t) { return j <= i; });
}
// Chapter 12's rule for padded queries (they see nothing), not the decoder's (PyTorch's key padding).
Tensor mask_padded_queries_blind(const std::vector<int64_t>& lengths, int64_t T) {
  solution::causal_mask(lengths, T);
  return mask_where(lengths, T, [](int64_t i, int64_t j, int64_t len) { return i < len && j <= i; });
}
// Transposed: query i sees the keys from i on, the future instead of the past.
Tensor mask_transposed(const std::vector<int64_t>& lengths, int64_t T) {
  solution::causal_mask(lengths, T);
  return mask_where(lengths, T, [](int64_t i, int64_t j, int64_t len) { return j >= i && j < len; });
}

// ---- induction_score

// The first occurrence of the same symbol (t-n) instead of the position after it (t-n+1).
real induction_same_symbol(const Tensor& weights, int64_t n) {
  solution::induction_score(weights, n);  // its errors
  const int64_t T = weights.shape()[0];
  real sum = 0;
  for (int64_t t = n + 1; t <= 2 * n; ++t) sum += weights[t * T + (t - n)];
  return sum / static_cast<real>(n);
}
// The range shifted down by one: t = n .. 2n-1.
real induction_range_shifted(const Tensor& weights, int64_t n) {
  solution::induction_score(weights, n);
  const int64_t T = weights.shape()[0];
  real sum = 0;
  for (int64_t t = n; t < 2 * n; ++t) sum += weights[t * T + (t - n + 1)];
  return sum / static_cast<real>(n);
}
// Divided by the 2n positions after <bos> instead of the n terms.
real induction_divided_by_2n(const Tensor& weights, int64_t n) { return solution::induction_score(weights, n) / 2; }
// Averaged over every row from n+1 to the end, the padding rows after the sequence included.
real induction_to_the_end(const Tensor& weights, int64_t n) {
  solution::induction_score(weights, n);
  const int64_t T = weights.shape()[0];
  real sum = 0;
  for (int64_t t = n + 1; t < T; ++t) sum += weights[t * T + (t - n + 1)];
  return sum / static_cast<real>(T - n - 1);
}

// ---- sample_token

// heed's rule with a choice of its parts, for the wrong samplers below.
int64_t draw(const Tensor& logits, real temperature, int64_t top_k, real u, bool shift, bool higher_id_first,
             bool at_or_below, bool honour_top_k) {
  solution::sample_token(logits, temperature, top_k, u);  // its errors
  const int64_t V = logits.numel();
  std::vector<int64_t> order(static_cast<size_t>(V));
  for (int64_t i = 0; i < V; ++i) order[static_cast<size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return logits[a] > logits[b] || (higher_id_first && logits[a] == logits[b] && a > b);
  });
  if (temperature == 0) return order[0];
  const int64_t k = honour_top_k && top_k > 0 ? std::min(top_k, V) : V;
  std::vector<real> p(static_cast<size_t>(k));
  real total = 0;
  for (int64_t i = 0; i < k; ++i) {
    const real l = logits[order[static_cast<size_t>(i)]] - (shift ? logits[order[0]] : 0);
    total += p[static_cast<size_t>(i)] = std::exp(l / temperature);
  }
  real cumulative = 0;
  for (int64_t i = 0; i < k; ++i) {
    cumulative += p[static_cast<size_t>(i)];
    if (at_or_below ? u * total <= cumulative : u * total < cumulative) return order[static_cast<size_t>(i)];
  }
  return order[static_cast<size_t>(k - 1)];
}
// exp(l / T) without subtracting the largest logit first: it overflows near 710.
int64_t sample_no_shift(const Tensor& l, real t, int64_t k, real u) {
  return draw(l, t, k, u, false, false, false, true);
}
// Equal logits ordered the higher id first (a sort that is not stable, or >= for >).
int64_t sample_ties_higher_id(const Tensor& l, real t, int64_t k, real u) {
  return draw(l, t, k, u, true, true, false, true);
}
// u * total <= cumulative: the token whose interval ends at u * total, not the one beginning there.
int64_t sample_at_or_below(const Tensor& l, real t, int64_t k, real u) {
  return draw(l, t, k, u, true, false, true, true);
}
// top_k ignored: every token kept.
int64_t sample_all_tokens(const Tensor& l, real t, int64_t k, real u) {
  return draw(l, t, k, u, true, false, false, false);
}

Impl14 solution() { return HEED_IMPL_14(heed::solution); }
template <class F>
std::function<std::vector<Exercise>()> with(F change) {
  return [change] {
    Impl14 impl = solution();
    change(impl);
    return exercises_14(impl);
  };
}

Register sol({"14", "exercises/14_induction_heads", "solution", [] { return exercises_14(solution()); }});
RegisterWrong w1({"14", "causal_mask", "position t sees t+1", with([](Impl14& i) { i.causal_mask = mask_sees_next; }),
                  "a position sees a later one"});
RegisterWrong w2({"14", "causal_mask", "transposed: the future, not the past",
                  with([](Impl14& i) { i.causal_mask = mask_transposed; }), "a position sees a later one"});
RegisterWrong w3({"14", "causal_mask", "off by one: t does not see itself",
                  with([](Impl14& i) { i.causal_mask = mask_not_itself; }), "against heed's decoder mask"});
RegisterWrong w4({"14", "causal_mask", "padding ignored", with([](Impl14& i) { i.causal_mask = mask_ignores_padding; }),
                  "against heed's decoder mask"});
RegisterWrong w5({"14", "causal_mask", "padded queries see nothing (chapter 12's rule)",
                  with([](Impl14& i) { i.causal_mask = mask_padded_queries_blind; }), "against heed's decoder mask"});
RegisterWrong w6({"14", "induction_score", "t-n, the same symbol, not the one after it",
                  with([](Impl14& i) { i.induction_score = induction_same_symbol; }), "a perfect induction head"});
RegisterWrong w7({"14", "induction_score", "averaged over t = n .. 2n-1",
                  with([](Impl14& i) { i.induction_score = induction_range_shifted; }), "a perfect induction head"});
RegisterWrong w8({"14", "induction_score", "divided by 2n",
                  with([](Impl14& i) { i.induction_score = induction_divided_by_2n; }), "a perfect induction head"});
RegisterWrong w9({"14", "induction_score", "averaged to the last row, padding included",
                  with([](Impl14& i) { i.induction_score = induction_to_the_end; }), "random weights"});
RegisterWrong w10({"14", "sample_token", "no max shift", with([](Impl14& i) { i.sample_token = sample_no_shift; }),
                   "exp overflows"});
RegisterWrong w11({"14", "sample_token", "equal logits: the higher id first",
                   with([](Impl14& i) { i.sample_token = sample_ties_higher_id; }), "the lower id of a tie"});
RegisterWrong w12({"14", "sample_token", "<= where < belongs",
                   with([](Impl14& i) { i.sample_token = sample_at_or_below; }), "where token 1's interval ends"});
RegisterWrong w13({"14", "sample_token", "top_k ignored", with([](Impl14& i) { i.sample_token = sample_all_tokens; }),
                   "top_k 1"});

}  // namespace
}  // namespace heed::check
