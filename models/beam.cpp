#include "models/beam.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "autograd/functions.h"
#include "models/tasks/vocab.h"

namespace heed {

namespace {

// One way to extend the beam: `parent`'s prefix followed by `token`.
struct Candidate {
  real log_prob;  // the parent's total plus `step`
  real step;      // log p(token | parent's prefix, source)
  int64_t token;
  int64_t parent;
};

// Best first. Comparing the totals first is the beam's rule; the step's own log-probability
// decides when two totals round to the same number. With one parent, a + x and a + y can round
// to equal totals although x > y; greedy takes argmax x there, and so must beam 1.
bool better(const Candidate& a, const Candidate& b) {
  if (a.log_prob != b.log_prob) return a.log_prob > b.log_prob;
  if (a.step != b.step) return a.step > b.step;
  if (a.token != b.token) return a.token < b.token;
  return a.parent < b.parent;
}

void check_source(const Model& model, const std::vector<int64_t>& source_ids, int64_t beam,
                  int64_t max_steps) {
  if (beam < 1) throw Error("beam_search: beam is " + std::to_string(beam) + ", must be >= 1");
  if (max_steps < 1) throw Error("beam_search: max_steps is " + std::to_string(max_steps) + ", must be >= 1");
  const ModelConfig& c = model.config();
  const int64_t S = static_cast<int64_t>(source_ids.size());
  if (S == 0) throw Error("beam_search: the source is empty");
  if (S > c.source_limit())  // location attention and learned positions have a row per position
    throw Error("beam_search: the source has " + std::to_string(S) + " tokens; the model reads at most " +
                std::to_string(c.source_limit()));
  for (int64_t i = 0; i < S; ++i)
    if (source_ids[i] < Vocab::kNumSpecials || source_ids[i] >= c.src_vocab)
      throw Error("beam_search: source token " + std::to_string(i) + " has id " + std::to_string(source_ids[i]) +
                  ", outside the words' ids [" + std::to_string(Vocab::kNumSpecials) + ", " +
                  std::to_string(c.src_vocab) + ")");
}

}  // namespace

std::vector<Hypothesis> beam_search(const Model& model, const std::vector<int64_t>& source_ids,
                                    int64_t beam, int64_t max_steps) {
  check_source(model, source_ids, beam, max_steps);
  NoGradGuard no_grad;
  // The source is encoded once; its state is copied into a row per live hypothesis.
  std::unique_ptr<StepState> st = model.start_decoding(make_batch({Example{source_ids, {}}}));
  const int64_t S = static_cast<int64_t>(source_ids.size());
  std::vector<Hypothesis> alive(1), finished;
  std::vector<Candidate> candidates;
  std::vector<int64_t> prev, rows;
  for (int64_t t = 0; t < max_steps && !alive.empty(); ++t) {
    const int64_t n = static_cast<int64_t>(alive.size());
    prev.assign(n, Vocab::kBos);
    for (int64_t k = 0; k < n; ++k)
      if (t > 0) prev[k] = alive[k].tokens.back();
    StepOutput o = model.decode_step(prev, *st);
    Tensor logp = log_softmax(model.logits(o.out).value(), 1);  // (n, V)
    const int64_t V = logp.shape()[1];

    candidates.clear();
    candidates.reserve(n * V);
    for (int64_t k = 0; k < n; ++k)
      for (int64_t v = 0; v < V; ++v) {
        real lp = logp[k * V + v];
        if (std::isnan(lp))
          throw Error("beam_search: the model's log-probability of token " + std::to_string(v) + " at step " +
                      std::to_string(t) + " is nan");
        candidates.push_back({alive[k].log_prob + lp, lp, v, k});
      }
    // Room for beam - |finished| live hypotheses: each finished one shrinks the beam.
    const int64_t slots = std::min<int64_t>(beam - static_cast<int64_t>(finished.size()), n * V);
    std::partial_sort(candidates.begin(), candidates.begin() + slots, candidates.end(), better);

    std::vector<Hypothesis> next;
    rows.clear();
    for (int64_t i = 0; i < slots; ++i) {
      const Candidate& c = candidates[i];
      Hypothesis h = alive[c.parent];
      h.tokens.push_back(c.token);
      h.log_prob = c.log_prob;
      if (o.weights.defined()) {
        const real* w = o.weights.value().data() + c.parent * S;  // (n, S): the parent's row
        h.attention.emplace_back(w, w + S);
      }
      if (c.token == Vocab::kEos) {
        h.finished = true;
        finished.push_back(std::move(h));
      } else {
        next.push_back(std::move(h));
        rows.push_back(c.parent);
      }
    }
    alive = std::move(next);
    if (!alive.empty()) st = st->select_rows(rows);
  }

  std::vector<Hypothesis> out = std::move(finished);
  for (Hypothesis& h : alive) out.push_back(std::move(h));
  for (Hypothesis& h : out) h.score = h.log_prob / static_cast<real>(h.tokens.size());
  // The sequences are distinct, so this order is total.
  std::sort(out.begin(), out.end(), [](const Hypothesis& a, const Hypothesis& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.log_prob != b.log_prob) return a.log_prob > b.log_prob;
    return a.tokens < b.tokens;
  });
  return out;
}

}  // namespace heed
