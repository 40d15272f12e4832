// The softmax family on Vars (autograd/softmax.cpp): softmax, optionally masked, log_softmax, and
// the losses built on them, each one differentiable op over the one kernel softmax_row
// (tensor/ops.h). Stable for logits of any finite size (the maximum is subtracted first).
#pragma once

#include <cstdint>
#include <vector>

#include "autograd/var.h"

namespace heed {

Var softmax(const Var& x, int64_t axis);
// softmax over the positions where mask (x's shape, a constant) is non-zero. Masked positions get
// exactly 0 and no gradient; a row with no valid position gives all zeros (never NaN).
Var softmax(const Var& x, int64_t axis, const Tensor& mask);
// The same for attention: scores (B, S), mask (B, S) -> weights (B, S).
Var masked_softmax(const Var& scores, const Tensor& mask);
Var log_softmax(const Var& x, int64_t axis);

// Losses, each one differentiable op returning a 0-d Var. Targets equal to ignore_index
// take no part: the mean runs over the kept rows only. When every target is ignored (or
// there are none) the loss is 0 with a zero gradient; PyTorch returns NaN there, and heed
// never hands out a NaN silently. A target outside [0, V) that is not ignore_index throws
// heed::Error naming its position, its value and V.

// -mean over kept rows r of log_softmax(logits)[r, targets[r]], as F.cross_entropy.
// logits (N, V), targets (N). One fused, stable op (the max is subtracted before exp):
// backward is dlogits[r] = (softmax(logits[r]) - onehot(targets[r])) * dy / kept, 0 for ignored rows.
Var cross_entropy(const Var& logits, const std::vector<int64_t>& targets, int64_t ignore_index = -100);

// -mean over kept rows r of log_probs[r, targets[r]], as F.nll_loss. log_probs (N, V), targets (N).
Var nll(const Var& log_probs, const std::vector<int64_t>& targets, int64_t ignore_index = -100);

}  // namespace heed
