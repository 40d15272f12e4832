// Chapter 07: the solutions registered for the self-test, and wrong answers its checks must reject.
#include <cmath>

#include "exercises/check/07_check.h"
// The solution, compiled here in namespace heed::solution (one translation unit for both).
#define student solution
#include "exercises/solutions/07_additive_attention/exercises.cpp"
#undef student

namespace heed::check {
namespace {

// The query forgotten: v^T tanh(W1 h_i) looks at the same places at every decoder step.
Var scores_no_query(const Var& h, const Var&, const Var& W1, const Var&, const Var& v) {
  const int64_t B = h.shape()[0], S = h.shape()[1], H = h.shape()[2], A = W1.shape()[0];
  return reshape(matmul_nt(tanh(matmul_nt(reshape(h, {B * S, H}), W1)), reshape(v, {1, A})), {B, S});
}
// tanh forgotten: v^T (W1 h_i + W2 s), a linear score.
Var scores_no_tanh(const Var& h, const Var& s, const Var& W1, const Var& W2, const Var& v) {
  const int64_t B = h.shape()[0], S = h.shape()[1], H = h.shape()[2], A = W1.shape()[0];
  Var t = reshape(matmul_nt(reshape(h, {B * S, H}), W1), {B, S, A}) + reshape(matmul_nt(s, W2), {B, 1, A});
  return reshape(matmul_nt(reshape(t, {B * S, A}), reshape(v, {1, A})), {B, S});
}
// Wrong only at larger sizes (tests/exercises/yours_sizes_test.cpp also links it into make yours-test): the
// source scored in blocks of 12 positions, and every block reads the keys of the first (the
// block's offset dropped). Right for sources of up to 12 positions.
Var scores_blocked_12(const Var& h, const Var& s, const Var& W1, const Var& W2, const Var& v) {
  const int64_t B = h.shape()[0], S = h.shape()[1], H = h.shape()[2], A = W1.shape()[0];
  Var keys = reshape(matmul_nt(reshape(h, {B * S, H}), W1), {B, S, A});  // (B, S, A)
  Var query = reshape(matmul_nt(s, W2), {B, 1, A});                       // (B, 1, A)
  std::vector<Var> blocks;
  for (int64_t t0 = 0; t0 < S; t0 += 12) {
    const int64_t n = std::min<int64_t>(12, S - t0);
    Var t = tanh(slice(keys, 1, 0, n) + query);  // (B, n, A)
    blocks.push_back(reshape(matmul_nt(reshape(t, {B * n, A}), reshape(v, {1, A})), {B, n}));
  }
  return concat(blocks, 1);
}
// The mask forgotten: padding gets weight.
Var softmax_unmasked(const Var& scores, const Tensor&) { return softmax(scores, 1); }
// -inf at padding: an all-padding row becomes NaN (exp(-inf - -inf)).
Var softmax_minus_inf(const Var& scores, const Tensor& mask) {
  Tensor off = Tensor::zeros(mask.shape());
  for (int64_t i = 0; i < mask.numel(); ++i) off[i] = mask[i] == 0;
  return softmax(masked_fill(scores, off, -INFINITY), 1);
}
// -1e9 at padding but no zeroing: an all-padding row comes out uniform, not zero.
Var softmax_uniform_empty(const Var& scores, const Tensor& mask) {
  Tensor off = Tensor::zeros(mask.shape());
  for (int64_t i = 0; i < mask.numel(); ++i) off[i] = mask[i] == 0;
  return softmax(masked_fill(scores, off, -1e9), 1);
}
// Masked right, but a temperature of 2 (softmax of 2 x): every masked weight is exactly 0, the
// real ones are wrong, and the report must say so rather than blame the masked weights.
Var softmax_doubled(const Var& scores, const Tensor& mask) {
  Tensor off = Tensor::zeros(mask.shape());
  for (int64_t i = 0; i < mask.numel(); ++i) off[i] = mask[i] == 0;
  return where(mask, softmax(masked_fill(scores * 2.0, off, -1e30), 1), Var(Tensor::zeros(mask.shape())));
}
// Summed over the features instead of the positions.
Var context_wrong_axis(const Var& weights, const Var& values) {
  const int64_t B = weights.shape()[0], S = weights.shape()[1];
  return sum(reshape(weights, {B, S, 1}) * values, 2);
}
// The mean of the weighted values: divided by S.
Var context_mean(const Var& weights, const Var& values) {
  const int64_t B = weights.shape()[0], S = weights.shape()[1];
  return mean(reshape(weights, {B, S, 1}) * values, 1);
}

// ---- the capstone's wrong answers
// The context left out of the cell: it reads [emb(prev); 0].
Var step_no_context(const course::AttentionModel& m, const std::vector<int64_t>& prev, Var& s, const Var& h,
                    const Tensor& mask) {
  Var c = solution::context_vector(solution::masked_softmax_rows(solution::additive_scores(h, s, m.W1, m.W2, m.v), mask), h);
  Var y = m.tgt_embed.forward(prev);
  s = m.cell.step(concat({y, Var(Tensor::zeros(c.shape()))}, 1), State{s, Var()}).h;
  return m.out.forward(concat({s, c}, 1));
}
// The output layer reads the state before the step: [s_{t-1}; c_t].
Var step_old_state_out(const course::AttentionModel& m, const std::vector<int64_t>& prev, Var& s, const Var& h,
                       const Tensor& mask) {
  Var c = solution::context_vector(solution::masked_softmax_rows(solution::additive_scores(h, s, m.W1, m.W2, m.v), mask), h);
  Var logits = m.out.forward(concat({s, c}, 1));
  s = m.cell.step(concat({m.tgt_embed.forward(prev), c}, 1), State{s, Var()}).h;
  return logits;
}
// The loss of the batch against tgt_in (the targets not shifted), or with the steps stacked
// time-major (row t * B + b against tgt_out's b * T + t).
Var loss_of(const course::AttentionModel& m, const Batch& batch, bool unshifted, bool time_major) {
  const int64_t B = batch.batch, S = batch.src_len, T = batch.tgt_len;
  EncoderOutput enc = m.encoder.forward(reshape(m.src_embed.forward(batch.src), {B, S, -1}), batch.lengths);
  const Tensor mask = length_mask(batch.lengths, S, "batch_loss");
  Var s = enc.last.h;
  std::vector<Var> logits;
  std::vector<int64_t> prev(B);
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t b = 0; b < B; ++b) prev[b] = batch.tgt_in[b * T + t];
    logits.push_back(solution::decoder_step(m, prev, s, enc.states, mask));
  }
  return cross_entropy(reshape(stack(logits, time_major ? 0 : 1), {B * T, -1}), unshifted ? batch.tgt_in : batch.tgt_out,
                       Vocab::kPad);
}
Var loss_unshifted(const course::AttentionModel& m, const Batch& batch) { return loss_of(m, batch, true, false); }
Var loss_time_major(const course::AttentionModel& m, const Batch& batch) { return loss_of(m, batch, false, true); }
// The loop without zero_grad (each step's gradients added to the last ones), or at a constant rate.
std::vector<real> loop_of(course::AttentionModel& m, Adam& adam, const Task& task, Generator& data, int64_t steps,
                          int64_t batch, real lr, bool zero_grad, bool decay) {
  const std::vector<Var> params = m.parameters();
  std::vector<real> losses;
  for (int64_t t = 0; t < steps; ++t) {
    Var loss = solution::batch_loss(m, sample_batch(task, data, batch));
    if (zero_grad) adam.zero_grad();
    loss.backward();
    clip_grad_norm(params, 1.0);
    adam.set_lr(decay ? lr * (1 - static_cast<real>(t) / steps) : lr);
    adam.step();
    losses.push_back(loss.item());
  }
  return losses;
}
std::vector<real> loop_no_zero_grad(course::AttentionModel& m, Adam& adam, const Task& task, Generator& data, int64_t steps,
                                    int64_t batch, real lr) {
  return loop_of(m, adam, task, data, steps, batch, lr, false, true);
}
std::vector<real> loop_constant_rate(course::AttentionModel& m, Adam& adam, const Task& task, Generator& data, int64_t steps,
                                     int64_t batch, real lr) {
  return loop_of(m, adam, task, data, steps, batch, lr, true, false);
}

