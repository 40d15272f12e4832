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
  int64_t in = in_features(), out = out_features();
  if (s.empty() || s.back() != in)
    throw Error("Linear: input " + shape_str(s) + " does not end in in_features " + std::to_string(in) +
                " (weight " + shape_str(weight.shape()) + ")");
  // Leading axes are folded into rows, so one matrix product serves (N, in) and (B, T, in).
  Shape out_shape = s;
  out_shape.back() = out;
  Var rows = s.size() == 2 ? x : reshape(x, {-1, in});  // (N, in)
  Var y = linear(rows, weight, bias);                   // (N, out) = x W^T + b, no transpose made
  return s.size() == 2 ? y : reshape(y, out_shape);
}

}  // namespace heed
