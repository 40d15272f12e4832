// The softmax family, read whole: softmax (optionally masked), log_softmax, and the losses built
// on them, cross-entropy (fused) and nll. Each forward runs the one softmax kernel, softmax_row
// (tensor/softmax.cpp), and has its backward right below, the derivative as a comment.
//   references  softmax and log_softmax: their gradchecks (tests/autograd/ch03_gradcheck_test.cpp);
//               masked_softmax: tests/nn/ch07_attention_test.cpp; cross_entropy is held to
//               nll(log_softmax(x)) and to PyTorch's numbers by tests/nn/ch04_layers_test.cpp
#include "autograd/softmax.h"

#include <cmath>
#include <limits>
#include <string>

#include "tensor/math.h"

namespace heed {

namespace {

// The backward of y = softmax(x) along an axis, x seen as [outer, n, inner]:
//   dx_i = y_i (dy_i - sum_j y_j dy_j)
// It needs only y. A position the mask dropped has y_i = 0, so its dx_i is 0 too.
Tensor softmax_backward(const Tensor& y, const Tensor& dy, int64_t axis) {
  int64_t outer, n, inner;
  split_at_axis(y.shape(), axis, outer, n, inner);
  Tensor dx = Tensor::empty(y.shape());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      const int64_t at = o * n * inner + j;
      real dot = 0;
      for (int64_t i = 0; i < n; ++i) dot = std::fma(dy[at + i * inner], y[at + i * inner], dot);
      for (int64_t i = 0; i < n; ++i) dx[at + i * inner] = y[at + i * inner] * (dy[at + i * inner] - dot);
    }
  return dx;
}

}  // namespace

Var softmax(const Var& x, int64_t axis) {
  axis = normalize_axis(axis, x.shape(), "softmax");
  return make_var(softmax(x.value(), axis), "softmax", {x}, [axis](Backward& g) {
    // dx = y * (dy - sum(dy * y)); the derivative needs only y, the node's own value
    g.add(0, softmax_backward(g.value(), g.grad(), axis));
  });
}

Var softmax(const Var& x, int64_t axis, const Tensor& mask) {
  axis = normalize_axis(axis, x.shape(), "softmax");
  return make_var(softmax(x.value(), axis, mask), "masked_softmax", {x}, [axis](Backward& g) {
    // dx = y * (dy - sum(dy * y)); a masked y is 0, so its dx is 0
    g.add(0, softmax_backward(g.value(), g.grad(), axis));
  });
}

Var masked_softmax(const Var& scores, const Tensor& mask) {
  if (scores.value().dim() != 2 || mask.shape() != scores.shape())
    throw Error("masked_softmax: scores " + shape_str(scores.shape()) + " and mask " + shape_str(mask.shape()) +
                " must both be (B, S)");
  return softmax(scores, 1, mask);
}

Var log_softmax(const Var& x, int64_t axis) {
  axis = normalize_axis(axis, x.shape(), "log_softmax");
  return make_var(log_softmax(x.value(), axis), "log_softmax", {x}, [axis](Backward& g) {
    // dx = dy - exp(y) * sum(dy); exp(y) is the softmax
    const Tensor& y = g.value();
    Tensor total = sum(g.grad(), axis, true);
    g.add(0, sub(g.grad(), mul(exp(y), total)));
  });
}

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
    SoftmaxRow sm = softmax_row(row, p, V, 1, nullptr, false);  // p = softmax(row)
    total += sm.max + math::log(sm.sum) - row[targets[r]];    // -log softmax = logsumexp - x_t
  }
  real scale = kept ? 1 / static_cast<real>(kept) : 0;
  return make_var(Tensor::scalar(total * scale), "cross_entropy", {logits},
                  [probs, targets, ignore_index, scale](Backward& g) {
                    // dx[r] += (softmax(x[r]) - onehot(t[r])) * dy / kept; ignored rows get 0
                    Tensor d = mul(probs, g.grad()[0] * scale);
                    int64_t V = probs.size(1);
                    for (size_t r = 0; r < targets.size(); ++r)
                      if (targets[r] != ignore_index)
                        d[r * V + targets[r]] = std::fma(-g.grad()[0], scale, d[r * V + targets[r]]);
                    g.add(0, std::move(d));
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
  return make_var(Tensor::scalar(total * scale), "nll", {log_probs}, [s, targets, ignore_index, scale](Backward& g) {
    // dx[r, t[r]] += -dy / kept; zero elsewhere and for ignored rows
    Tensor d = Tensor::zeros(s);
    for (size_t r = 0; r < targets.size(); ++r)
      if (targets[r] != ignore_index) d[r * s[1] + targets[r]] = -g.grad()[0] * scale;
    g.add(0, std::move(d));
  });
}

}  // namespace heed
