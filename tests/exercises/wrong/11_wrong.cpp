// Chapter 11: the solutions registered for the self-test, and wrong answers its checks must reject.
#include <algorithm>

#include "exercises/check/11_check.h"
// The solution, compiled here in namespace heed::solution (one translation unit for both).
#define student solution
#include "exercises/solutions/11_translation/exercises.cpp"
#undef student

namespace heed::check {
namespace {

// Ranked by the step's log-probability alone: the parents' totals forgotten.
std::vector<BeamCandidate> extensions_step_only(const Tensor& log_probs, const std::vector<real>& totals, int64_t n) {
  auto all = heed::solution::best_extensions(log_probs, std::vector<real>(totals.size(), 0.0), n);
  for (BeamCandidate& c : all) c.total += totals[c.parent];
  return all;
}
// Ties broken by the higher token.
std::vector<BeamCandidate> extensions_tie_high_token(const Tensor& log_probs, const std::vector<real>& totals, int64_t n) {
  const int64_t K = log_probs.shape()[0], V = log_probs.shape()[1];
  std::vector<BeamCandidate> all;
  for (int64_t k = 0; k < K; ++k)
    for (int64_t v = 0; v < V; ++v) all.push_back({k, v, totals[k] + log_probs[k * V + v]});
  std::sort(all.begin(), all.end(), [&](const BeamCandidate& a, const BeamCandidate& b) {
    if (a.total != b.total) return a.total > b.total;
    const real la = log_probs[a.parent * V + a.token], lb = log_probs[b.parent * V + b.token];
    if (la != lb) return la > lb;
    if (a.token != b.token) return a.token > b.token;
    return a.parent < b.parent;
  });
  all.resize(n);
  return all;
}
// By raw log-probability: short hypotheses win.
void rank_raw(std::vector<Hypothesis>& hs) {
  for (Hypothesis& h : hs) h.score = h.log_prob / static_cast<real>(h.tokens.size());
  std::sort(hs.begin(), hs.end(), [](const Hypothesis& a, const Hypothesis& b) {
    if (a.log_prob != b.log_prob) return a.log_prob > b.log_prob;
    return a.tokens < b.tokens;
  });
}
// EOS not counted in the length.
void rank_without_eos(std::vector<Hypothesis>& hs) {
  for (Hypothesis& h : hs) h.score = h.log_prob / static_cast<real>(h.tokens.size() - 1);
  std::sort(hs.begin(), hs.end(), [](const Hypothesis& a, const Hypothesis& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.log_prob != b.log_prob) return a.log_prob > b.log_prob;
    return a.tokens < b.tokens;
  });
}

Impl11 solution() { return HEED_IMPL_11(heed::solution); }
template <class F>
std::function<std::vector<Exercise>()> with(F change) {
  return [change] {
    Impl11 impl = solution();
    change(impl);
    return exercises_11(impl);
  };
}

Register sol({"11", "exercises/11_translation", "solution", [] { return exercises_11(solution()); }});
RegisterWrong w1({"11", "best_extensions", "step only", with([](Impl11& i) { i.best_extensions = extensions_step_only; })});
RegisterWrong w2({"11", "best_extensions", "higher token first", with([](Impl11& i) { i.best_extensions = extensions_tie_high_token; })});
RegisterWrong w3({"11", "rank_hypotheses", "raw log_prob", with([](Impl11& i) { i.rank_hypotheses = rank_raw; })});
RegisterWrong w4({"11", "rank_hypotheses", "EOS not counted", with([](Impl11& i) { i.rank_hypotheses = rank_without_eos; })});

}  // namespace
}  // namespace heed::check
