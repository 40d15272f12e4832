// Chapter 11: write these two functions, then run `make exercise-11`.
// std::sort with a comparison lambda does most of the work in both.
#include "exercises/11_translation/exercises.h"

namespace heed::student {

std::vector<BeamCandidate> best_extensions(const Tensor& log_probs, const std::vector<real>& totals, int64_t n) {
  not_done("write best_extensions: every (parent, token) with total = totals[parent] + log_prob, the n best");
}

void rank_hypotheses(std::vector<Hypothesis>& hypotheses) {
  not_done("write rank_hypotheses: score = log_prob / length, then sort best first");
}

}  // namespace heed::student
