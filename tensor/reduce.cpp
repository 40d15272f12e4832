// Reductions over all elements or one axis (softmax, built on the max and the sum, is tensor/softmax.cpp).
// A tensor is viewed as [outer, n, inner] around the axis; n is the reduced size.
#include <cmath>
#include <limits>

#include "tensor/ops.h"
#include "tensor/threads.h"

namespace heed {

int64_t normalize_axis(int64_t axis, int64_t dim, const char* op) {
  if (axis < -dim || axis >= dim)
    throw Error(std::string(op) + ": axis " + std::to_string(axis) + " out of range for a " +
                std::to_string(dim) + "-d tensor");
  return axis < 0 ? axis + dim : axis;
}

int64_t normalize_axis(int64_t axis, const Shape& shape, const char* op) {
  int64_t dim = static_cast<int64_t>(shape.size());
  if (axis < -dim || axis >= dim)
    throw Error(std::string(op) + ": axis " + std::to_string(axis) + " out of range for shape " + shape_str(shape));
  return axis < 0 ? axis + dim : axis;
}

void split_at_axis(const Shape& shape, int64_t axis, int64_t& outer, int64_t& n, int64_t& inner) {
  outer = inner = 1;
  for (int64_t k = 0; k < axis; ++k) outer *= shape[k];
  n = shape[axis];
  for (size_t k = axis + 1; k < shape.size(); ++k) inner *= shape[k];
}

namespace {

Shape reduced_shape(const Shape& s, int64_t axis, bool keepdim) {
  Shape out = s;
  if (keepdim) out[axis] = 1;
  else out.erase(out.begin() + axis);
  return out;
}

// acc = init; acc = step(acc, x, i) along the axis; y = finish(acc, n). Each output's sum runs
// on one thread in ascending i; outputs go to the thread pool (tensor/threads.h) in pieces of at
// least 16384 values read, so the thread count never changes a bit (tests/tensor/threads_test.cpp).
template <class Step, class Finish>
Tensor reduce_axis(const Tensor& x, int64_t axis, bool keepdim, real init, Step step, Finish finish,
                   const char* op) {
  axis = normalize_axis(axis, x.shape(), op);
  int64_t outer, n, inner;
  split_at_axis(x.shape(), axis, outer, n, inner);
  if (n == 0 && std::string(op) != "sum")
    throw Error(std::string(op) + ": cannot reduce an empty axis of shape " + shape_str(x.shape()));
  Tensor y = Tensor::empty(reduced_shape(x.shape(), axis, keepdim));
  const real* px = x.data();
  real* py = y.data();
  parallel_for(outer * inner, 16384 / (n > 0 ? n : 1) + 1, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {  // output r = (o, j)
      const int64_t o = r / inner, j = r % inner;
      real acc = init;
      for (int64_t i = 0; i < n; ++i) acc = step(acc, px[(o * n + i) * inner + j], i);
      py[r] = finish(acc, n);
    }
  });
  return y;
}

}  // namespace

Tensor sum(const Tensor& x) {
  real s = 0;
  for (real v : x.values()) s += v;
  return Tensor::scalar(s);
}

Tensor sum(const Tensor& x, int64_t axis, bool keepdim) {
  return reduce_axis(
      x, axis, keepdim, 0, [](real acc, real v, int64_t) { return acc + v; },
      [](real acc, int64_t) { return acc; }, "sum");
}

Tensor mean(const Tensor& x) {
  if (x.numel() == 0) throw Error("mean: tensor of shape " + shape_str(x.shape()) + " is empty");
  return Tensor::scalar(sum(x).item() / static_cast<real>(x.numel()));
}

Tensor mean(const Tensor& x, int64_t axis, bool keepdim) {
  return reduce_axis(
      x, axis, keepdim, 0, [](real acc, real v, int64_t) { return acc + v; },
      [](real acc, int64_t n) { return acc / static_cast<real>(n); }, "mean");
}

Tensor max(const Tensor& x) {
  if (x.numel() == 0) throw Error("max: tensor of shape " + shape_str(x.shape()) + " is empty");
  real m = x[0];
  for (real v : x.values()) m = v > m ? v : m;
  return Tensor::scalar(m);
}

Tensor max(const Tensor& x, int64_t axis, bool keepdim) {
  return reduce_axis(
      x, axis, keepdim, -std::numeric_limits<real>::infinity(),
      [](real acc, real v, int64_t) { return v > acc ? v : acc; }, [](real acc, int64_t) { return acc; },
      "max");
}

int64_t argmax_index(const Tensor& x) {
  if (x.numel() == 0) throw Error("argmax: tensor of shape " + shape_str(x.shape()) + " is empty");
  int64_t best = 0;
  for (int64_t i = 1; i < x.numel(); ++i)
    if (x[i] > x[best]) best = i;
  return best;
}

std::vector<int64_t> argmax_indices(const Tensor& x, int64_t axis) {
  axis = normalize_axis(axis, x.shape(), "argmax");
  int64_t outer, n, inner;
  split_at_axis(x.shape(), axis, outer, n, inner);
  if (n == 0) throw Error("argmax: cannot reduce an empty axis of shape " + shape_str(x.shape()));
  std::vector<int64_t> at(outer * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      int64_t best = 0;
      for (int64_t i = 1; i < n; ++i)
        if (x[(o * n + i) * inner + j] > x[(o * n + best) * inner + j]) best = i;
      at[o * inner + j] = best;
    }
  return at;
}

Tensor argmax(const Tensor& x) { return Tensor::scalar(static_cast<real>(argmax_index(x))); }

Tensor argmax(const Tensor& x, int64_t axis, bool keepdim) {
  const std::vector<int64_t> at = argmax_indices(x, axis);
  Tensor y = Tensor::empty(reduced_shape(x.shape(), normalize_axis(axis, x.shape(), "argmax"), keepdim));
  for (size_t i = 0; i < at.size(); ++i) y[static_cast<int64_t>(i)] = static_cast<real>(at[i]);
  return y;
}

}  // namespace heed
