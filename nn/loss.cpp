#include "nn/loss.h"

#include <cmath>
#include <limits>
#include <string>

#include "autograd/node_util.h"

namespace heed {

namespace {

// Checks (N, V) scores against N targets; returns how many rows are kept.
int64_t check_targets(const Tensor& scores, const std::vector<int64_t>& targets, int64_t ignore_index,
                      const char* op) {
  if (scores.dim() != 2)
    throw Error(std::string(op) + ": input " + shape_str(scores.shape()) + " must be 2-D (N, V)");
  int64_t N = scores.size(0), V = scores.size(1);
  if (static_cast<int64_t>(targets.size()) != N)
    throw Error(std::string(op) + ": input " + shape_str(scores.shape()) + " has " + std::to_string(N) +
                " rows but there are " + std::to_string(targets.size()) + " targets");
  int64_t kept = 0;
  for (int64_t r = 0; r < N; ++r) {
    int64_t t = targets[r];
    if (t == ignore_index) continue;
    if (t < 0 || t >= V)
      throw Error(std::string(op) + ": target[" + std::to_string(r) + "] = " + std::to_string(t) +
                  " is out of range for V = " + std::to_string(V) + " (ignore_index " + std::to_string(ignore_index) +
                  ")");
    ++kept;
  }
  return kept;
}

}  // namespace

Var cross_entropy(const Var& logits, const std::vector<int64_t>& targets, int64_t ignore_index) {
  const Tensor& x = logits.value();  // (N, V)
  int64_t kept = check_targets(x, targets, ignore_index, "cross_entropy");
  int64_t N = x.size(0), V = x.size(1);
  // Saved for backward: the softmax of each kept row (ignored rows stay 0).
  Tensor probs = Tensor::zeros({N, V});  // (N, V)
  real total = 0;
  for (int64_t r = 0; r < N; ++r) {
    if (targets[r] == ignore_index) continue;
    const real* row = x.data() + r * V;
    real* p = probs.data() + r * V;
    real m = -std::numeric_limits<real>::infinity();
    for (int64_t j = 0; j < V; ++j) m = row[j] > m ? row[j] : m;
    real s = 0;
    for (int64_t j = 0; j < V; ++j) s += (p[j] = std::exp(row[j] - m));
    for (int64_t j = 0; j < V; ++j) p[j] /= s;
    total += m + std::log(s) - row[targets[r]];  // -log softmax = logsumexp - x_t
  }
  real scale = kept ? 1 / static_cast<real>(kept) : 0;
  return make_var(Tensor::scalar(total * scale), "cross_entropy", {logits},
                  [probs, targets, ignore_index, scale](Node& self) {
                    // dx[r] += (softmax(x[r]) - onehot(t[r])) * dy / kept; ignored rows get 0
                    Tensor d = mul(probs, self.grad[0] * scale);
                    int64_t V = probs.size(1);
                    for (size_t r = 0; r < targets.size(); ++r)
                      if (targets[r] != ignore_index)
                        d[r * V + targets[r]] = std::fma(-self.grad[0], scale, d[r * V + targets[r]]);
                    wants_grad(self, 0)->accumulate(std::move(d));
                  });
}

Var nll(const Var& log_probs, const std::vector<int64_t>& targets, int64_t ignore_index) {
  const Tensor& x = log_probs.value();  // (N, V)
  int64_t kept = check_targets(x, targets, ignore_index, "nll");
  int64_t N = x.size(0), V = x.size(1);
  real total = 0;
  for (int64_t r = 0; r < N; ++r)
    if (targets[r] != ignore_index) total -= x[r * V + targets[r]];
  real scale = kept ? 1 / static_cast<real>(kept) : 0;
  Shape s = x.shape();
  return make_var(Tensor::scalar(total * scale), "nll", {log_probs}, [s, targets, ignore_index, scale](Node& self) {
    // dx[r, t[r]] += -dy / kept; zero elsewhere and for ignored rows
    Tensor d = Tensor::zeros(s);
    for (size_t r = 0; r < targets.size(); ++r)
      if (targets[r] != ignore_index) d[r * s[1] + targets[r]] = -self.grad[0] * scale;
    wants_grad(self, 0)->accumulate(std::move(d));
  });
}

Var mse(const Var& input, const Var& target) {
  const Tensor &a = input.value(), &b = target.value();
  if (a.shape() != b.shape())
    throw Error("mse: input " + shape_str(a.shape()) + " and target " + shape_str(b.shape()) + " differ in shape");
  if (a.numel() == 0) throw Error("mse: input " + shape_str(a.shape()) + " is empty");
  Tensor diff = sub(a, b);  // saved: both derivatives are multiples of it
  real total = 0;
  for (int64_t i = 0; i < diff.numel(); ++i) total = std::fma(diff[i], diff[i], total);
  real scale = 1 / static_cast<real>(diff.numel());
  return make_var(Tensor::scalar(total * scale), "mse", {input, target}, [diff, scale](Node& self) {
    // da += 2 (a - b) dy / n;  db += -2 (a - b) dy / n
    Tensor d = mul(diff, 2 * self.grad[0] * scale);
    if (Node* n = wants_grad(self, 1)) n->accumulate(neg(d));
    if (Node* n = wants_grad(self, 0)) n->accumulate(std::move(d));
  });
}

}  // namespace heed
