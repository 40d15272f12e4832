// LayerNorm: each row (the last axis, D features) normalised to mean 0 and variance 1, then
// scaled and shifted by a learned weight and bias, as torch.nn.LayerNorm(D):
//   y = (x - mean(x)) / sqrt(var(x) + eps) * weight + bias
// with the biased variance (divided by D, not D - 1) and eps = 1e-5, PyTorch's choices. It
// depends on the row alone, so a row of padding never changes a real row.
#pragma once

#include <cstdint>

#include "nn/module.h"

namespace heed {

// The op, composed from autograd's mean, sub, mul, sqrt and div: x (..., D), weight (D),
// bias (D) -> (..., D). Shape mistakes throw heed::Error naming layer_norm and the shapes.
Var layer_norm(const Var& x, const Var& weight, const Var& bias, real eps = 1e-5);

class LayerNorm : public Module {
 public:
  // weight starts at 1, bias at 0 (PyTorch). REQUIRES: dim >= 1.
  explicit LayerNorm(int64_t dim, real eps = 1e-5);

  Var forward(const Var& x) const { return layer_norm(x, weight, bias, eps_); }  // (..., D) -> (..., D)

  int64_t dim() const { return weight.shape()[0]; }
  real eps() const { return eps_; }

  Var weight;  // (D), registered as "weight"
  Var bias;    // (D), registered as "bias"

 private:
  real eps_;
};

}  // namespace heed
