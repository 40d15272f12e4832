// Beam search: decodes one source keeping, at each step, the K most probable prefixes (by
// total log-probability) as one batch of K decoder states. A hypothesis that picks <eos> is
// finished and leaves the beam, which then shrinks by one; the search stops when K have
// finished or after max_steps steps. Beam 1 is greedy decoding, token for token and bit for
// bit. The final ranking uses the length-normalised score log_prob / tokens.size() (<eos>
// counted), so that long hypotheses are not beaten merely for having more factors below 1.
#pragma once

#include <cstdint>
#include <vector>

#include "models/model.h"

namespace heed {

struct Hypothesis {
  std::vector<int64_t> tokens;                // up to and including <eos> when finished
  std::vector<std::vector<real>> attention;   // (tokens, S) one row per token; empty for plain
  real log_prob = 0;                          // sum of the chosen tokens' log-probabilities
  real score = 0;                             // log_prob / tokens.size()
  bool finished = false;                      // ends with <eos>
};

// The hypotheses best first (by score; ties by log_prob, then tokens), `beam` of them unless
// fewer distinct sequences of at most max_steps tokens exist. No gradients are recorded.
// Every token of the target vocabulary may be chosen, as in greedy decoding. Candidates are
// ranked by total log-probability, ties broken by the step's log-probability (which is what
// makes beam 1 agree with greedy's argmax exactly), then the lower token id, then the lower
// parent index. REQUIRES: beam >= 1, max_steps >= 1, a non-empty source of ids in
// [3, src_vocab) no longer than the model can read (ModelConfig::source_limit); heed::Error
// naming the value otherwise.
std::vector<Hypothesis> beam_search(const Model& model, const std::vector<int64_t>& source_ids,
                                    int64_t beam, int64_t max_steps);

}  // namespace heed