Impl07 solution() { return HEED_IMPL_07(heed::solution); }
template <class F>
std::function<std::vector<Exercise>()> with(F change) {
  return [change] {
    Impl07 impl = solution();
    change(impl);
    return exercises_07(impl);
  };
}

Register sol({"07", "exercises/07_additive_attention", "solution", [] { return exercises_07(solution()); }});
RegisterWrong w1b({"07", "additive_scores", "blocks of 12 positions, the keys' offset dropped",
                   with([](Impl07& i) { i.additive_scores = scores_blocked_12; }), "additive_scores differs"});
RegisterWrong w1({"07", "additive_scores", "no query", with([](Impl07& i) { i.additive_scores = scores_no_query; })});
RegisterWrong w2({"07", "additive_scores", "no tanh", with([](Impl07& i) { i.additive_scores = scores_no_tanh; })});
// The training check on its own: a score blind to the decoder state gives the same weights at
// every step, and the model must fail to reverse.
RegisterWrong w2t({"07", "additive_scores", "no query, training alone", [] {
  return std::vector<Exercise>{{"additive_scores", [] { expect_learns_reverse(scores_no_query); }}};
}});
RegisterWrong w3({"07", "masked_softmax_rows", "no mask", with([](Impl07& i) { i.masked_softmax_rows = softmax_unmasked; }),
                  "a masked weight must be exactly 0"});
