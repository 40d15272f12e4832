// Chapter 07's solutions.
#include "exercises/07_additive_attention/exercises.h"

namespace heed::student {

Var additive_scores(const Var& h, const Var& s, const Var& W1, const Var& W2, const Var& v) {
  const int64_t B = h.shape()[0], S = h.shape()[1], H = h.shape()[2], A = W1.shape()[0];
  Var keys = reshape(matmul_nt(reshape(h, {B * S, H}), W1), {B, S, A});  // W1 h_i: (B, S, A)
  Var query = reshape(matmul_nt(s, W2), {B, 1, A});                       // W2 s: (B, 1, A), broadcast over S
  Var t = tanh(keys + query);                                             // (B, S, A)
  return reshape(matmul_nt(reshape(t, {B * S, A}), reshape(v, {1, A})), {B, S});  // v^T t: (B, S)
}

Var masked_softmax_rows(const Var& scores, const Tensor& mask) {
  Tensor off = Tensor::zeros(mask.shape());  // 1 at padding
  for (int64_t i = 0; i < mask.numel(); ++i) off[i] = mask[i] == 0;
  // A very negative score gets weight exp(-1e30 - max) = 0 exactly; a row that is all padding
  // comes out uniform, and `where` turns it into zeros.
  Var w = softmax(masked_fill(scores, off, -1e30), 1);
  return where(mask, w, Var(Tensor::zeros(mask.shape())));
}

Var context_vector(const Var& weights, const Var& values) {
  const int64_t B = weights.shape()[0], S = weights.shape()[1];
  return sum(reshape(weights, {B, S, 1}) * values, 1);  // (B, D)
}

}  // namespace heed::student

// ---- The capstone.
namespace heed::student {

Var decoder_step(const course::AttentionModel& m, const std::vector<int64_t>& prev, Var& s, const Var& h, const Tensor& mask) {
  Var weights = masked_softmax_rows(additive_scores(h, s, m.W1, m.W2, m.v), mask);  // (B, S), with s_{t-1}
  Var c = context_vector(weights, h);                                               // (B, H)
  s = m.cell.step(concat({m.tgt_embed.forward(prev), c}, 1), State{s, Var()}).h;    // s_t
  return m.out.forward(concat({s, c}, 1));                                          // (B, V)
}

Var batch_loss(const course::AttentionModel& m, const Batch& batch) {
  const int64_t B = batch.batch, S = batch.src_len, T = batch.tgt_len;
  EncoderOutput enc = m.encoder.forward(reshape(m.src_embed.forward(batch.src), {B, S, -1}), batch.lengths);
  const Tensor mask = length_mask(batch.lengths, S, "batch_loss");
  Var s = enc.last.h;  // s_0: the encoder's state at the last real position
  std::vector<Var> logits;
  std::vector<int64_t> prev(B);
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t b = 0; b < B; ++b) prev[b] = batch.tgt_in[b * T + t];  // teacher forcing: BOS y1 .. yL
    logits.push_back(decoder_step(m, prev, s, enc.states, mask));
  }
  // (B, T, V) flattened row b * T + t, as tgt_out is: y1 .. yL EOS.
  return cross_entropy(reshape(stack(logits, 1), {B * T, -1}), batch.tgt_out, Vocab::kPad);
}

std::vector<real> train_loop(course::AttentionModel& m, Adam& adam, const Task& task, Generator& data, int64_t steps,
                             int64_t batch, real lr) {
  const std::vector<Var> params = m.parameters();
  std::vector<real> losses;
  for (int64_t t = 0; t < steps; ++t) {
    Batch b = sample_batch(task, data, batch);
    Var loss = batch_loss(m, b);
    adam.zero_grad();  // else this step's gradients add to the last one's
    loss.backward();
    clip_grad_norm(params, 1.0);
    adam.set_lr(lr * (1 - static_cast<real>(t) / steps));
    adam.step();
    losses.push_back(loss.item());
  }
  return losses;
}

}  // namespace heed::student
