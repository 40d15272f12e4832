// Answers that hand the exercise to the library: each calls its exercise's reference (or another
// function on its forbidden list, exercises/check/NN_check.cpp). Compiled with the exercises' flags
// and never linked: the self-test reads this object and requires every function here refused.
// They are in namespace heed::student, as a student's answers are.
#include "exercises/08_multiplicative_attention/exercises.h"
#include "models/seq2seq.h"
#include "nn/attention.h"

namespace heed::student {

Var general_scores(const Var& s, const Var& h, const Var& W) {
  Generator gen(1);
  GeneralScore g(s.shape()[1], h.shape()[2], gen);
  g.W.weight = W;
  return g.score(s, g.prepare(h));
}
Var scaled_dot_scores(const Var& s, const Var& h) {
  DotScore d(true);
  return d.score(s, h);
}
// The model's decoder computes the attentional state; this answer builds one to use it.
Var attentional_state(const Var& c, const Var& s, const Var& W_c) {
  Generator gen(1);
  Seq2Seq model(ModelConfig{}, gen);
  return model.parameters().front();
}
std::pair<Var, Var> feeding_step(const Cell& cell, const Var& y, const Var& s_prev, const Var& feed, const Var& h,
                                 const Tensor& mask, const Var& W, const Var& W_c) {
  Attention a = attend(matmul(h, W), h, mask);
  return {a.context, a.weights};
}

}  // namespace heed::student
