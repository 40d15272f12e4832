// Chapter 04's solutions.
#include <cmath>

#include "exercises/04_classifiers/exercises.h"

namespace heed::student {

Tensor softmax_backward(const Tensor& y, const Tensor& dy) {
  // dx_j = y_j (dy_j - sum_k y_k dy_k)
  return mul(y, sub(dy, sum(mul(y, dy), 1, true)));
}

real cross_entropy_value(const Tensor& logits, const std::vector<int64_t>& targets, int64_t ignore_index) {
  const int64_t N = logits.shape()[0], V = logits.shape()[1];
  real total = 0;
  int64_t kept = 0;
  for (int64_t r = 0; r < N; ++r) {
    if (targets[r] == ignore_index) continue;
    const real* row = logits.data() + r * V;
    real m = row[0];
    for (int64_t j = 1; j < V; ++j) m = std::max(m, row[j]);
    real s = 0;
    for (int64_t j = 0; j < V; ++j) s += std::exp(row[j] - m);
    total += m + std::log(s) - row[targets[r]];
    ++kept;
  }
  return kept ? total / kept : 0;
}

Tensor cross_entropy_backward(const Tensor& logits, const std::vector<int64_t>& targets, int64_t ignore_index) {
  const int64_t N = logits.shape()[0], V = logits.shape()[1];
  int64_t kept = 0;
  for (int64_t r = 0; r < N; ++r) kept += targets[r] != ignore_index;
  Tensor p = softmax(logits, 1);
  for (int64_t r = 0; r < N; ++r) {
    for (int64_t j = 0; j < V; ++j) {
      real& d = p[r * V + j];
      d = targets[r] == ignore_index ? 0 : (d - (j == targets[r])) / kept;
    }
  }
  return p;
}

Var linear_forward(const Var& x, const Var& W, const Var& b) { return matmul_nt(x, W) + b; }

Tensor embedding_backward(const std::vector<int64_t>& ids, const Tensor& dy, int64_t V, int64_t padding_idx) {
  const int64_t E = dy.shape()[1];
  Tensor dW = Tensor::zeros({V, E});
  for (size_t r = 0; r < ids.size(); ++r) {
    if (ids[r] == padding_idx) continue;
    for (int64_t e = 0; e < E; ++e) dW[ids[r] * E + e] += dy[static_cast<int64_t>(r) * E + e];
  }
  return dW;
}

void adam_step(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, int64_t t, real lr, real b1, real b2, real eps) {
  const real c1 = 1 - std::pow(b1, static_cast<real>(t)), c2 = 1 - std::pow(b2, static_cast<real>(t));
  for (int64_t i = 0; i < p.numel(); ++i) {
    m[i] = b1 * m[i] + (1 - b1) * g[i];
    v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
    p[i] -= lr * (m[i] / c1) / (std::sqrt(v[i] / c2) + eps);
  }
}

}  // namespace heed::student
