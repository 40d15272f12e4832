// Layout changes: transpose, reshape, concat, stack, slice, index_select. Each writes a
// new contiguous tensor (there are no views).
#include <cstring>

#include "tensor/ops.h"

namespace heed {

Tensor transpose(const Tensor& x) {
  if (x.dim() < 2) throw Error("transpose: needs at least 2 axes, got shape " + shape_str(x.shape()));
  Shape s = x.shape();
  int64_t R = s[s.size() - 2], C = s[s.size() - 1], batch = R * C != 0 ? x.numel() / (R * C) : 0;
  std::swap(s[s.size() - 2], s[s.size() - 1]);
  Tensor y = Tensor::empty(s);
  if (batch == 0) return y;
  for (int64_t b = 0; b < batch; ++b) {
    const real* px = x.data() + b * R * C;
    real* py = y.data() + b * R * C;
    for (int64_t i = 0; i < R; ++i)
      for (int64_t j = 0; j < C; ++j) py[j * R + i] = px[i * C + j];
  }
  return y;
}

Tensor reshape(const Tensor& x, Shape shape) {
  int64_t known = 1, infer = -1;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == -1) {
      if (infer >= 0) throw Error("reshape: more than one -1 in " + shape_str(shape));
      infer = static_cast<int64_t>(k);
    } else if (shape[k] < 0) {
      throw Error("reshape: negative size in " + shape_str(shape));
    } else if (__builtin_mul_overflow(known, shape[k], &known)) {
      throw Error("reshape: the number of elements of " + shape_str(shape) + " overflows a 64-bit integer");
    }
  }
  if (infer >= 0) {
    if (known == 0 || x.numel() % known != 0)
      throw Error("reshape: cannot infer -1 for " + shape_str(x.shape()) + " to " + shape_str(shape));
    shape[infer] = x.numel() / known;
  }
  Tensor y = x;
  y.reshape_inplace(shape);
  return y;
}

Tensor concat_ptrs(const std::vector<const Tensor*>& xs, int64_t axis) {
  if (xs.empty()) throw Error("concat: no tensors");
  const Shape& s0 = xs[0]->shape();
  axis = normalize_axis(axis, s0, "concat");
  Shape out = s0;
  out[axis] = 0;
  for (const Tensor* t : xs) {
    bool ok = t->dim() == xs[0]->dim();
    for (int64_t k = 0; ok && k < t->dim(); ++k) ok = k == axis || t->shape()[k] == s0[k];
    if (!ok)
      throw Error("concat: shapes " + shape_str(s0) + " and " + shape_str(t->shape()) + " differ off axis " +
                  std::to_string(axis));
    out[axis] += t->shape()[axis];
  }
  Tensor y = Tensor::empty(out);  // the inputs tile it exactly
  int64_t outer, n, inner;
  split_at_axis(out, axis, outer, n, inner);
  int64_t at = 0;  // offset along the axis
  for (const Tensor* t : xs) {
    int64_t m = t->shape()[axis];
    for (int64_t o = 0; o < outer; ++o)
      if (m * inner != 0)
        std::memcpy(y.data() + (o * n + at) * inner, t->data() + o * m * inner, sizeof(real) * m * inner);
    at += m;
  }
  return y;
}

Tensor concat(const std::vector<Tensor>& xs, int64_t axis) {
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : xs) ptrs.push_back(&t);
  return concat_ptrs(ptrs, axis);
}

Tensor stack_ptrs(const std::vector<const Tensor*>& xs, int64_t axis) {
  if (xs.empty()) throw Error("stack: no tensors");
  const Shape& s0 = xs[0]->shape();
  int64_t d = xs[0]->dim() + 1;  // the result has one more axis than the inputs
  if (axis < -d || axis >= d)
    throw Error("stack: axis " + std::to_string(axis) + " out of range for stacking tensors of shape " +
                shape_str(s0));
  axis = axis < 0 ? axis + d : axis;
  for (const Tensor* t : xs)
    if (t->shape() != s0) throw Error("stack: shapes " + shape_str(s0) + " and " + shape_str(t->shape()) + " differ");
  Shape out = s0;
  const int64_t n = static_cast<int64_t>(xs.size());
  out.insert(out.begin() + axis, n);
  int64_t outer = 1, inner = 1;  // the input's axes before and from `axis`
  for (int64_t k = 0; k < axis; ++k) outer *= s0[k];
  for (int64_t k = axis; k < d - 1; ++k) inner *= s0[k];
  Tensor y = Tensor::empty(out);  // slot i along the new axis is input i
  for (int64_t i = 0; i < n; ++i)
    for (int64_t o = 0; o < outer; ++o)
      if (inner != 0) std::memcpy(y.data() + (o * n + i) * inner, xs[i]->data() + o * inner, sizeof(real) * inner);
  return y;
}

Tensor stack(const std::vector<Tensor>& xs, int64_t axis) {
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : xs) ptrs.push_back(&t);
  return stack_ptrs(ptrs, axis);
}

Tensor slice(const Tensor& x, int64_t axis, int64_t start, int64_t stop) {
  axis = normalize_axis(axis, x.shape(), "slice");
  int64_t outer, n, inner;
  split_at_axis(x.shape(), axis, outer, n, inner);
  if (start < 0 || stop > n || start > stop)
    throw Error("slice: [" + std::to_string(start) + ", " + std::to_string(stop) + ") out of range for axis " +
                std::to_string(axis) + " of shape " + shape_str(x.shape()));
  Shape out = x.shape();
  int64_t m = stop - start;
  out[axis] = m;
  Tensor y = Tensor::empty(out);
  for (int64_t o = 0; o < outer; ++o)
    if (m * inner != 0)
      std::memcpy(y.data() + o * m * inner, x.data() + (o * n + start) * inner, sizeof(real) * m * inner);
  return y;
}

Tensor index_select(const Tensor& x, const std::vector<int64_t>& index) {
  if (x.dim() < 1) throw Error("index_select: needs at least 1 axis, got shape " + shape_str(x.shape()));
  int64_t rows = x.size(0), width = rows ? x.numel() / rows : 0;
  Shape out = x.shape();
  out[0] = static_cast<int64_t>(index.size());
  Tensor y = Tensor::empty(out);
  for (size_t r = 0; r < index.size(); ++r) {
    if (index[r] < 0 || index[r] >= rows)
      throw Error("index_select: index " + std::to_string(index[r]) + " out of range for " +
                  std::to_string(rows) + " rows of shape " + shape_str(x.shape()));
    if (width != 0) std::memcpy(y.data() + r * width, x.data() + index[r] * width, sizeof(real) * width);
  }
  return y;
}

}  // namespace heed
