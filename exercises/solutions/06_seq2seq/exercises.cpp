// Chapter 06's solutions.
#include <algorithm>

#include "exercises/06_seq2seq/exercises.h"

namespace heed::student {

std::pair<std::vector<int64_t>, std::vector<int64_t>> decoder_io(const std::vector<std::vector<int64_t>>& targets) {
  const int64_t B = static_cast<int64_t>(targets.size());
  int64_t T = 0;
  for (const auto& y : targets) T = std::max(T, static_cast<int64_t>(y.size()) + 1);
  std::vector<int64_t> in(B * T, Vocab::kPad), out(B * T, Vocab::kPad);
  for (int64_t b = 0; b < B; ++b) {
    const auto& y = targets[b];
    const int64_t L = static_cast<int64_t>(y.size());
    in[b * T] = Vocab::kBos;
    for (int64_t t = 0; t < L; ++t) {
      in[b * T + t + 1] = y[t];
      out[b * T + t] = y[t];
    }
    out[b * T + L] = Vocab::kEos;
  }
  return {in, out};
}

std::vector<std::vector<int64_t>> greedy_decode(const Seq2Seq& model, const Batch& batch, int64_t steps) {
  NoGradGuard no_grad;
  const int64_t B = batch.batch;
  DecoderState st = model.start(batch);
  std::vector<std::vector<int64_t>> tokens(B);
  std::vector<int64_t> prev(B, Vocab::kBos);
  for (int64_t t = 0; t < steps; ++t) {
    Tensor best = argmax(model.logits(model.step(prev, st).out).value(), 1);  // (B)
    for (int64_t b = 0; b < B; ++b) {
      prev[b] = static_cast<int64_t>(best[b]);
      tokens[b].push_back(prev[b]);
    }
  }
  return tokens;
}

std::pair<int64_t, int64_t> exact_and_tokens(const std::vector<int64_t>& output, const std::vector<int64_t>& target) {
  const size_t L = target.size();
  int64_t right = 0;
  for (size_t t = 0; t < L; ++t) right += output[t] == target[t];
  const bool exact = right == static_cast<int64_t>(L) && output[L] == Vocab::kEos;
  return {exact ? 1 : 0, right};
}

}  // namespace heed::student
