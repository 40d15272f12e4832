// Matrix products, A B, A B^T and A^T B (2-D or batched 3-D), and linear (x W^T + b): each
// forward with its backward right below, the derivative as a comment. The backward of a product is
// two more products, written straight into the inputs' gradients by the same kernel.
//   forward kernel   tensor/matmul.cpp (shape checks) -> gemm (tensor/gemm_kernel.cpp): gemm_packed
//                    and gemm_small are the fast paths
//   reference        gemm_naive (tensor/gemm.cpp), the textbook triple loop; tests/tensor/ch01_gemm_test.cpp holds
//                    every fast path equal to it; linear is held bit-equal to matmul_nt(x, W) + b by
//                    tests/nn/ch04_layers_test.cpp; every backward is gradchecked (tests/autograd/ch03_gradcheck_test.cpp)
#include "autograd/matmul.h"
#include "tensor/gemm.h"

namespace heed {

namespace {

// n.grad += op(a) op(b) for 2-D or batched 3-D operands, straight into n's gradient: the
// backward of a product is two more products, and none of them needs a temporary.
void matmul_add(bool trans_a, bool trans_b, const Tensor& a, const Tensor& b, Backward& g, size_t i) {
  bool add = false;
  Tensor& c = g.target(i, add);
  const int64_t batch = a.dim() == 3 ? a.size(0) : 1;
  const int64_t M = c.size(-2), N = c.size(-1), K = trans_a ? a.size(-2) : a.size(-1);
  for (int64_t k = 0; k < batch; ++k)
    gemm(trans_a, trans_b, M, N, K, a.data() + k * M * K, b.data() + k * K * N, c.data() + k * M * N, add);
}

}  // namespace

Var matmul(const Var& a, const Var& b) {
  return make_var(matmul(a.value(), b.value()), "matmul", {a, b}, [](Backward& g) {
    const Tensor& av = g.input(0);  // each is in the other's derivative
    const Tensor& bv = g.input(1);
    if (g.wants(0)) matmul_add(false, true, g.grad(), bv, g, 0);  // dA += dC B^T
    if (g.wants(1)) matmul_add(true, false, av, g.grad(), g, 1);  // dB += A^T dC
  });
}

Var matmul_nt(const Var& a, const Var& b) {
  return make_var(matmul_nt(a.value(), b.value()), "matmul_nt", {a, b}, [](Backward& g) {
    const Tensor& av = g.input(0);
    const Tensor& bv = g.input(1);
    if (g.wants(0)) matmul_add(false, false, g.grad(), bv, g, 0);  // dA += dC B
    if (g.wants(1)) matmul_add(true, false, g.grad(), av, g, 1);   // dB += dC^T A
  });
}

Var matmul_tn(const Var& a, const Var& b) {
  return make_var(matmul_tn(a.value(), b.value()), "matmul_tn", {a, b}, [](Backward& g) {
    const Tensor& av = g.input(0);
    const Tensor& bv = g.input(1);
    if (g.wants(0)) matmul_add(false, true, bv, g.grad(), g, 0);  // dA += B dC^T
    if (g.wants(1)) matmul_add(false, false, av, g.grad(), g, 1);  // dB += A dC
  });
}

Var linear(const Var& x, const Var& weight, const Var& bias) {
  const bool has_bias = bias.defined();
  // y = x W^T + b (tensor/matmul.cpp: one product, then b added to each row; checks the shapes).
  // x's leading axes are read as rows where they lie, (..., in) as (N, in), so no reshaped copy of
  // x (or of y) is kept in the graph either.
  Tensor y = linear(x.value(), weight.value(), has_bias ? &bias.value() : nullptr);  // (..., out)
  const Shape& xs = x.shape();
  const int64_t in = weight.shape()[1], out = weight.shape()[0], N = shape_numel(Shape(xs.begin(), xs.end() - 1));
  std::vector<Var> inputs{x, weight};
  if (has_bias) inputs.push_back(bias);
  return make_var(std::move(y), "linear", inputs, [N, in, out, has_bias](Backward& g) {
    const Tensor& xv = g.input(0);
    const Tensor& wv = g.input(1);
    const real* dy = g.grad().data();  // (N, out)
    if (has_bias)
      if (g.wants(2)) {  // db += sum over rows of dy, rows in order from zero
        Tensor db = Tensor::zeros({out});
        for (int64_t r = 0; r < N; ++r)
          for (int64_t j = 0; j < out; ++j) db[j] += dy[r * out + j];
        g.add(2, std::move(db));
      }
    if (g.wants(0)) {  // dx += dy W: (N, in), written into x's gradient in x's own shape
      bool add = false;
      real* dx = g.target(0, add).data();
      gemm(false, false, N, in, out, dy, wv.data(), dx, add);
    }
    if (g.wants(1)) {  // dW += dy^T x: (out, in)
      bool add = false;
      real* dw = g.target(1, add).data();
      gemm(true, false, out, in, N, dy, xv.data(), dw, add);
    }
  });
}

}  // namespace heed
