// Differentiable matrix products on Vars (autograd/matmul.cpp), 2-D or batched 3-D, and linear.
#pragma once

#include "autograd/var.h"

namespace heed {

Var matmul(const Var& a, const Var& b);     // A B
Var matmul_nt(const Var& a, const Var& b);  // A B^T
Var matmul_tn(const Var& a, const Var& b);  // A^T B
// x W^T + b for x (..., in), W (out, in), b (out) or an undefined Var for none: a Linear layer's
// product and bias as one node (PyTorch's addmm), (..., in) -> (..., out). x's leading axes are
// read in place as N rows, with no reshaped copy. For x (N, in), the same numbers as
// matmul_nt(x, W) + b, to the last bit, with one node and no broadcast in between.
Var linear(const Var& x, const Var& weight, const Var& bias);

}  // namespace heed
