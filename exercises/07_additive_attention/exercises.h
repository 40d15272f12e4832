// Chapter 07's exercises: Bahdanau's additive score, the masked softmax that turns scores into
// weights over the real source positions, and the context vector. Built from autograd ops; the
// check compares them with the library's attention and trains a model with your score.
// What each must do: README.md in this folder.
#pragma once

#include "autograd/functions.h"
#include "exercises/not_done.h"

namespace heed::student {

// e (B, S): e[b, i] = v^T tanh(W1 h[b, i] + W2 s[b]), for the encoder states h (B, S, H), the
// decoder state s (B, Hq), W1 (A, H), W2 (A, Hq), v (A). No biases.
Var additive_scores(const Var& h, const Var& s, const Var& W1, const Var& W2, const Var& v);

// The softmax of each row of scores (B, S) over the positions where mask (B, S) is 1 (real
// source positions). A masked position gets exactly 0; a row with no real position gets all 0
// (never NaN). Stable for scores of any finite size.
Var masked_softmax_rows(const Var& scores, const Tensor& mask);

// c (B, D): c[b] = sum_i weights[b, i] values[b, i], for weights (B, S) and values (B, S, D).
Var context_vector(const Var& weights, const Var& values);

}  // namespace heed::student
