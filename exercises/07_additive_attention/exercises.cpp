// Chapter 07: write these three functions, then run `make exercise-07`.
// Useful ops (autograd/functions.h): matmul_nt(x, W) = x W^T for 2-D x (reshape h (B, S, H) to
// (B * S, H) first, and back after), reshape, tanh, softmax, masked_fill, where, sum(x, axis),
// and + - * between Vars (with NumPy broadcasting: (B, S, A) + (B, 1, A) adds to every position).
#include "exercises/07_additive_attention/exercises.h"

namespace heed::student {

Var additive_scores(const Var& h, const Var& s, const Var& W1, const Var& W2, const Var& v) {
  not_done("write additive_scores: v^T tanh(W1 h_i + W2 s) for every position i");
}

Var masked_softmax_rows(const Var& scores, const Tensor& mask) {
  not_done("write masked_softmax_rows: softmax over the mask's 1s; exactly 0 elsewhere; an empty row all 0");
}

Var context_vector(const Var& weights, const Var& values) {
  not_done("write context_vector: the weighted sum of the values over the positions");
}

}  // namespace heed::student
