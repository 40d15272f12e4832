// Initialisers: PyTorch's default starting values for each layer, drawn from an explicit
// Generator in row-major order. The distributions match PyTorch's; the numbers do not (our
// generator is our own), but the same seed gives the same numbers on every machine.
#pragma once

#include "tensor/random.h"
#include "tensor/tensor.h"

namespace heed {

// U(-bound, bound). REQUIRES: bound >= 0 and finite.
Tensor uniform_init(const Shape& shape, real bound, Generator& gen);

// PyTorch's fans of a weight of at least 2 axes: fan_in = shape[1] * r, fan_out = shape[0] * r,
// r the product of the remaining axes (1 for a matrix).
void fan_in_fan_out(const Shape& shape, int64_t& fan_in, int64_t& fan_out, const char* op);

// kaiming_uniform_(w, a): U(-b, b), b = gain * sqrt(3 / fan_in), gain = sqrt(2 / (1 + a^2)).
Tensor kaiming_uniform(const Shape& shape, real a, Generator& gen);
// xavier_uniform_(w, gain): U(-b, b), b = gain * sqrt(6 / (fan_in + fan_out)).
Tensor xavier_uniform(const Shape& shape, Generator& gen, real gain = 1);

// nn.Linear: weight (out, in) and bias (out) both U(-1/sqrt(in), 1/sqrt(in)); for the weight this
// is what kaiming_uniform(a = sqrt(5)) amounts to. Draw the weight first, then the bias.
Tensor linear_weight_init(int64_t out, int64_t in, Generator& gen);
Tensor linear_bias_init(int64_t out, int64_t in, Generator& gen);

// nn.Embedding: weight (num, dim) from N(0, 1).
Tensor embedding_init(int64_t num, int64_t dim, Generator& gen);

}  // namespace heed
