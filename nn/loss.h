// Losses: cross_entropy and nll are the softmax family's (autograd/softmax.h, included here);
// mse and the label-smoothed cross-entropy are here. Each is one differentiable op returning a
// 0-d Var.
#pragma once

#include "autograd/softmax.h"

namespace heed {

// mean((input - target)^2) over all elements, as F.mse_loss. Shapes must be equal (no
// broadcasting) and non-empty. Both get gradients.
Var mse(const Var& input, const Var& target);

// Cross-entropy against smoothed targets (Vaswani et al. 2017, section 5.4; Szegedy et al. 2016):
// the target of row r is q = (1 - eps) onehot(t_r) + eps / V, spread over all V classes, so
//   loss_r = -sum_v q_v log softmax(x_r)_v = (1 - eps)(-log p_{r,t}) + (eps / V) sum_v (-log p_{r,v}),
// averaged over the rows whose target is not ignore_index -- F.cross_entropy(x, t,
// ignore_index=..., label_smoothing=eps), the same numbers. eps = 0 is cross_entropy (a test
// holds them equal). logits (N, V), targets (N). heed::Error for eps outside [0, 1] and for
// the targets cross_entropy refuses. All rows ignored: 0 with a zero gradient, as cross_entropy.
Var smoothed_cross_entropy(const Var& logits, const std::vector<int64_t>& targets, real eps,
                           int64_t ignore_index = -100);

}  // namespace heed
