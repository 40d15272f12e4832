// Chapter 01's solutions.
#include <cmath>

#include "exercises/01_tensors/exercises.h"
#include "tensor/math.h"

namespace heed::student {

Tensor broadcast_add(const Tensor& a, const Tensor& b) {
  const int64_t ra = a.shape()[0], ca = a.shape()[1], rb = b.shape()[0], cb = b.shape()[1];
  if ((ra != rb && ra != 1 && rb != 1) || (ca != cb && ca != 1 && cb != 1))
    throw Error("broadcast_add: " + shape_str(a.shape()) + " and " + shape_str(b.shape()) + " do not broadcast");
  const int64_t R = std::max(ra, rb), C = std::max(ca, cb);
  Tensor out = Tensor::zeros({R, C});
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j)
      out[i * C + j] = a[(ra == 1 ? 0 : i) * ca + (ca == 1 ? 0 : j)] + b[(rb == 1 ? 0 : i) * cb + (cb == 1 ? 0 : j)];
  return out;
}

Tensor matmul_loops(const Tensor& a, const Tensor& b) {
  const int64_t M = a.shape()[0], K = a.shape()[1], N = b.shape()[1];
  Tensor c = Tensor::zeros({M, N});
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      real s = 0;
      for (int64_t k = 0; k < K; ++k) s += a[i * K + k] * b[k * N + j];
      c[i * N + j] = s;
    }
  return c;
}

// e^x by heed's own exp (tensor/math.h), not the C library's std::exp: the two differ in the last
// bit now and then (the C library's is not the same on every system, chapter 01's "How heed
// computes exp"). With heed's, and the sum and the division in heed's order (tensor/softmax.cpp),
// your softmax gives heed's bits.
Tensor softmax_rows(const Tensor& x) {
  const int64_t N = x.shape()[0], D = x.shape()[1];
  Tensor y = Tensor::zeros({N, D});
  for (int64_t i = 0; i < N; ++i) {
    real m = x[i * D];
    for (int64_t j = 1; j < D; ++j) m = std::max(m, x[i * D + j]);
    real s = 0;
    for (int64_t j = 0; j < D; ++j) s += y[i * D + j] = math::exp(x[i * D + j] - m);
    for (int64_t j = 0; j < D; ++j) y[i * D + j] /= s;
  }
  return y;
}

}  // namespace heed::student
