// mean squared error and the label-smoothed cross-entropy (the softmax losses are in
// autograd/softmax.cpp).
#include "nn/loss.h"

#include <cmath>
#include <string>

#include "tensor/math.h"

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

Var smoothed_cross_entropy(const Var& logits, const std::vector<int64_t>& targets, real eps, int64_t ignore_index) {
  const Tensor& x = logits.value();  // (N, V)
  if (!(eps >= 0 && eps <= 1))
    throw Error("smoothed_cross_entropy: eps is " + std::to_string(eps) + ", must be in [0, 1]");
  if (x.dim() != 2) throw Error("smoothed_cross_entropy: input " + shape_str(x.shape()) + " must be 2-D (N, V)");
  const int64_t N = x.size(0), V = x.size(1);
  if (static_cast<int64_t>(targets.size()) != N)
    throw Error("smoothed_cross_entropy: input " + shape_str(x.shape()) + " has " + std::to_string(N) +
                " rows but there are " + std::to_string(targets.size()) + " targets");
  int64_t kept = 0;
  for (int64_t r = 0; r < N; ++r) {
    const int64_t t = targets[r];
    if (t == ignore_index) continue;
    if (t < 0 || t >= V)
      throw Error("smoothed_cross_entropy: target[" + std::to_string(r) + "] = " + std::to_string(t) +
                  " is out of range for V = " + std::to_string(V) + " (ignore_index " + std::to_string(ignore_index) +
                  ")");
    ++kept;
  }
  const real spread = eps / static_cast<real>(V);  // the share of every class in q
  // Saved for backward: the softmax of each kept row (ignored rows stay 0).
  Tensor probs = Tensor::zeros({N, V});  // (N, V)
  real total = 0;
  for (int64_t r = 0; r < N; ++r) {
    if (targets[r] == ignore_index) continue;
    const real* row = x.data() + r * V;
    SoftmaxRow sm = softmax_row(row, probs.data() + r * V, V, 1, nullptr, false);  // p = softmax(row)
    const real lse = sm.max + math::log(sm.sum);  // -log p_v = lse - x_v
    real row_sum = 0;                              // sum_v x_v
    for (int64_t v = 0; v < V; ++v) row_sum += row[v];
    // (1 - eps)(lse - x_t) + (eps / V) sum_v (lse - x_v) = lse - (1 - eps) x_t - (eps / V) sum_v x_v
    total += lse - (1 - eps) * row[targets[r]] - spread * row_sum;
  }
  const real scale = kept ? 1 / static_cast<real>(kept) : 0;
  return make_var(Tensor::scalar(total * scale), "smoothed_cross_entropy", {logits},
                  [probs, targets, ignore_index, eps, spread, scale](Backward& g) {
                    // dx[r] += (softmax(x[r]) - q[r]) dy / kept, q[r] = (1 - eps) onehot(t[r]) + eps / V;
                    // ignored rows get 0
                    const real dy = g.grad()[0] * scale;
                    const int64_t V = probs.size(1);
                    Tensor d = Tensor::zeros(probs.shape());
                    for (size_t r = 0; r < targets.size(); ++r) {
                      if (targets[r] == ignore_index) continue;
                      const int64_t at = static_cast<int64_t>(r) * V;
                      for (int64_t v = 0; v < V; ++v) d[at + v] = (probs[at + v] - spread) * dy;
                      d[at + targets[r]] -= (1 - eps) * dy;
                    }
                    g.add(0, std::move(d));
                  });
}

}  // namespace heed
