#include "nn/layer_norm.h"

#include <string>

#include "autograd/functions.h"

namespace heed {

Var layer_norm(const Var& x, const Var& weight, const Var& bias, real eps) {
  const Shape& s = x.shape();
  if (s.empty() || weight.shape() != Shape{s.back()} || bias.shape() != Shape{s.back()})
    throw Error("layer_norm: input " + shape_str(s) + ", weight " + shape_str(weight.shape()) + " and bias " +
                shape_str(bias.shape()) + " must be (..., D), (D), (D)");
  if (!(eps > 0)) throw Error("layer_norm: eps is " + std::to_string(eps) + ", must be > 0");
  // Five lines, nine autograd ops (mean, -, *, mean, + eps, sqrt, /, *, +; each mean is a sum
  // and a scaling), so backward is the chain rule through them; the gradient of the mean reaches
  // every element of its row (d mean / d x_i = 1 / D).
  Var mu = mean(x, -1, true);            // (..., 1)
  Var xc = x - mu;                       // (..., D) centred
  Var var = mean(xc * xc, -1, true);     // (..., 1) biased: divided by D
  Var xhat = xc / sqrt(var + eps);       // (..., D) mean 0, variance 1 (less eps)
  return xhat * weight + bias;           // weight, bias broadcast over the rows
}

LayerNorm::LayerNorm(int64_t dim, real eps) : eps_(eps) {
  if (dim < 1) throw Error("LayerNorm: dim " + std::to_string(dim) + " must be positive");
  if (!(eps > 0)) throw Error("LayerNorm: eps is " + std::to_string(eps) + ", must be > 0");
  weight = register_parameter("weight", Tensor::ones({dim}));
  bias = register_parameter("bias", Tensor::zeros({dim}));
}

}  // namespace heed
