// Differentiable reductions on Vars (autograd/reduce.cpp). `axis` may be negative; keepdim keeps
// the reduced axis as size 1.
#pragma once

#include "autograd/var.h"

namespace heed {

Var sum(const Var& x);
Var sum(const Var& x, int64_t axis, bool keepdim = false);
Var mean(const Var& x);
Var mean(const Var& x, int64_t axis, bool keepdim = false);
// The gradient goes to the first maximum when there are ties (as torch.max(x, dim)).
Var max(const Var& x);
Var max(const Var& x, int64_t axis, bool keepdim = false);

}  // namespace heed
