// Chapter 06: write these three functions, then run `make exercise-06`.
#include "exercises/06_seq2seq/exercises.h"

namespace heed::student {

std::pair<std::vector<int64_t>, std::vector<int64_t>> decoder_io(const std::vector<std::vector<int64_t>>& targets) {
  not_done("write decoder_io: input BOS y1..yL and target y1..yL EOS, padded to T = longest L + 1");
}

std::vector<std::vector<int64_t>> greedy_decode(const Seq2Seq& model, const Batch& batch, int64_t steps) {
  not_done("write greedy_decode: start, then steps x (step with the previous choices, argmax of the logits)");
}

std::pair<int64_t, int64_t> exact_and_tokens(const std::vector<int64_t>& output, const std::vector<int64_t>& target) {
  not_done("write exact_and_tokens: exact needs the L symbols and the EOS after them; tokens counts the L");
}

}  // namespace heed::student
