// Chapter 05: write these three functions, then run `make exercise-05`.
// Useful ops (autograd/functions.h): matmul_nt (x W^T), slice(v, axis, start, stop), sigmoid,
// tanh, reshape, where(cond, a, b), and +, -, * between Vars and with numbers.
#include "exercises/05_recurrent_cells/exercises.h"

namespace heed::student {

Var gru_step(const Var& x, const Var& h, const Var& W_ih, const Var& W_hh, const Var& b_ih, const Var& b_hh) {
  not_done("write gru_step: r, z, n from the two projections, then h' = (1 - z) n + z h");
}

std::pair<Var, Var> lstm_step(const Var& x, const Var& h, const Var& c, const Var& W_ih, const Var& W_hh,
                              const Var& b_ih, const Var& b_hh) {
  not_done("write lstm_step: the four gates (i, f, g, o), c' = f c + i g, h' = o tanh(c')");
}

Var last_state(const Cell& cell, const Var& x, const std::vector<int64_t>& lengths) {
  not_done("write last_state: step the cell over t, keeping the old state where t >= lengths[b]");
}

}  // namespace heed::student
