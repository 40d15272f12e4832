// Chapter 04's solutions.
#include <cmath>

#include "exercises/04_classifiers/exercises.h"
#include "tensor/math.h"

namespace heed::student {

// dx_j = y_j (dy_j - sum_k y_k dy_k), one row at a time. mul(y, sub(dy, sum(mul(y, dy), 1, true)))
// is the same in tensor ops, but heed's own backward (autograd/softmax.cpp) sums the products with
// std::fma, one rounding for each product and sum; summed so here, your heed's bits equal heed's.
Tensor softmax_backward(const Tensor& y, const Tensor& dy) {
  const int64_t N = y.shape()[0], D = y.shape()[1];
  Tensor dx = Tensor::zeros({N, D});
  for (int64_t i = 0; i < N; ++i) {
    real dot = 0;  // sum_k y_k dy_k
    for (int64_t k = 0; k < D; ++k) dot = std::fma(dy[i * D + k], y[i * D + k], dot);
    for (int64_t j = 0; j < D; ++j) dx[i * D + j] = y[i * D + j] * (dy[i * D + j] - dot);
  }
  return dx;
}

// The loss and its gradient in the order heed's own cross_entropy (autograd/softmax.cpp) computes
// them: heed's exp and log (tensor/math.h) rather than the C library's, the sum of the exponentials
// from the left, the mean as a product with 1 / kept, and the gradient's target term subtracted
// after the scaling (heed scales by the gradient arriving from above too: it is 1 for a training's
// loss, so the two agree). The same mathematics in another order rounds differently in the last
// bits; in this order your heed's training losses equal heed's bit for bit.
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
    for (int64_t j = 0; j < V; ++j) s += math::exp(row[j] - m);
    total += m + math::log(s) - row[targets[r]];  // -log softmax = logsumexp - x_t
    ++kept;
  }
  const real scale = kept ? 1 / static_cast<real>(kept) : 0;
  return total * scale;
}

Tensor cross_entropy_backward(const Tensor& logits, const std::vector<int64_t>& targets, int64_t ignore_index) {
  const int64_t N = logits.shape()[0], V = logits.shape()[1];
  int64_t kept = 0;
  for (int64_t r = 0; r < N; ++r) kept += targets[r] != ignore_index;
  const real scale = kept ? 1 / static_cast<real>(kept) : 0;
  Tensor p = softmax(logits, 1);
  for (int64_t r = 0; r < N; ++r) {
    for (int64_t j = 0; j < V; ++j) {
      real& d = p[r * V + j];
      if (targets[r] == ignore_index) {
        d = 0;
      } else {
        d *= scale;                       // softmax / kept
        if (j == targets[r]) d -= scale;  // minus onehot / kept
      }
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

// Adam in the order heed's own step (nn/optim.cpp) computes it: the corrections folded into a step
// size lr / (1 - b1^t) and a divisor sqrt(1 - b2^t), beta^t by heed's pow, and each update fused
// with std::fma (one rounding for a product and a sum). Written as m = b1 m + (1 - b1) g with two
// roundings it is the same mathematics, but its last bits differ from heed's, and over thousands
// of steps the weights drift apart; in this order your heed's weights equal heed's bit for bit.
void adam_step(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, int64_t t, real lr, real b1, real b2, real eps) {
  const real step_size = lr / (1 - math::pow(b1, static_cast<real>(t)));      // lr / (1 - b1^t)
  const real correction2 = std::sqrt(1 - math::pow(b2, static_cast<real>(t)));  // sqrt(1 - b2^t)
  for (int64_t i = 0; i < p.numel(); ++i) {
    m[i] = std::fma(b1, m[i], (1 - b1) * g[i]);         // m = b1 m + (1 - b1) g
    v[i] = std::fma(b2, v[i], (1 - b2) * g[i] * g[i]);  // v = b2 v + (1 - b2) g^2
    const real denom = std::sqrt(v[i]) / correction2 + eps;  // sqrt(v / (1 - b2^t)) + eps
    p[i] = std::fma(-step_size, m[i] / denom, p[i]);          // p -= lr m_hat / denom
  }
}

}  // namespace heed::student
