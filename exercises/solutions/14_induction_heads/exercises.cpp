// Chapter 14's solutions.
#include <algorithm>
#include <string>

#include "exercises/14_induction_heads/exercises.h"
#include "tensor/math.h"

namespace heed::student {

Tensor causal_mask(const std::vector<int64_t>& lengths, int64_t T) {
  if (T < 1) throw Error("causal_mask: T " + std::to_string(T) + " must be at least 1");
  const int64_t B = static_cast<int64_t>(lengths.size());
  Tensor mask = Tensor::zeros({B, T, T});  // [b, query i, key j]
  for (int64_t b = 0; b < B; ++b) {
    const int64_t len = lengths[static_cast<size_t>(b)];
    if (len < 1 || len > T)
      throw Error("causal_mask: length " + std::to_string(len) + " of sequence " + std::to_string(b) +
                  " is not in 1 .. T = " + std::to_string(T));
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j <= i && j < len; ++j) mask[(b * T + i) * T + j] = 1;  // up to itself, real keys only
  }
  return mask;
}

real induction_score(const Tensor& weights, int64_t n) {
  const Shape& s = weights.shape();
  if (s.size() != 2 || s[0] != s[1])
    throw Error("induction_score: weights " + shape_str(s) + " are not one head's (T, T)");
  const int64_t T = s[0];
  if (n < 1 || 2 * n >= T)
    throw Error("induction_score: a segment of " + std::to_string(n) + " symbols does not fit " + std::to_string(T) +
                " positions (<bos> and two copies need 2n + 1)");
  real sum = 0;
  for (int64_t t = n + 1; t <= 2 * n; ++t) sum += weights[t * T + (t - n + 1)];  // s_k at n+k looks at k+1
  return sum / static_cast<real>(n);
}

int64_t sample_token(const Tensor& logits, real temperature, int64_t top_k, real u) {
  if (!(temperature >= 0)) throw Error("sample_token: temperature " + std::to_string(temperature) + " must be >= 0");
  if (top_k < 0) throw Error("sample_token: top_k " + std::to_string(top_k) + " must be >= 0");
  const int64_t V = logits.numel();
  std::vector<int64_t> order(static_cast<size_t>(V));
  for (int64_t i = 0; i < V; ++i) order[static_cast<size_t>(i)] = i;
  // Most probable first; a stable sort keeps equal logits in id order, the lower id first.
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
  if (temperature == 0) return order[0];
  const int64_t k = top_k > 0 ? std::min(top_k, V) : V;
  std::vector<real> p(static_cast<size_t>(k));
  real total = 0;
  for (int64_t i = 0; i < k; ++i) {  // shifted by the largest logit: exp never overflows, the first is 1
    p[static_cast<size_t>(i)] = math::exp((logits[order[static_cast<size_t>(i)]] - logits[order[0]]) / temperature);
    total += p[static_cast<size_t>(i)];
  }
  const real target = u * total;  // in [0, total)
  real cumulative = 0;
  for (int64_t i = 0; i < k; ++i) {
    cumulative += p[static_cast<size_t>(i)];
    if (target < cumulative) return order[static_cast<size_t>(i)];
  }
  return order[static_cast<size_t>(k - 1)];  // u * total rounded up to total: the last kept token
}

}  // namespace heed::student
