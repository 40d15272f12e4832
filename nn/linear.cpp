#include "nn/linear.h"

#include "autograd/functions.h"
#include "nn/init.h"

namespace heed {

Linear::Linear(int64_t in, int64_t out, bool bias, Generator& gen) {
  weight = register_parameter("weight", linear_weight_init(out, in, gen));
  if (bias) this->bias = register_parameter("bias", linear_bias_init(out, in, gen));
}

Var Linear::forward(const Var& x) const {
  const Shape& s = x.shape();
  const int64_t in = in_features();
  if (s.empty() || s.back() != in)
    throw Error("Linear: input " + shape_str(s) + " does not end in in_features " + std::to_string(in) +
                " (weight " + shape_str(weight.shape()) + ")");
  return linear(x, weight, bias);  // (..., out) = x W^T + b: leading axes read in place, no transpose made
}

}  // namespace heed
