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
