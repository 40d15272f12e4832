#include "nn/init.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace heed {

Tensor uniform_init(const Shape& shape, real bound, Generator& gen) {
  if (!(bound >= 0) || !std::isfinite(bound)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "uniform_init: bound %g must be finite and >= 0", bound);
    throw Error(buf);
  }
  return Tensor::uniform(shape, -bound, bound, gen);
}

void fan_in_fan_out(const Shape& shape, int64_t& fan_in, int64_t& fan_out, const char* op) {
  if (shape.size() < 2)
    throw Error(std::string(op) + ": fans need a weight of at least 2 axes, got " + shape_str(shape));
  int64_t receptive = 1;
  for (size_t k = 2; k < shape.size(); ++k) receptive *= shape[k];
  fan_in = shape[1] * receptive;
  fan_out = shape[0] * receptive;
}

Tensor kaiming_uniform(const Shape& shape, real a, Generator& gen) {
  int64_t fan_in, fan_out;
  fan_in_fan_out(shape, fan_in, fan_out, "kaiming_uniform");
  if (fan_in <= 0) throw Error("kaiming_uniform: fan_in of " + shape_str(shape) + " is 0");
  real gain = std::sqrt(2 / std::fma(a, a, 1));  // leaky_relu's gain with slope a
  return uniform_init(shape, gain * std::sqrt(3 / static_cast<real>(fan_in)), gen);
}

Tensor xavier_uniform(const Shape& shape, Generator& gen, real gain) {
  int64_t fan_in, fan_out;
  fan_in_fan_out(shape, fan_in, fan_out, "xavier_uniform");
  if (fan_in + fan_out <= 0) throw Error("xavier_uniform: fans of " + shape_str(shape) + " are 0");
  return uniform_init(shape, gain * std::sqrt(6 / static_cast<real>(fan_in + fan_out)), gen);
}

namespace {

real linear_bound(int64_t out, int64_t in, const char* op) {
  if (in <= 0 || out <= 0)
    throw Error(std::string(op) + ": in_features " + std::to_string(in) + " and out_features " +
                std::to_string(out) + " must be positive");
  return 1 / std::sqrt(static_cast<real>(in));
}

}  // namespace

Tensor linear_weight_init(int64_t out, int64_t in, Generator& gen) {
  return uniform_init({out, in}, linear_bound(out, in, "linear_weight_init"), gen);
}

Tensor linear_bias_init(int64_t out, int64_t in, Generator& gen) {
  return uniform_init({out}, linear_bound(out, in, "linear_bias_init"), gen);
}

Tensor embedding_init(int64_t num, int64_t dim, Generator& gen) {
  if (num <= 0 || dim <= 0)
    throw Error("embedding_init: num " + std::to_string(num) + " and dim " + std::to_string(dim) +
                " must be positive");
  return Tensor::normal({num, dim}, 0, 1, gen);
}

}  // namespace heed
