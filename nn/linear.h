// Linear: y = x W^T + b, as torch.nn.Linear. weight is (out, in), bias (out) or absent.
// Both start from U(-1/sqrt(in), 1/sqrt(in)) (PyTorch's default), weight drawn first.
// The input may have any number of leading axes: (N, in) -> (N, out), (B, T, in) -> (B, T, out).
#pragma once

#include <cstdint>

#include "nn/module.h"
#include "tensor/random.h"

namespace heed {

class Linear : public Module {
 public:
  Linear(int64_t in, int64_t out, bool bias, Generator& gen);

  // x (..., in) -> (..., out). Throws heed::Error naming Linear and the shapes when x's last
  // axis is not in_features.
  Var forward(const Var& x) const;

  int64_t in_features() const { return weight.shape()[1]; }
  int64_t out_features() const { return weight.shape()[0]; }

  Var weight;  // (out, in), registered as "weight"
  Var bias;    // (out), registered as "bias"; an empty Var when bias = false
};

// A Linear whose weight is another module's (an output layer tied to the embedding table, Press
// and Wolf 2017) is registered as this: its bias alone, as "bias", so that the shared weight is
// registered once, where it lives.
class BiasOnly : public Module {
 public:
  explicit BiasOnly(const Var& bias) { register_parameter("bias", bias); }
};

}  // namespace heed
