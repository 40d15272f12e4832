#include "nn/dropout.h"

#include <string>

#include "autograd/functions.h"

namespace heed {

Var dropout(const Var& x, real p, Generator& gen) {
  if (!(p >= 0 && p <= 1)) throw Error("dropout: p is " + std::to_string(p) + ", must be in [0, 1]");
  if (p == 0) return x;
  Tensor keep = Tensor::empty(x.shape());  // m / (1 - p): the surviving elements' factor, else 0
  const real scale = p < 1 ? 1 / (1 - p) : 0;
  for (int64_t i = 0; i < keep.numel(); ++i) keep[i] = gen.uniform() >= p ? scale : 0;
  return x * Var(keep);  // dx += dy * m / (1 - p), through mul's backward
}

}  // namespace heed
