// Chapter 14: write these three functions, then run `make exercise-14`.
// Useful: Tensor::zeros({B, T, T}) and t[flat index] (tensor/tensor.h), weights.shape(), heed::Error
// for a bad input, std::stable_sort (<algorithm>) and std::exp (<cmath>).
#include "exercises/14_induction_heads/exercises.h"

namespace heed::student {

Tensor causal_mask(const std::vector<int64_t>& lengths, int64_t T) {
  not_done("write causal_mask: (B, T, T), 1 where key j <= query i and j < lengths[b], else 0");
}

real induction_score(const Tensor& weights, int64_t n) {
  not_done("write induction_score: the mean of weights[t, t-n+1] over t = n+1 .. 2n");
}

int64_t sample_token(const Tensor& logits, real temperature, int64_t top_k, real u) {
  not_done("write sample_token: sort most probable first, keep top_k, weigh by exp((l - max) / temperature), "
           "return the first whose running sum exceeds u times the total");
}

}  // namespace heed::student
