// Chapter 12: write these three functions, then run `make exercise-12`.
// Useful ops (autograd/functions.h): matmul / matmul_nt on batched 3-D Vars, sum(x, axis, true),
// sqrt, masked_fill, softmax, reshape, and + - * / between Vars and with numbers.
#include "exercises/12_attention_zoo/exercises.h"

namespace heed::student {

Var cosine_scores(const Var& s, const Var& h, const Var& beta) {
  not_done("write cosine_scores: beta * (s / |s|) . (h_i / |h_i|), norms as sqrt(sum x^2 + 1e-16)");
}

Var causal_attention(const Var& q, const Var& k, const Var& v) {
  not_done("write causal_attention: softmax(q k^T / sqrt(d_k)) v with the keys after each query masked out");
}

Tensor split_heads(const Tensor& x, int64_t heads) {
  not_done("write split_heads: out[b, j, t, f] = x[b, t, j * D/h + f]");
}

}  // namespace heed::student
