// Chapter 05's exercises: one GRU step and one LSTM step from their equations (PyTorch's, gate
// order and biases included), and an encoder loop over a padded batch. Built from autograd ops,
// so backpropagation through time comes from the graph. What each must do: README.md here.
#pragma once

#include <utility>
#include <vector>

#include "autograd/functions.h"
#include "exercises/not_done.h"
#include "nn/rnn_cell.h"

namespace heed::student {

// One GRU step, torch.nn.GRUCell's equations, gates stacked (r, z, n) in the weights' rows:
//   r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
//   z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
//   n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
//   h' = (1 - z) * n + z * h
// x (B, I), h (B, H), W_ih (3H, I), W_hh (3H, H), b_ih (3H), b_hh (3H) -> h' (B, H).
Var gru_step(const Var& x, const Var& h, const Var& W_ih, const Var& W_hh, const Var& b_ih, const Var& b_hh);

// One LSTM step, torch.nn.LSTMCell's equations, gates stacked (i, f, g, o):
//   i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of (W_ih x + b_ih + W_hh h + b_hh)
//   c' = f * c + i * g;  h' = o * tanh(c')
// x (B, I), h, c (B, H), W_ih (4H, I), W_hh (4H, H), b_ih, b_hh (4H) -> {h', c'} (B, H) each.
std::pair<Var, Var> lstm_step(const Var& x, const Var& h, const Var& c, const Var& W_ih, const Var& W_hh,
                              const Var& b_ih, const Var& b_hh);

// Runs `cell` (a GRU or plain RNN: no memory c) over x (B, S, I) from a zero state, where row b
// has lengths[b] real positions followed by padding, and returns each row's state after its
// last real position: (B, H). Padding must not change a row's result.
Var last_state(const Cell& cell, const Var& x, const std::vector<int64_t>& lengths);

}  // namespace heed::student
