// Chapter 11's exercises: the two decisions of beam search. Which extensions of the live
// hypotheses survive a step, and which finished hypothesis wins. What each must do: README.md.
#pragma once

#include <vector>

#include "exercises/11_translation/candidate.h"
#include "exercises/not_done.h"
#include "models/beam.h"

namespace heed::student {

// log_probs (K, V): row k is hypothesis k's next-token log-probabilities; totals (K) their total
// log-probabilities so far. Returns the n best of the K * V extensions (n <= K * V), best first:
// by total (higher first), ties broken by the step's own log-probability (higher first), then
// the lower token, then the lower parent.
std::vector<BeamCandidate> best_extensions(const Tensor& log_probs, const std::vector<real>& totals, int64_t n);

// Sets every hypothesis's score to log_prob / tokens.size() (length-normalised, EOS counted) and
// sorts them best first: higher score, ties by higher log_prob, then the smaller token sequence.
void rank_hypotheses(std::vector<Hypothesis>& hypotheses);

}  // namespace heed::student
