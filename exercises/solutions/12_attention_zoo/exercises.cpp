// Chapter 12's solutions.
#include <cmath>

#include "exercises/12_attention_zoo/exercises.h"

namespace heed::student {

namespace {

Var unit(const Var& x) { return x / sqrt(sum(x * x, -1, true) + 1e-16); }  // x / |x| along the last axis

}  // namespace

Var cosine_scores(const Var& s, const Var& h, const Var& beta) {
  const int64_t B = h.shape()[0], S = h.shape()[1], D = h.shape()[2];
  Var e = reshape(matmul(unit(h), reshape(unit(s), {B, D, 1})), {B, S});  // cos(s, h_i)
  return e * beta;
}

Var causal_attention(const Var& q, const Var& k, const Var& v) {
  const int64_t N = q.shape()[0], S = q.shape()[1], dk = q.shape()[2];
  Tensor future = Tensor::zeros({N, S, S});  // 1 where key j comes after query i
  for (int64_t n = 0; n < N; ++n)
    for (int64_t i = 0; i < S; ++i)
      for (int64_t j = i + 1; j < S; ++j) future[(n * S + i) * S + j] = 1;
  Var scores = matmul_nt(q, k) / std::sqrt(static_cast<real>(dk));  // (N, S, S)
  return matmul(softmax(masked_fill(scores, future, -1e30), -1), v);
}

Tensor split_heads(const Tensor& x, int64_t heads) {
  const int64_t B = x.shape()[0], S = x.shape()[1], D = x.shape()[2], d = D / heads;
  Tensor out = Tensor::zeros({B, heads, S, d});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t j = 0; j < heads; ++j)
      for (int64_t t = 0; t < S; ++t)
        for (int64_t f = 0; f < d; ++f) out[((b * heads + j) * S + t) * d + f] = x[(b * S + t) * D + j * d + f];
  return out;
}

}  // namespace heed::student
