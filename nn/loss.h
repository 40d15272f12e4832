// Losses, each one differentiable op returning a 0-d Var. Targets equal to ignore_index
// take no part: the mean runs over the kept rows only. When every target is ignored (or
// there are none) the loss is 0 with a zero gradient; PyTorch returns NaN there, and heed
// never hands out a NaN silently. A target outside [0, V) that is not ignore_index throws
// heed::Error naming its position, its value and V.
#pragma once

#include <cstdint>
#include <vector>

#include "autograd/var.h"

namespace heed {

// -mean over kept rows r of log_softmax(logits)[r, targets[r]], as F.cross_entropy.
// logits (N, V), targets (N). One fused, stable op (the max is subtracted before exp):
// backward is dlogits[r] = (softmax(logits[r]) - onehot(targets[r])) * dy / kept, 0 for ignored rows.
Var cross_entropy(const Var& logits, const std::vector<int64_t>& targets, int64_t ignore_index = -100);

// -mean over kept rows r of log_probs[r, targets[r]], as F.nll_loss. log_probs (N, V), targets (N).
Var nll(const Var& log_probs, const std::vector<int64_t>& targets, int64_t ignore_index = -100);

// mean((input - target)^2) over all elements, as F.mse_loss. Shapes must be equal (no
// broadcasting) and non-empty. Both get gradients.
Var mse(const Var& input, const Var& target);

}  // namespace heed
