// Fused recurrent steps: a whole RNN, GRU or LSTM step as one graph node, its backward written
// by hand right below the forward. They compute the equations of nn/rnn_cell.h, whose
// step_composed() (built from autograd ops, a dozen nodes a step) is the readable reference the
// tests hold these to. xp = x W_ih^T + b_ih (B, G*H); h, c (B, H); weight_hh (G*H, H); bias_hh (G*H).
// Each row of the batch is computed on its own, so a row's result never depends on the others.
// backward() reads h, c and weight_hh from the graph instead of copying them. REQUIRES: their values
// are not changed in place between the step and backward() (an optimiser updates after it).
#pragma once

#include "autograd/var.h"

namespace heed {

// h' = tanh(xp + h W_hh^T + b_hh): (B, H).
Var rnn_step(const Var& xp, const Var& h, const Var& weight_hh, const Var& bias_hh);

// The GRU's h' (gates r, z, n, as PyTorch): (B, H).
Var gru_step(const Var& xp, const Var& h, const Var& weight_hh, const Var& bias_hh);

// The LSTM's new state side by side, [h' | c']: (B, 2H). A node holds one value, so the two
// halves are taken apart with slice() (LSTMCell::step_projected does).
Var lstm_step(const Var& xp, const Var& h, const Var& c, const Var& weight_hh, const Var& bias_hh);

}  // namespace heed
