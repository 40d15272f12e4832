// Matrix products and layout changes, with their backward.
#include "autograd/functions.h"
#include "autograd/node_util.h"

namespace heed {

Var matmul(const Var& a, const Var& b) {
  Tensor av = a.value(), bv = b.value();  // saved: each is in the other's derivative
  return make_var(matmul(av, bv), "matmul", {a, b}, [av, bv](Node& self) {
    if (Node* n = wants_grad(self, 0)) n->accumulate(matmul_nt(self.grad, bv));  // dA += dC B^T
    if (Node* n = wants_grad(self, 1)) n->accumulate(matmul_tn(av, self.grad));  // dB += A^T dC
  });
}

Var matmul_nt(const Var& a, const Var& b) {
  Tensor av = a.value(), bv = b.value();
  return make_var(matmul_nt(av, bv), "matmul_nt", {a, b}, [av, bv](Node& self) {
    if (Node* n = wants_grad(self, 0)) n->accumulate(matmul(self.grad, bv));     // dA += dC B
    if (Node* n = wants_grad(self, 1)) n->accumulate(matmul_tn(self.grad, av));  // dB += dC^T A
  });
}

Var matmul_tn(const Var& a, const Var& b) {
  Tensor av = a.value(), bv = b.value();
  return make_var(matmul_tn(av, bv), "matmul_tn", {a, b}, [av, bv](Node& self) {
    if (Node* n = wants_grad(self, 0)) n->accumulate(matmul_nt(bv, self.grad));  // dA += B dC^T
    if (Node* n = wants_grad(self, 1)) n->accumulate(matmul(av, self.grad));     // dB += A dC
  });
}

Var transpose(const Var& x) {
  return make_var(transpose(x.value()), "transpose", {x}, [](Node& self) {
    wants_grad(self, 0)->accumulate(transpose(self.grad));  // dx += dy^T
  });
}

Var reshape(const Var& x, Shape shape) {
  Shape s = x.shape();
  return make_var(reshape(x.value(), std::move(shape)), "reshape", {x}, [s](Node& self) {
    wants_grad(self, 0)->accumulate(reshape(self.grad, s));  // dx += dy, in x's shape
  });
}

Var concat(const std::vector<Var>& xs, int64_t axis) {
  std::vector<Tensor> values;
  values.reserve(xs.size());
  for (const Var& x : xs) values.push_back(x.value());
  Tensor y = concat(values, axis);
  axis = normalize_axis(axis, y.dim(), "concat");
  std::vector<int64_t> sizes;
  for (const Tensor& v : values) sizes.push_back(v.shape()[axis]);
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
  if (xs.empty()) throw Error("stack: no tensors");
  std::vector<Var> expanded;
  expanded.reserve(xs.size());
  axis = normalize_axis(axis, xs[0].value().dim() + 1, "stack");
  for (const Var& x : xs) {
    if (x.shape() != xs[0].shape())
      throw Error("stack: shapes " + shape_str(xs[0].shape()) + " and " + shape_str(x.shape()) + " differ");
    Shape s = x.shape();
    s.insert(s.begin() + axis, 1);
    expanded.push_back(reshape(x, s));
  }
  return concat(expanded, axis);  // the backward of reshape and concat undo it
}

Var slice(const Var& x, int64_t axis, int64_t start, int64_t stop) {
  Shape s = x.shape();
  axis = normalize_axis(axis, x.value().dim(), "slice");
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
