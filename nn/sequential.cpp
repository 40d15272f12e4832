#include "nn/sequential.h"

namespace heed {

Var Sequential::forward(const Var& x) const {
  Var y = x;
  for (const auto& step : steps_) y = step(y);
  return y;
}

}  // namespace heed
