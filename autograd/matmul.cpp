// Matrix products, A B, A B^T and A^T B (2-D or batched 3-D), and linear (x W^T + b): each
// forward with its backward right below, the derivative as a comment. The backward of a product is
// two more products, written straight into the inputs' gradients by the same kernel.
//   forward kernel   tensor/matmul.cpp (shape checks) -> gemm (tensor/gemm.cpp): gemm_packed and
//                    gemm_small are the fast paths
//   reference        gemm_naive (tensor/gemm.cpp), the textbook triple loop; tests/gemm_test.cpp holds
//                    every fast path equal to it; linear is held bit-equal to matmul_nt(x, W) + b by
//                    tests/ch04_layers_test.cpp; every backward is gradchecked (tests/ch03_gradcheck_test.cpp)
#include "autograd/matmul.h"
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

}  // namespace heed
