// Chapter 08: write these three functions, then run `make exercise-08`.
// Useful ops (autograd/functions.h): matmul (2-D, or batched 3-D: (B, S, D) x (B, D, 1)),
// matmul_nt, reshape, concat, tanh, sum(x, axis), and * / with numbers.
#include "exercises/08_multiplicative_attention/exercises.h"

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

}  // namespace heed::student
