// Chapter 11's solutions.
#include <algorithm>

#include "exercises/11_translation/exercises.h"

namespace heed::student {

std::vector<BeamCandidate> best_extensions(const Tensor& log_probs, const std::vector<real>& totals, int64_t n) {
  const int64_t K = log_probs.shape()[0], V = log_probs.shape()[1];
  std::vector<BeamCandidate> all;
  for (int64_t k = 0; k < K; ++k)
    for (int64_t v = 0; v < V; ++v) all.push_back({k, v, totals[k] + log_probs[k * V + v]});
  std::sort(all.begin(), all.end(), [&](const BeamCandidate& a, const BeamCandidate& b) {
    if (a.total != b.total) return a.total > b.total;
    const real la = log_probs[a.parent * V + a.token], lb = log_probs[b.parent * V + b.token];
    if (la != lb) return la > lb;
    if (a.token != b.token) return a.token < b.token;
    return a.parent < b.parent;
  });
  all.resize(n);
  return all;
}

void rank_hypotheses(std::vector<Hypothesis>& hypotheses) {
  for (Hypothesis& h : hypotheses) h.score = h.log_prob / static_cast<real>(h.tokens.size());
  std::sort(hypotheses.begin(), hypotheses.end(), [](const Hypothesis& a, const Hypothesis& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.log_prob != b.log_prob) return a.log_prob > b.log_prob;
    return a.tokens < b.tokens;
  });
}

}  // namespace heed::student
