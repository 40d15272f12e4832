// Losses: cross_entropy and nll are the softmax family's (autograd/softmax.h, included here), and
// mse is here. Each is one differentiable op returning a 0-d Var.
#pragma once

#include "autograd/softmax.h"

namespace heed {

// mean((input - target)^2) over all elements, as F.mse_loss. Shapes must be equal (no
// broadcasting) and non-empty. Both get gradients.
Var mse(const Var& input, const Var& target);

}  // namespace heed
