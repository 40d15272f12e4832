// Chapter 08's solutions.
#include <cmath>

#include "exercises/08_multiplicative_attention/exercises.h"
#include "nn/attention.h"

namespace heed::student {

Var general_scores(const Var& s, const Var& h, const Var& W) {
  const int64_t B = h.shape()[0], S = h.shape()[1], Dk = h.shape()[2];
  Var q = reshape(matmul(s, W), {B, Dk, 1});  // s^T W: (B, Dk), as a column per row
  return reshape(matmul(h, q), {B, S});       // h_i . (s^T W): (B, S)
}

Var scaled_dot_scores(const Var& s, const Var& h) {
  const int64_t B = h.shape()[0], S = h.shape()[1], D = h.shape()[2];
  return reshape(matmul(h, reshape(s, {B, D, 1})), {B, S}) / std::sqrt(static_cast<real>(D));
}

Var attentional_state(const Var& c, const Var& s, const Var& W_c) { return tanh(matmul_nt(concat({c, s}, 1), W_c)); }

std::pair<Var, Var> feeding_step(const Cell& cell, const Var& y, const Var& s_prev, const Var& feed, const Var& h,
                                 const Tensor& mask, const Var& W, const Var& W_c) {
  Var s = cell.step(concat({y, feed}, 1), {s_prev, Var()}).h;   // s_t, from [y; h~_{t-1}]
  Var a = masked_softmax(general_scores(s, h, W), mask);         // attends with s_t
  Var c = weighted_sum(a, h);
  return {s, attentional_state(c, s, W_c)};
}

}  // namespace heed::student
