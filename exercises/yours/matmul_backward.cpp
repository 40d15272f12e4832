// Your heed's differentiable product: heed::matmul(a, b) on Vars with your matmul_backward
// (exercise 02.3) as its backward rule. make yours links this file in place of heed's
// (autograd/matmul.cpp) when 02.3 has passed. The forward is heed::matmul on tensors (your
// matmul_loops, if that piece is yours too); a batched product, (B, M, K) by (B, K, N), is one 2-D
// backward of yours per batch item.
#include <cstring>

#include "autograd/matmul.h"
#include "exercises/02_autograd/exercises.h"

namespace heed {

namespace {

// Your {da, db} for one 2-D product, their shapes checked.
std::pair<Tensor, Tensor> yours(const Tensor& a, const Tensor& b, const Tensor& dy) {
  auto grads = student::matmul_backward(a, b, dy);  // yours: da = dy b^T, db = a^T dy
  if (grads.first.shape() != a.shape() || grads.second.shape() != b.shape())
    throw Error("matmul (yours, exercise 02.3): matmul_backward returned " + shape_str(grads.first.shape()) + " and " +
                shape_str(grads.second.shape()) + " for a " + shape_str(a.shape()) + " and b " + shape_str(b.shape()));
  return grads;
}

}  // namespace

Var matmul(const Var& a, const Var& b) {
  return make_var(matmul(a.value(), b.value()), "matmul", {a, b}, [](Backward& g) {
    const Tensor& av = g.input(0);
    const Tensor& bv = g.input(1);
    if (av.dim() == 2) {
      auto [da, db] = yours(av, bv, g.grad());
      if (g.wants(0)) g.add(0, std::move(da));
      if (g.wants(1)) g.add(1, std::move(db));
      return;
    }
    const int64_t B = av.size(0), M = av.size(1), K = av.size(2), N = bv.size(2);
    Tensor da = Tensor::empty(av.shape()), db = Tensor::empty(bv.shape());
    for (int64_t k = 0; k < B; ++k) {
      auto [dak, dbk] = yours(reshape(slice(av, 0, k, k + 1), {M, K}), reshape(slice(bv, 0, k, k + 1), {K, N}),
                              reshape(slice(g.grad(), 0, k, k + 1), {M, N}));
      std::memcpy(da.data() + k * M * K, dak.data(), sizeof(real) * static_cast<size_t>(M * K));
      std::memcpy(db.data() + k * K * N, dbk.data(), sizeof(real) * static_cast<size_t>(K * N));
    }
    if (g.wants(0)) g.add(0, std::move(da));
    if (g.wants(1)) g.add(1, std::move(db));
  });
}

}  // namespace heed
