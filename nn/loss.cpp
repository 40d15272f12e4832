// mean squared error (the softmax losses are in autograd/softmax.cpp).
#include "nn/loss.h"

#include <cmath>

namespace heed {

Var mse(const Var& input, const Var& target) {
  const Tensor &a = input.value(), &b = target.value();
  if (a.shape() != b.shape())
    throw Error("mse: input " + shape_str(a.shape()) + " and target " + shape_str(b.shape()) + " differ in shape");
  if (a.numel() == 0) throw Error("mse: input " + shape_str(a.shape()) + " is empty");
  Tensor diff = sub(a, b);  // saved: both derivatives are multiples of it
  real total = 0;
  for (int64_t i = 0; i < diff.numel(); ++i) total = std::fma(diff[i], diff[i], total);
  real scale = 1 / static_cast<real>(diff.numel());
  return make_var(Tensor::scalar(total * scale), "mse", {input, target}, [diff, scale](Backward& g) {
    // da += 2 (a - b) dy / n;  db += -2 (a - b) dy / n
    Tensor d = mul(diff, 2 * g.grad()[0] * scale);
    if (g.wants(1)) g.add(1, neg(d));
    if (g.wants(0)) g.add(0, std::move(d));
  });
}

}  // namespace heed
