// Chapter 08's exercises: Luong's general score, the scaled dot product, and Luong's attentional
// state. Built from autograd ops. What each must do: README.md in this folder.
#pragma once

#include <utility>

#include "autograd/functions.h"
#include "exercises/not_done.h"
#include "nn/rnn_cell.h"

namespace heed::student {

// e (B, S): e[b, i] = s[b]^T W h[b, i], for the decoder state s (B, Dq), the encoder states
// h (B, S, Dk) and W (Dq, Dk). No bias.
Var general_scores(const Var& s, const Var& h, const Var& W);

// e (B, S): e[b, i] = s[b]^T h[b, i] / sqrt(D), for s (B, D) and h (B, S, D).
Var scaled_dot_scores(const Var& s, const Var& h);

// Luong's attentional state h~ (B, H) = tanh(W_c [c; s]), for the context c (B, H), the decoder
// state s (B, H) and W_c (H, 2H): the context comes first in the concatenation. No bias.
Var attentional_state(const Var& c, const Var& s, const Var& W_c);

// One step of Luong's decoder with input feeding (Luong et al. 2015, section 3.3): the previous
// attentional state is fed to the cell next to the embedded input, so that the decoder knows
// where it looked before.
//   s_t = cell([y; feed], s_prev)                the cell (a GRU) takes E + H inputs
//   e_i = s_t^T W h_i; a = masked softmax of e over mask; c = sum_i a_i h_i
//   h~_t = tanh(W_c [c; s_t])
// y (B, E), s_prev and feed (B, H), h (B, S, H), mask (B, S) (1 = real), W (H, H), W_c (H, 2H).
// Returns {s_t, h~_t}; h~_t is the next step's feed.
std::pair<Var, Var> feeding_step(const Cell& cell, const Var& y, const Var& s_prev, const Var& feed, const Var& h,
                                 const Tensor& mask, const Var& W, const Var& W_c);

}  // namespace heed::student
