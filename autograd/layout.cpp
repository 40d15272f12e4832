// Layout changes: transpose, reshape, concat, stack, slice and index_select, each forward (a
// tensor/layout.cpp kernel) with its backward right below, the derivative as a comment. A layout
// op moves numbers without arithmetic, so its backward moves the gradient back the same way.
// Reference: each forward is one kernel call; tests/autograd/ch03_gradcheck_test.cpp checks every backward.
#include "autograd/layout.h"

namespace heed {

Var transpose(const Var& x) {
  return make_var(transpose(x.value()), "transpose", {x}, [](Backward& g) {
    g.add(0, transpose(g.grad()));  // dx += dy^T
  });
}

Var reshape(const Var& x, Shape shape) {
  Shape s = x.shape();
  return make_var(reshape(x.value(), std::move(shape)), "reshape", {x}, [s](Backward& g) {
    Tensor d = g.take_grad();  // dx += dy, in x's shape: the same numbers, no copy
    d.reshape_inplace(s);
    g.add(0, std::move(d));
  });
}

Var concat(const std::vector<Var>& xs, int64_t axis) {
  std::vector<const Tensor*> values;
  values.reserve(xs.size());
  for (const Var& x : xs) values.push_back(&x.value());
  Tensor y = concat_ptrs(values, axis);
  axis = normalize_axis(axis, y.shape(), "concat");
  std::vector<int64_t> sizes;
  for (const Tensor* v : values) sizes.push_back(v->shape()[axis]);
  return make_var(std::move(y), "concat", xs, [axis, sizes](Backward& g) {
    int64_t at = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      // dx_i += its own span of dy
      if (g.wants(i)) g.add(i, slice(g.grad(), axis, at, at + sizes[i]));
      at += sizes[i];
    }
  });
}

Var stack(const std::vector<Var>& xs, int64_t axis) {
  std::vector<const Tensor*> values;
  values.reserve(xs.size());
  for (const Var& x : xs) values.push_back(&x.value());
  Tensor y = stack_ptrs(values, axis);  // checks the shapes and the axis
  axis = axis < 0 ? axis + y.dim() : axis;
  const Shape s = xs[0].shape();
  return make_var(std::move(y), "stack", xs, [s, axis](Backward& g) {
    const int64_t n = g.grad().shape()[axis];
    int64_t outer = 1, inner = 1;  // the input's axes before and from `axis`
    for (int64_t k = 0; k < axis; ++k) outer *= s[k];
    for (int64_t k = axis; k < static_cast<int64_t>(s.size()); ++k) inner *= s[k];
    for (int64_t i = 0; i < n; ++i) {
      if (!g.wants(i)) continue;
      Tensor d = Tensor::empty(s);  // dx_i += slot i of dy
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t k = 0; k < inner; ++k) d[o * inner + k] = g.grad()[(o * n + i) * inner + k];
      g.add(i, std::move(d));
    }
  });
}

Var slice(const Var& x, int64_t axis, int64_t start, int64_t stop) {
  Shape s = x.shape();
  axis = normalize_axis(axis, x.shape(), "slice");
  return make_var(slice(x.value(), axis, start, stop), "slice", {x}, [s, axis, start, stop](Backward& g) {
    // dx[start:stop] += dy, added in place: an encoder slices one step of S at a time, and a
    // full-size gradient per slice would cost O(S^2)
    int64_t outer, n, inner;
    split_at_axis(s, axis, outer, n, inner);
    Tensor& d = g.buffer(0);
    const Tensor& dy = g.grad();
    int64_t m = stop - start;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < m * inner; ++k) d[(o * n + start) * inner + k] += dy[o * m * inner + k];
  });
}

Var index_select(const Var& x, const std::vector<int64_t>& index) {
  Shape s = x.shape();
  return make_var(index_select(x.value(), index), "index_select", {x}, [s, index](Backward& g) {
    // dx[index[r]] += dy[r]; a repeated index accumulates
    Tensor d = Tensor::zeros(s);
    int64_t width = s[0] ? d.numel() / s[0] : 0;
    for (size_t r = 0; r < index.size(); ++r)
      for (int64_t k = 0; k < width; ++k) d[index[r] * width + k] += g.grad()[r * width + k];
    g.add(0, std::move(d));
  });
}

}  // namespace heed
