// Chapter 05's solutions.
#include "exercises/05_recurrent_cells/exercises.h"

namespace heed::student {

Var gru_step(const Var& x, const Var& h, const Var& W_ih, const Var& W_hh, const Var& b_ih, const Var& b_hh) {
  const int64_t H = h.shape()[1];
  Var xp = matmul_nt(x, W_ih) + b_ih;  // (B, 3H)
  Var hp = matmul_nt(h, W_hh) + b_hh;  // (B, 3H)
  Var r = sigmoid(slice(xp, 1, 0, H) + slice(hp, 1, 0, H));
  Var z = sigmoid(slice(xp, 1, H, 2 * H) + slice(hp, 1, H, 2 * H));
  Var n = tanh(slice(xp, 1, 2 * H, 3 * H) + r * slice(hp, 1, 2 * H, 3 * H));
  return (1.0 - z) * n + z * h;
}

std::pair<Var, Var> lstm_step(const Var& x, const Var& h, const Var& c, const Var& W_ih, const Var& W_hh,
                              const Var& b_ih, const Var& b_hh) {
  const int64_t H = h.shape()[1];
  Var gates = matmul_nt(x, W_ih) + b_ih + matmul_nt(h, W_hh) + b_hh;  // (B, 4H)
  Var i = sigmoid(slice(gates, 1, 0, H));
  Var f = sigmoid(slice(gates, 1, H, 2 * H));
  Var g = tanh(slice(gates, 1, 2 * H, 3 * H));
  Var o = sigmoid(slice(gates, 1, 3 * H, 4 * H));
  Var c2 = f * c + i * g;
  return {o * tanh(c2), c2};
}

Var last_state(const Cell& cell, const Var& x, const std::vector<int64_t>& lengths) {
  const int64_t B = x.shape()[0], S = x.shape()[1], I = x.shape()[2];
  State s = cell.zero_state(B);
  for (int64_t t = 0; t < S; ++t) {
    Tensor real_here = Tensor::zeros({B, 1});  // 1 where position t is real
    for (int64_t b = 0; b < B; ++b) real_here[b] = t < lengths[b] ? 1 : 0;
    Var h = cell.step(reshape(slice(x, 1, t, t + 1), {B, I}), s).h;
    s.h = where(real_here, h, s.h);  // a padded step keeps the previous state
  }
  return s.h;
}

}  // namespace heed::student
