// matmul in its three forms, 2-D or batched 3-D, and linear (x W^T + b), over the gemm kernel.
#include "tensor/gemm.h"
#include "tensor/ops.h"

namespace heed {

namespace {

// a is [.., M, K] (or [.., K, M] when trans_a), b is [.., K, N] (or [.., N, K] when trans_b).
Tensor matmul_impl(const Tensor& a, const Tensor& b, bool trans_a, bool trans_b, const char* op) {
  auto fail = [&](const std::string& why) {
    return Error(std::string(op) + ": " + shape_str(a.shape()) + " x " + shape_str(b.shape()) + ": " + why);
  };
  if (a.dim() != b.dim() || (a.dim() != 2 && a.dim() != 3))
    throw fail("both must be 2-D, or both 3-D (batched)");
  int64_t batch = a.dim() == 3 ? a.size(0) : 1;
  if (a.dim() == 3 && b.size(0) != batch)
    throw fail("batch sizes " + std::to_string(batch) + " and " + std::to_string(b.size(0)) + " differ");
  int64_t M = trans_a ? a.size(-1) : a.size(-2), Ka = trans_a ? a.size(-2) : a.size(-1);
  int64_t Kb = trans_b ? b.size(-1) : b.size(-2), N = trans_b ? b.size(-2) : b.size(-1);
  if (Ka != Kb) throw fail("inner sizes " + std::to_string(Ka) + " and " + std::to_string(Kb) + " differ");
  Shape out = a.dim() == 3 ? Shape{batch, M, N} : Shape{M, N};
  Tensor c = Tensor::empty(out);  // gemm writes every element (zeros when K is 0)
  for (int64_t i = 0; i < batch; ++i)
    gemm(trans_a, trans_b, M, N, Ka, a.data() + i * M * Ka, b.data() + i * Ka * N, c.data() + i * M * N, false);
  return c;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) { return matmul_impl(a, b, false, false, "matmul"); }
Tensor matmul_nt(const Tensor& a, const Tensor& b) { return matmul_impl(a, b, false, true, "matmul_nt"); }
Tensor matmul_tn(const Tensor& a, const Tensor& b) { return matmul_impl(a, b, true, false, "matmul_tn"); }

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor* bias) {
  const Shape &xs = x.shape(), &ws = weight.shape();
  if (xs.empty() || ws.size() != 2 || xs.back() != ws[1] || (bias && bias->shape() != Shape{ws[0]}))
    throw Error("linear: x " + shape_str(xs) + ", weight " + shape_str(ws) +
                (bias ? ", bias " + shape_str(bias->shape()) : std::string()) +
                " must be (..., in), (out, in) and (out)");
  // x's leading axes are read as rows where they lie, (..., in) as (N, in): rows are contiguous, so
  // no reshaped copy of x (or of y) is made.
  const int64_t in = ws[1], out = ws[0], N = shape_numel(Shape(xs.begin(), xs.end() - 1));
  Shape ys = xs;
  ys.back() = out;
  Tensor y = Tensor::empty(ys);  // (..., out)
  gemm(false, true, N, out, in, x.data(), weight.data(), y.data(), false);  // x W^T
  if (bias) {
    const real* b = bias->data();
    real* py = y.data();
    for (int64_t r = 0; r < N; ++r)
      for (int64_t j = 0; j < out; ++j) py[r * out + j] += b[j];  // + b, after the product
  }
  return y;
}

}  // namespace heed
