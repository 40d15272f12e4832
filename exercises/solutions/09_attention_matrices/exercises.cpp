// Chapter 09's solutions.
#include <cmath>

#include "exercises/09_attention_matrices/exercises.h"

namespace heed::student {

std::vector<int64_t> mirror_offsets(const Tensor& weights, int64_t L) {
  const int64_t S = weights.shape()[1];
  std::vector<int64_t> offsets;
  for (int64_t t = 0; t < L; ++t) {
    int64_t best = 0;
    for (int64_t i = 1; i < S; ++i)
      if (weights[t * S + i] > weights[t * S + best]) best = i;  // strictly greater: the first maximum
    offsets.push_back(best - (L - 1 - t));
  }
  return offsets;
}

Tensor row_entropy(const Tensor& weights) {
  const int64_t T = weights.shape()[0], S = weights.shape()[1];
  Tensor h = Tensor::zeros({T});
  for (int64_t t = 0; t < T; ++t)
    for (int64_t i = 0; i < S; ++i) {
      const real w = weights[t * S + i];
      if (w > 0) h[t] -= w * std::log(w);
    }
  return h;
}

}  // namespace heed::student
