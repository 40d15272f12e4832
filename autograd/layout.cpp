// Matrix products and layout changes, with their backward.
#include "autograd/functions.h"
#include "autograd/node_util.h"
#include "tensor/gemm.h"

namespace heed {

namespace {

// n.grad += op(a) op(b) for 2-D or batched 3-D operands, straight into n's gradient: the
// backward of a product is two more products, and none of them needs a temporary.
void matmul_add(bool trans_a, bool trans_b, const Tensor& a, const Tensor& b, Node* n) {
  bool add = false;
  Tensor& c = grad_target(n, add);
  const int64_t batch = a.dim() == 3 ? a.size(0) : 1;
  const int64_t M = c.size(-2), N = c.size(-1), K = trans_a ? a.size(-2) : a.size(-1);
  for (int64_t i = 0; i < batch; ++i)
    gemm(trans_a, trans_b, M, N, K, a.data() + i * M * K, b.data() + i * K * N, c.data() + i * M * N, add);
}

}  // namespace

Var matmul(const Var& a, const Var& b) {
  return make_var(matmul(a.value(), b.value()), "matmul", {a, b}, [](Node& self) {
    const Tensor& av = self.inputs[0]->value;  // each is in the other's derivative
    const Tensor& bv = self.inputs[1]->value;
    if (Node* n = wants_grad(self, 0)) matmul_add(false, true, self.grad, bv, n);  // dA += dC B^T
    if (Node* n = wants_grad(self, 1)) matmul_add(true, false, av, self.grad, n);  // dB += A^T dC
  });
}

Var matmul_nt(const Var& a, const Var& b) {
  return make_var(matmul_nt(a.value(), b.value()), "matmul_nt", {a, b}, [](Node& self) {
    const Tensor& av = self.inputs[0]->value;
    const Tensor& bv = self.inputs[1]->value;
    if (Node* n = wants_grad(self, 0)) matmul_add(false, false, self.grad, bv, n);  // dA += dC B
    if (Node* n = wants_grad(self, 1)) matmul_add(true, false, self.grad, av, n);   // dB += dC^T A
  });
}

Var matmul_tn(const Var& a, const Var& b) {
  return make_var(matmul_tn(a.value(), b.value()), "matmul_tn", {a, b}, [](Node& self) {
    const Tensor& av = self.inputs[0]->value;
    const Tensor& bv = self.inputs[1]->value;
    if (Node* n = wants_grad(self, 0)) matmul_add(false, true, bv, self.grad, n);  // dA += B dC^T
    if (Node* n = wants_grad(self, 1)) matmul_add(false, false, av, self.grad, n);  // dB += A dC
  });
}

Var linear(const Var& x, const Var& weight, const Var& bias) {
  const Shape &xs = x.shape(), &ws = weight.shape();
  const bool has_bias = bias.defined();
  if (xs.size() != 2 || ws.size() != 2 || xs[1] != ws[1] || (has_bias && bias.shape() != Shape{ws[0]}))
    throw Error("linear: x " + shape_str(xs) + ", weight " + shape_str(ws) +
                (has_bias ? ", bias " + shape_str(bias.shape()) : std::string()) +
                " must be (N, in), (out, in) and (out)");
  const int64_t N = xs[0], out = ws[0];
  Tensor y = matmul_nt(x.value(), weight.value());  // (N, out)
  if (has_bias) {
    const real* b = bias.value().data();
    real* py = y.data();
    for (int64_t r = 0; r < N; ++r)
      for (int64_t j = 0; j < out; ++j) py[r * out + j] += b[j];
  }
  std::vector<Var> inputs{x, weight};
  if (has_bias) inputs.push_back(bias);
  return make_var(std::move(y), "linear", inputs, [N, out, has_bias](Node& self) {
    const Tensor& xv = self.inputs[0]->value;
    const Tensor& wv = self.inputs[1]->value;
    if (has_bias)
      if (Node* n = wants_grad(self, 2)) {  // db += sum over rows of dy, rows in order from zero
        Tensor db = Tensor::zeros({out});
        const real* dy = self.grad.data();
        for (int64_t r = 0; r < N; ++r)
          for (int64_t j = 0; j < out; ++j) db[j] += dy[r * out + j];
        n->accumulate(std::move(db));
      }
    if (Node* n = wants_grad(self, 0)) matmul_add(false, false, self.grad, wv, n);  // dx += dy W
    if (Node* n = wants_grad(self, 1)) matmul_add(true, false, self.grad, xv, n);   // dW += dy^T x
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
