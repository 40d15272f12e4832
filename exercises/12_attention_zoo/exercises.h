// Chapter 12's exercises: Graves' content-based (cosine) score, causal scaled dot-product
// self-attention, and the split of features into heads. What each must do: README.md here.
#pragma once

#include "autograd/functions.h"
#include "exercises/not_done.h"

namespace heed::student {

// e (B, S): e[b, i] = beta * cos(s[b], h[b, i]) = beta * s.h_i / (|s| |h_i|), for s (B, D),
// h (B, S, D) and the learned scalar beta (1). A zero vector (a padded state) must give a score
// of 0, not NaN: take each norm as sqrt(sum of squares + 1e-16).
Var cosine_scores(const Var& s, const Var& h, const Var& beta);

// Causal scaled dot-product self-attention for N independent sequences: query i sees only keys
// j <= i. out (N, S, d_v) = softmax(q k^T / sqrt(d_k) over the allowed keys) v, for q, k
// (N, S, d_k) and v (N, S, d_v).
Var causal_attention(const Var& q, const Var& k, const Var& v);

// x (B, S, D) -> (B, h, S, D/h): head j of row b holds the features j*D/h .. (j+1)*D/h - 1 of every
// position (PyTorch's layout). REQUIRES: h divides D.
Tensor split_heads(const Tensor& x, int64_t heads);

}  // namespace heed::student
