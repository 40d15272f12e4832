// Answers that hand the exercise to the library: each calls its exercise's reference (or another
// function on its forbidden list, exercises/check/14_check.cpp). Compiled with the exercises' flags
// and never linked: the self-test reads this object and requires every function here refused.
// They are in namespace heed::student, as a student's answers are.
#include "exercises/14_induction_heads/exercises.h"
#include "models/decoder_model.h"
#include "models/analysis/heads.h"
#include "nn/encoder.h"
#include "nn/self_attention.h"

namespace heed::student {

Tensor causal_mask(const std::vector<int64_t>& lengths, int64_t T) {
  return key_mask(length_mask(lengths, T, "causal_mask"), T, true);
}
real induction_score(const Tensor& weights, int64_t n) {
  const int64_t T = weights.shape()[0];
  Tensor one = weights;
  one.reshape_inplace({1, 1, T, T});
  const ScoreSums s = score_head(one, 0, {n});
  return s.induction / static_cast<real>(s.induction_terms);
}
// heed's sampler reads a model's logits, so this answer builds one whose output is the logits
// (a zero weight and the logits as bias); it cannot even hand over u, only a generator.
int64_t sample_token(const Tensor& logits, real temperature, int64_t top_k, real u) {
  ModelConfig c;
  c.model = "decoder";
  c.src_vocab = c.tgt_vocab = logits.numel();
  c.attention_only = true;
  Generator gen(1);
  DecoderModel model(c, gen);
  for (auto& [name, v] : model.named_parameters()) {
    if (name == "out.weight") v.value() = Tensor::zeros(v.value().shape());
    if (name == "out.bias") v.value() = logits;
  }
  SamplingOptions o;
  o.temperature = temperature;
  o.top_k = top_k;
  return sample_continuation(model, {}, 1, o, gen)[0];
}

}  // namespace heed::student