RegisterWrong w3t({"07", "masked_softmax_rows", "doubled scores", with([](Impl07& i) { i.masked_softmax_rows = softmax_doubled; }),
                   "the weights of the real positions"});
RegisterWrong w4({"07", "masked_softmax_rows", "-inf: NaN rows", with([](Impl07& i) { i.masked_softmax_rows = softmax_minus_inf; })});
RegisterWrong w5({"07", "masked_softmax_rows", "uniform empty row", with([](Impl07& i) { i.masked_softmax_rows = softmax_uniform_empty; })});
RegisterWrong w6({"07", "context_vector", "wrong axis", with([](Impl07& i) { i.context_vector = context_wrong_axis; })});
RegisterWrong w7({"07", "context_vector", "mean", with([](Impl07& i) { i.context_vector = context_mean; })});
RegisterWrong w8({"07", "decoder_step", "no context fed", with([](Impl07& i) { i.decoder_step = step_no_context; }),
                  "the context c_t was not fed to the cell"});
RegisterWrong w9({"07", "decoder_step", "s_{t-1} to the output", with([](Impl07& i) { i.decoder_step = step_old_state_out; }),
                  "the logits out([s_t; c_t])"});
RegisterWrong w10({"07", "batch_loss", "targets not shifted", with([](Impl07& i) { i.batch_loss = loss_unshifted; }),
                   "is the loss against tgt_in"});
RegisterWrong w11({"07", "batch_loss", "time-major rows", with([](Impl07& i) { i.batch_loss = loss_time_major; }),
                   "both flattened row b * T + t"});
RegisterWrong w12({"07", "train_loop", "no zero_grad", with([](Impl07& i) { i.train_loop = loop_no_zero_grad; }),
                   "adam.zero_grad() (else the gradients add up over the steps)"});
RegisterWrong w13({"07", "train_loop", "constant rate", with([](Impl07& i) { i.train_loop = loop_constant_rate; }),
                   "the updates differ"});

}  // namespace
}  // namespace heed::check
