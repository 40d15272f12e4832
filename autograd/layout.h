// Differentiable layout changes on Vars (autograd/layout.cpp): the numbers move, none changes.
#pragma once

#include <vector>

#include "autograd/var.h"

namespace heed {

Var transpose(const Var& x);  // swaps the last two axes
Var reshape(const Var& x, Shape shape);
Var concat(const std::vector<Var>& xs, int64_t axis);
Var stack(const std::vector<Var>& xs, int64_t axis);
Var slice(const Var& x, int64_t axis, int64_t start, int64_t stop);
Var index_select(const Var& x, const std::vector<int64_t>& index);

}  // namespace heed
