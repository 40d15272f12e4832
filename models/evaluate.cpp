#include "models/evaluate.h"

#include <algorithm>

namespace heed {

void score_batch(const Model& model, const Batch& batch, Accuracy& acc) {
  score_decoded(model.greedy(batch, batch.tgt_len), batch, acc);
}

void score_decoded(const Decoded& d, const Batch& batch, Accuracy& acc) {
  const int64_t T = batch.tgt_len;
  for (int64_t b = 0; b < batch.batch; ++b) {
    const int64_t L = batch.tgt_lengths[b] - 1;  // symbols; position L holds EOS
    bool exact = true;
    for (int64_t t = 0; t <= L; ++t) {
      bool right = d.tokens[b][t] == batch.tgt_out[b * T + t];
      exact = exact && right;
      if (t < L) {
        acc.tokens_right += right;
        ++acc.tokens;
      }
    }
    acc.exact_right += exact;
    ++acc.n;
  }
}

std::vector<Accuracy> evaluate_by_length(const Model& model, const Task& task, const std::vector<int64_t>& lengths,
                                         int64_t samples, uint64_t seed) {
  if (samples < 1) throw Error("evaluate: --samples must be at least 1");
  std::vector<Accuracy> out;
  for (int64_t L : lengths) {
    Generator gen(seed + static_cast<uint64_t>(L));  // the same sequences for every model
    Accuracy acc;
    acc.length = L;
    for (int64_t done = 0; done < samples;) {
      int64_t n = std::min<int64_t>(100, samples - done);
      std::vector<Example> examples;
      for (int64_t i = 0; i < n; ++i) examples.push_back(task.sample(gen, L));
      score_batch(model, make_batch(examples), acc);
      done += n;
    }
    out.push_back(acc);
  }
  return out;
}

Accuracy evaluate_held_out(const Model& model, const Task& task, int64_t samples, uint64_t seed) {
  if (samples < 1) throw Error("evaluate: --samples must be at least 1");
  Generator gen(seed);
  Accuracy acc;
  for (int64_t done = 0; done < samples;) {
    int64_t n = std::min<int64_t>(100, samples - done);
    std::vector<Example> examples;
    for (int64_t i = 0; i < n; ++i) examples.push_back(task.sample_held_out(gen));
    score_batch(model, make_batch(examples), acc);
    done += n;
  }
  return acc;
}

}  // namespace heed
