// Chapter 08's exercises: Luong's general score, the scaled dot product, and Luong's attentional
// state. Built from autograd ops. What each must do: README.md in this folder.
#pragma once

#include "autograd/functions.h"
#include "exercises/not_done.h"

namespace heed::student {

// e (B, S): e[b, i] = s[b]^T W h[b, i], for the decoder state s (B, Dq), the encoder states
// h (B, S, Dk) and W (Dq, Dk). No bias.
Var general_scores(const Var& s, const Var& h, const Var& W);

// e (B, S): e[b, i] = s[b]^T h[b, i] / sqrt(D), for s (B, D) and h (B, S, D).
Var scaled_dot_scores(const Var& s, const Var& h);

// Luong's attentional state h~ (B, H) = tanh(W_c [c; s]), for the context c (B, H), the decoder
// state s (B, H) and W_c (H, 2H): the context comes first in the concatenation. No bias.
Var attentional_state(const Var& c, const Var& s, const Var& W_c);

}  // namespace heed::student
