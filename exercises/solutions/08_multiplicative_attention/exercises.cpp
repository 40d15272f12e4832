// Chapter 08's solutions.
#include <cmath>

#include "exercises/08_multiplicative_attention/exercises.h"

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

}  // namespace heed::student
