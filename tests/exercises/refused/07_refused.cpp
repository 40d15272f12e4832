// Answers that hand the exercise to the library: each calls its exercise's reference (or another
// function on its forbidden list, exercises/check/NN_check.cpp). Compiled with the exercises' flags
// and never linked: the self-test reads this object and requires every function here refused.
// They are in namespace heed::student, as a student's answers are.
#include "exercises/07_additive_attention/exercises.h"
#include "models/seq2seq.h"
#include "models/train.h"
#include "nn/attention.h"

namespace heed::student {

Var additive_scores(const Var& h, const Var& s, const Var& W1, const Var& W2, const Var& v) {
  return additive_score(h, s, v);
}
Var masked_softmax_rows(const Var& scores, const Tensor& mask) { return masked_softmax(scores, mask); }
Var context_vector(const Var& weights, const Var& values) { return weighted_sum(weights, values); }
Var decoder_step(const course::AttentionModel& m, const std::vector<int64_t>& prev, Var& s, const Var& h, const Tensor& mask) {
  Attention a = attend(additive_scores(h, s, m.W1, m.W2, m.v), h, mask);
  s = m.cell.step(concat({m.tgt_embed.forward(prev), a.context}, 1), State{s, Var()}).h;
  return m.out.forward(concat({s, a.context}, 1));
}
// heed's own model instead of the student's.
Var batch_loss(const course::AttentionModel&, const Batch& batch) {
  Generator gen(1);
  Seq2Seq model(ModelConfig{}, gen);
  return model.loss(batch);
}
std::vector<real> train_loop(course::AttentionModel&, Adam&, const Task& task, Generator&, int64_t steps, int64_t batch,
                             real lr) {
  Generator gen(1);
  Seq2Seq model(ModelConfig{}, gen);
  TrainOptions opt;
  opt.steps = steps;
  opt.batch = batch;
  opt.lr = lr;
  return train(model, task, opt).losses;
}

}  // namespace heed::student

// The capstone written as the solutions write it, on a decoder step that hands its attention to
// heed's: batch_loss and train_loop call only the student's own functions, and each is refused
// through the answer it builds on ("through your 07.4 decoder_step", "through your 07.5 batch_loss").
namespace heed::student::holes {

Var decoder_step(const course::AttentionModel& m, const std::vector<int64_t>& prev, Var& s, const Var& h, const Tensor& mask) {
  const int64_t B = h.shape()[0], H = h.shape()[2];
  Attention a = attend(sum(h * reshape(s, {B, 1, H}), 2), h, mask);  // dot scores, heed's weights and context
  s = m.cell.step(concat({m.tgt_embed.forward(prev), a.context}, 1), State{s, Var()}).h;
  return m.out.forward(concat({s, a.context}, 1));
}
// (Only the first target position: enough to reach decoder_step, which is what is judged.)
Var batch_loss(const course::AttentionModel& m, const Batch& batch) {
  const int64_t B = batch.batch, S = batch.src_len;
  EncoderOutput enc = m.encoder.forward(reshape(m.src_embed.forward(batch.src), {B, S, -1}), batch.lengths);
  Var s = enc.last.h;
  std::vector<int64_t> first(B, Vocab::kBos), targets(B);
  for (int64_t b = 0; b < B; ++b) targets[b] = batch.tgt_out[b * batch.tgt_len];
  return cross_entropy(decoder_step(m, first, s, enc.states, length_mask(batch.lengths, S, "batch_loss")), targets);
}
std::vector<real> train_loop(course::AttentionModel& m, Adam& adam, const Task& task, Generator& data, int64_t steps,
                             int64_t batch, real lr) {
  std::vector<real> losses;
  for (int64_t t = 0; t < steps; ++t) {
    Var loss = batch_loss(m, sample_batch(task, data, batch));
    adam.zero_grad();
    loss.backward();
    clip_grad_norm(m.parameters(), 1.0);
    adam.set_lr(lr * (1 - static_cast<real>(t) / steps));
    adam.step();
    losses.push_back(loss.item());
  }
  return losses;
}

}  // namespace heed::student::holes
