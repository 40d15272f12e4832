// Your heed's greedy decoding: heed::Model::greedy(batch, steps), which heed's evaluation, the
// held-out scores of heed train and heed eval, BLEU and the attention film decode with
// (models/model.cpp), on your greedy_decode (exercise 06.2). make yours links this file in place
// of heed's when 06.2 has passed; every recurrent model's outputs (a Seq2Seq: plain and every
// attention) are then the tokens your greedy_decode chose.
// heed's greedy also records, for each choice, its log-probability and the attention weights of
// the step that made it; yours returns the tokens alone. So after yours has chosen, the decoder
// runs once more, fed your tokens, and the record is read from those steps: fed the same tokens,
// it takes the same steps. A Transformer, which your greedy_decode does not take, chooses as
// heed's does: the most probable token at every step. What it costs: each decoding runs twice.
#include <string>

#include "exercises/06_seq2seq/exercises.h"
#include "models/model.h"

namespace heed {

Decoded Model::greedy(const Batch& batch, int64_t steps) const {
  NoGradGuard no_grad;
  const int64_t B = batch.batch;
  std::vector<std::vector<int64_t>> chosen;
  if (const auto* recurrent = dynamic_cast<const Seq2Seq*>(this)) {
    chosen = student::greedy_decode(*recurrent, batch, steps);
    const int64_t V = config().tgt_vocab;
    if (static_cast<int64_t>(chosen.size()) != B)
      throw Error("greedy (yours, exercise 06.2): greedy_decode returned " + std::to_string(chosen.size()) +
                  " rows for a batch of " + std::to_string(B));
    for (int64_t b = 0; b < B; ++b) {
      if (static_cast<int64_t>(chosen[b].size()) != steps)
        throw Error("greedy (yours, exercise 06.2): greedy_decode's row " + std::to_string(b) + " has " +
                    std::to_string(chosen[b].size()) + " tokens, not the " + std::to_string(steps) + " steps asked");
      for (int64_t id : chosen[b])
        if (id < 0 || id >= V)
          throw Error("greedy (yours, exercise 06.2): greedy_decode's row " + std::to_string(b) + " holds the id " +
                      std::to_string(id) + ", outside the target vocabulary of " + std::to_string(V));
    }
  }
  // The steps again, fed the chosen tokens (a Transformer's chosen here): the record.
  std::unique_ptr<StepState> st = start_decoding(batch);
  Decoded d;
  d.tokens.assign(B, {});
  d.log_prob.assign(B, 0);
  d.token_log_prob.assign(B, {});
  if (has_attention()) d.attention.assign(B, {});
  std::vector<int64_t> prev(B, Vocab::kBos);
  for (int64_t t = 0; t < steps; ++t) {
    StepOutput o = decode_step(prev, *st);
    Tensor logp = log_softmax(logits(o.out).value(), 1);  // (B, V)
    Tensor best = argmax(logp, 1);
    const int64_t V = logp.shape()[1], S = batch.src_len;
    for (int64_t b = 0; b < B; ++b) {
      prev[b] = chosen.empty() ? static_cast<int64_t>(best[b]) : chosen[b][t];
      d.tokens[b].push_back(prev[b]);
      d.log_prob[b] += logp[b * V + prev[b]];
      d.token_log_prob[b].push_back(logp[b * V + prev[b]]);
      if (has_attention()) {
        const real* w = o.weights.value().data() + b * S;
        d.attention[b].emplace_back(w, w + S);
      }
    }
  }
  return d;
}

}  // namespace heed
