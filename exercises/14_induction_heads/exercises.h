// Chapter 14's exercises: the causal mask a decoder-only model attends through, the induction
// score that finds an induction head, and the sampler that draws each next token. What each must
// do: README.md here.
#pragma once

#include <cstdint>
#include <vector>

#include "exercises/not_done.h"
#include "tensor/tensor.h"

namespace heed::student {

// The mask of heed's decoder-only model (models/decoder_model.h) for B sequences padded to T
// positions, in heed's convention (1 = may attend, 0 = may not): mask[b, i, j] = 1 when key j is
// at or before query i (j <= i) and real (j < lengths[b]), else 0. A padded query (i >= lengths[b])
// follows the same rule: it sees the real keys up to itself, as PyTorch's key_padding_mask lets it.
// -> (B, T, T). REQUIRES: T >= 1, every length in 1 .. T (else heed::Error naming it).
Tensor causal_mask(const std::vector<int64_t>& lengths, int64_t T);

// One head's induction score on one repeat sequence <bos> s_1 .. s_n s_1 .. s_n (position 0 is
// <bos>, the copies sit at 1 .. n and n+1 .. 2n): weights (T, T) are the head's attention weights,
// row = query t, column = key, and T may be larger than 2n + 1 (padding after the sequence).
//   induction score = mean over t = n+1 .. 2n of weights[t, t-n+1]
// REQUIRES: weights (T, T), n >= 1, 2n < T (else heed::Error naming them).
real induction_score(const Tensor& weights, int64_t n);

// The next token drawn from logits (V) with one uniform u in [0, 1), by heed's rule:
// order the tokens most probable first (equal logits: the lower id first); temperature 0 returns
// the first; else keep the first top_k (all when top_k is 0 or larger than V), weigh each kept
// token i by p_i = exp((logits[i] - the largest logit) / temperature), and return the first kept
// token whose running sum of p exceeds u * (the sum of all kept p).
// REQUIRES: temperature >= 0, top_k >= 0 (else heed::Error naming the value).
int64_t sample_token(const Tensor& logits, real temperature, int64_t top_k, real u);

}  // namespace heed::student
