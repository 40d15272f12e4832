// Answers that hand the exercise to the library: each calls its exercise's reference (or another
// function on its forbidden list, exercises/check/NN_check.cpp). Compiled with the exercises' flags
// and never linked: the self-test reads this object and requires every function here refused.
// They are in namespace heed::student, as a student's answers are.
#include "exercises/12_attention_zoo/exercises.h"
#include "nn/attention.h"
#include "nn/self_attention.h"

namespace heed::student {

Var cosine_scores(const Var& s, const Var& h, const Var& beta) {
  CosineScore c;
  c.beta = beta;
  return c.score(s, c.prepare(h));
}
Var causal_attention(const Var& q, const Var& k, const Var& v) {
  const Tensor mask = self_attention_mask(Tensor::ones({q.shape()[0], q.shape()[1]}), true);
  return scaled_dot_product_attention(q, k, v, mask).output;
}
Tensor split_heads(const Tensor& x, int64_t heads) {
  Generator gen(1);
  MultiHeadAttention mha(x.shape()[2], heads, gen);
  return mha.forward(Var(x), Tensor::ones({x.shape()[0], x.shape()[1]})).weights.value();
}

}  // namespace heed::student
