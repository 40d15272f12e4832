// The softmax family's one kernel, softmax_row, and the tensor functions built on it. Every
// softmax in heed runs through softmax_row: the tensor softmax and log_softmax below, autograd's
// (autograd/softmax.cpp), attention's masked softmax and the fused cross-entropy.
#include <cmath>
#include <limits>

#include "tensor/ops.h"
#include "tensor/math.h"
#include "tensor/threads.h"

namespace heed {

// softmax(x)_i = exp(x_i - m) / sum_j exp(x_j - m) with m = max_j x_j, so no exp overflows.
SoftmaxRow softmax_row(const real* x, real* y, int64_t n, int64_t stride, const real* keep, bool log_space) {
  auto kept = [&](int64_t i) { return keep == nullptr || keep[i * stride] != 0; };
  real m = -std::numeric_limits<real>::infinity();
  for (int64_t i = 0; i < n; ++i)
    if (kept(i)) m = x[i * stride] > m ? x[i * stride] : m;
  if (keep != nullptr && m == -std::numeric_limits<real>::infinity()) {
    for (int64_t i = 0; i < n; ++i) y[i * stride] = 0;  // nothing to attend to: all zeros, not NaN
    return {m, 0};
  }
  real s = 0;
  if (log_space) {
    for (int64_t i = 0; i < n; ++i) s += math::exp(x[i * stride] - m);
    // (x - m) - log(s), not x - (m + log(s)): x - m is exact near the maximum, and
    // m + log(s) would round log(s) to the spacing of m (1e-12 at m = 1e4).
    real log_s = math::log(s);
    for (int64_t i = 0; i < n; ++i) y[i * stride] = (x[i * stride] - m) - log_s;
    return {m, s};
  }
  for (int64_t i = 0; i < n; ++i) {
    real e = kept(i) ? math::exp(x[i * stride] - m) : 0;  // x_i is read before y_i is written
    if (kept(i)) s += e;
    y[i * stride] = e;
  }
  for (int64_t i = 0; i < n; ++i) y[i * stride] /= s;
  return {m, s};
}

namespace {

// Rows go to the thread pool (tensor/threads.h) in pieces of at least kRowsGrain values: each
// row is one softmax_row call on one thread, so the thread count never changes a bit.
constexpr int64_t kRowsGrain = 16384;

// softmax_row over every row along `axis` (x seen as [outer, n, inner]).
// Reference: the loop over (o, j) in order, one thread; tests/tensor/threads_test.cpp holds them equal.
Tensor softmax_along(const Tensor& x, int64_t axis, const Tensor* mask, bool log_space, const char* op) {
  axis = normalize_axis(axis, x.shape(), op);
  if (mask && mask->shape() != x.shape())
    throw Error(std::string(op) + ": mask " + shape_str(mask->shape()) + " must have the shape of x " +
                shape_str(x.shape()));
  int64_t outer, n, inner;
  split_at_axis(x.shape(), axis, outer, n, inner);
  Tensor y = Tensor::empty(x.shape());
  parallel_for(outer * inner, kRowsGrain / (n > 0 ? n : 1) + 1, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {  // row r = (o, j)
      const int64_t at = (r / inner) * n * inner + r % inner;
      softmax_row(x.data() + at, y.data() + at, n, inner, mask ? mask->data() + at : nullptr, log_space);
    }
  });
  return y;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t axis) { return softmax_along(x, axis, nullptr, false, "softmax"); }
Tensor log_softmax(const Tensor& x, int64_t axis) { return softmax_along(x, axis, nullptr, true, "log_softmax"); }
Tensor softmax(const Tensor& x, int64_t axis, const Tensor& mask) {
  return softmax_along(x, axis, &mask, false, "softmax");
}

}  // namespace heed
