// Layout changes: transpose, reshape, concat, stack, slice and index_select, each forward (a
// tensor/layout.cpp kernel) with its backward right below, the derivative as a comment. A layout
// op moves numbers without arithmetic, so its backward moves the gradient back the same way.
// Reference: each forward is one kernel call; tests/ch03_gradcheck_test.cpp checks every backward.
#include "autograd/layout.h"
#include "autograd/node_util.h"

namespace heed {

Var transpose(const Var& x) {
  return make_var(transpose(x.value()), "transpose", {x}, [](Node& self) {
    wants_grad(self, 0)->accumulate(transpose(self.grad));  // dx += dy^T
  });
}

Var reshape(const Var& x, Shape shape) {
  Shape s = x.shape();
  return make_var(reshape(x.value(), std::move(shape)), "reshape", {x}, [s](Node& self) {
    Tensor d = take_grad(self);  // dx += dy, in x's shape: the same numbers, no copy
    d.reshape_inplace(s);
    wants_grad(self, 0)->accumulate(std::move(d));
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
  return make_var(std::move(y), "concat", xs, [axis, sizes](Node& self) {
    int64_t at = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      // dx_i += its own span of dy
      if (Node* n = wants_grad(self, i)) n->accumulate(slice(self.grad, axis, at, at + sizes[i]));
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
  return make_var(std::move(y), "stack", xs, [s, axis](Node& self) {
    const int64_t n = self.grad.shape()[axis];
    int64_t outer = 1, inner = 1;  // the input's axes before and from `axis`
    for (int64_t k = 0; k < axis; ++k) outer *= s[k];
    for (int64_t k = axis; k < static_cast<int64_t>(s.size()); ++k) inner *= s[k];
    for (int64_t i = 0; i < n; ++i) {
      Node* node = wants_grad(self, i);
      if (!node) continue;
      Tensor d = Tensor::empty(s);  // dx_i += slot i of dy
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t k = 0; k < inner; ++k) d[o * inner + k] = self.grad[(o * n + i) * inner + k];
      node->accumulate(std::move(d));
    }
  });
}

Var slice(const Var& x, int64_t axis, int64_t start, int64_t stop) {
  Shape s = x.shape();
  axis = normalize_axis(axis, x.shape(), "slice");
  return make_var(slice(x.value(), axis, start, stop), "slice", {x}, [s, axis, start, stop](Node& self) {
    // dx[start:stop] += dy, added in place: an encoder slices one step of S at a time, and a
    // full-size gradient per slice would cost O(S^2)
    int64_t outer, n, inner;
    split_at_axis(s, axis, outer, n, inner);
    Tensor& d = grad_buffer(wants_grad(self, 0));
    int64_t m = stop - start;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < m * inner; ++k) d[(o * n + start) * inner + k] += self.grad[o * m * inner + k];
  });
}

Var index_select(const Var& x, const std::vector<int64_t>& index) {
  Shape s = x.shape();
  return make_var(index_select(x.value(), index), "index_select", {x}, [s, index](Node& self) {
    // dx[index[r]] += dy[r]; a repeated index accumulates
    Tensor d = Tensor::zeros(s);
    int64_t width = s[0] ? d.numel() / s[0] : 0;
    for (size_t r = 0; r < index.size(); ++r)
      for (int64_t k = 0; k < width; ++k) d[index[r] * width + k] += self.grad[r * width + k];
    wants_grad(self, 0)->accumulate(std::move(d));
  });
}

}  // namespace heed
