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
