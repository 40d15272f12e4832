// Chapter 10's exercises: the gradient-norm clipping that keeps long unrolled graphs stable, and
// the measurement of how much gradient reaches each source position. What each must do:
// README.md in this folder.
#pragma once

#include <vector>

#include "exercises/not_done.h"
#include "models/seq2seq.h"

namespace heed::student {

// Clips the gradients together, in place, as torch.nn.utils.clip_grad_norm_: with
// norm = sqrt(sum over every element of every tensor of g^2), when max_norm / (norm + 1e-6) < 1
// every gradient is multiplied by that factor. Returns the norm before clipping.
real clip_by_global_norm(std::vector<Tensor>& grads, real max_norm);

// For a batch of ONE sequence: entry i is ||d loss_t / d h_i||, where loss_t is the
// cross-entropy of output step t alone (teacher forced, 0-based) and h_i the encoder's state
// after source position i, as model.start(batch, &steps) hands them out (S Vars of (1, H)).
std::vector<real> gradient_to_source(const Seq2Seq& model, const Batch& batch, int64_t t);

}  // namespace heed::student
