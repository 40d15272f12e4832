// Chapter 08: write these four functions, then run `make exercise-08`.
// Useful ops (autograd/functions.h): matmul (2-D, or batched 3-D: (B, S, D) x (B, D, 1)),
// matmul_nt, reshape, concat, tanh, sum(x, axis), and * / with numbers.
#include "exercises/08_multiplicative_attention/exercises.h"
#include "nn/attention.h"  // masked_softmax, weighted_sum (or your own from chapter 07)

namespace heed::student {

Var general_scores(const Var& s, const Var& h, const Var& W) {
  not_done("write general_scores: s^T W h_i for every position i");
}

Var scaled_dot_scores(const Var& s, const Var& h) {
  not_done("write scaled_dot_scores: s^T h_i / sqrt(D)");
}

Var attentional_state(const Var& c, const Var& s, const Var& W_c) {
  not_done("write attentional_state: tanh(W_c [c; s])");
}

std::pair<Var, Var> feeding_step(const Cell& cell, const Var& y, const Var& s_prev, const Var& feed, const Var& h,
                                 const Tensor& mask, const Var& W, const Var& W_c) {
  not_done("write feeding_step: the cell on [y; feed], then attention with s_t, then h~_t = tanh(W_c [c; s_t])");
}

}  // namespace heed::student
