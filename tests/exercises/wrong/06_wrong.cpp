// Chapter 06: the solutions registered for the self-test, and wrong answers its checks must reject.
#include "exercises/check/06_check.h"
// The solution, compiled here in namespace heed::solution (one translation unit for both).
#define student solution
#include "exercises/solutions/06_seq2seq/exercises.cpp"
#undef student

namespace heed::check {
namespace {

// The target without EOS: T = longest L, y1 .. yL only.
std::pair<std::vector<int64_t>, std::vector<int64_t>> io_no_eos(const std::vector<std::vector<int64_t>>& targets) {
  auto [in, out] = heed::solution::decoder_io(targets);
  for (int64_t& id : out)
    if (id == Vocab::kEos) id = Vocab::kPad;
  return {in, out};
}
// The input is the target itself (no shift by BOS): the decoder would see the answer.
std::pair<std::vector<int64_t>, std::vector<int64_t>> io_unshifted(const std::vector<std::vector<int64_t>>& targets) {
  auto [in, out] = heed::solution::decoder_io(targets);
  return {out, out};
}
// Feeds BOS at every step instead of the previous choice.
std::vector<std::vector<int64_t>> greedy_always_bos(const Seq2Seq& model, const Batch& batch, int64_t steps) {
  NoGradGuard no_grad;
  DecoderState st = model.start(batch);
  std::vector<std::vector<int64_t>> tokens(batch.batch);
  std::vector<int64_t> prev(batch.batch, Vocab::kBos);
  for (int64_t t = 0; t < steps; ++t) {
    Tensor best = argmax(model.logits(model.step(prev, st).out).value(), 1);
    for (int64_t b = 0; b < batch.batch; ++b) tokens[b].push_back(static_cast<int64_t>(best[b]));
  }
  return tokens;
}
// Feeds the true previous target (teacher forcing) instead of its own choice; PAD past the target.
std::vector<std::vector<int64_t>> greedy_teacher(const Seq2Seq& model, const Batch& batch, int64_t steps) {
  NoGradGuard no_grad;
  DecoderState st = model.start(batch);
  std::vector<std::vector<int64_t>> tokens(batch.batch);
  std::vector<int64_t> prev(batch.batch, Vocab::kBos);
  for (int64_t t = 0; t < steps; ++t) {
    Tensor best = argmax(model.logits(model.step(prev, st).out).value(), 1);
    for (int64_t b = 0; b < batch.batch; ++b) {
      tokens[b].push_back(static_cast<int64_t>(best[b]));
      prev[b] = t + 1 < batch.tgt_len ? batch.tgt_in[b * batch.tgt_len + t + 1] : Vocab::kPad;
    }
  }
  return tokens;
}
// exact ignores the EOS.
std::pair<int64_t, int64_t> exact_ignores_eos(const std::vector<int64_t>& output, const std::vector<int64_t>& target) {
  auto [exact, tokens] = heed::solution::exact_and_tokens(output, target);
  return {tokens == static_cast<int64_t>(target.size()) ? 1 : 0, tokens};
}
// tokens stops counting at the first mistake.
std::pair<int64_t, int64_t> tokens_prefix(const std::vector<int64_t>& output, const std::vector<int64_t>& target) {
  auto [exact, tokens] = heed::solution::exact_and_tokens(output, target);
  int64_t prefix = 0;
  while (prefix < static_cast<int64_t>(target.size()) && output[prefix] == target[prefix]) ++prefix;
  return {exact, prefix};
}

Impl06 solution() { return HEED_IMPL_06(heed::solution); }
template <class F>
std::function<std::vector<Exercise>()> with(F change) {
  return [change] {
    Impl06 impl = solution();
    change(impl);
    return exercises_06(impl);
  };
}

Register sol({"06", "exercises/06_seq2seq", "solution", [] { return exercises_06(solution()); }});
RegisterWrong w1({"06", "decoder_io", "no EOS", with([](Impl06& i) { i.decoder_io = io_no_eos; })});
RegisterWrong w2({"06", "decoder_io", "input not shifted", with([](Impl06& i) { i.decoder_io = io_unshifted; })});
RegisterWrong w3({"06", "greedy_decode", "always feeds BOS", with([](Impl06& i) { i.greedy_decode = greedy_always_bos; })});
RegisterWrong w4({"06", "greedy_decode", "feeds the target", with([](Impl06& i) { i.greedy_decode = greedy_teacher; })});
RegisterWrong w5({"06", "exact_and_tokens", "exact ignores EOS", with([](Impl06& i) { i.exact_and_tokens = exact_ignores_eos; })});
RegisterWrong w6({"06", "exact_and_tokens", "tokens as a prefix", with([](Impl06& i) { i.exact_and_tokens = tokens_prefix; })});

}  // namespace
}  // namespace heed::check
