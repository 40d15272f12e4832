// Chapter 01: the solutions registered for the self-test, and plausible wrong answers its checks
// must reject. Not for students' eyes: these are the mistakes the checks are built to catch.
#include <cmath>

#include "exercises/check/01_check.h"
// The solution, compiled here in namespace heed::solution (one translation unit for both).
#define student solution
#include "exercises/solutions/01_tensors/exercises.cpp"
#undef student

namespace heed::check {
namespace {

// Forgets that b may vary along rows: always reads b's first row.
Tensor add_first_row(const Tensor& a, const Tensor& b) {
  const int64_t R = std::max(a.shape()[0], b.shape()[0]), C = std::max(a.shape()[1], b.shape()[1]);
  const int64_t ra = a.shape()[0], ca = a.shape()[1], cb = b.shape()[1];
  Tensor out = Tensor::zeros({R, C});
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j)
      out[i * C + j] = a[(ra == 1 ? 0 : i) * ca + (ca == 1 ? 0 : j)] + b[cb == 1 ? 0 : j];
  return out;
}

// Reads B as if it were stored transposed: B[j, k] instead of B[k, j] (right only when square
// and symmetric).
Tensor matmul_transposed_b(const Tensor& a, const Tensor& b) {
  const int64_t M = a.shape()[0], K = a.shape()[1], N = b.shape()[1];
  Tensor c = Tensor::zeros({M, N});
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      real s = 0;
      for (int64_t k = 0; k < K; ++k) s += a[i * K + k] * b[(j * K + k) % (K * N)];
      c[i * N + j] = s;
    }
  return c;
}

// Wrong only at larger sizes (tests/exercises/yours_sizes_test.cpp also links it into make yours-test):
// unrolled by four along k once K reaches 16, and the unrolled loop reads b[k * N] without the
// column offset j. Right on every product whose inner size is below 16.
Tensor matmul_unrolled_k16(const Tensor& a, const Tensor& b) {
  const int64_t M = a.shape()[0], K = a.shape()[1], N = b.shape()[1];
  Tensor c = Tensor::zeros({M, N});
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      real s = 0;
      int64_t k = 0;
      if (K >= 16)
        for (; k + 4 <= K; k += 4)
          s += a[i * K + k] * b[k * N] + a[i * K + k + 1] * b[(k + 1) * N] + a[i * K + k + 2] * b[(k + 2) * N] +
               a[i * K + k + 3] * b[(k + 3) * N];
      for (; k < K; ++k) s += a[i * K + k] * b[k * N + j];
      c[i * N + j] = s;
    }
  return c;
}

// No max shift: exp overflows to inf on large logits, and inf / inf is NaN.
Tensor softmax_unshifted(const Tensor& x) {
  const int64_t N = x.shape()[0], D = x.shape()[1];
  Tensor y = Tensor::zeros({N, D});
  for (int64_t i = 0; i < N; ++i) {
    real s = 0;
    for (int64_t j = 0; j < D; ++j) s += y[i * D + j] = std::exp(x[i * D + j]);
    for (int64_t j = 0; j < D; ++j) y[i * D + j] /= s;
  }
  return y;
}

// Normalises over the columns instead of the rows.
Tensor softmax_columns(const Tensor& x) {
  return softmax(x, 0);
}

Impl01 solution() { return HEED_IMPL_01(heed::solution); }
template <class F>
Impl01 with(F change) {
  Impl01 impl = solution();
  change(impl);
  return impl;
}

Register sol({"01", "exercises/01_tensors", "solution", [] { return exercises_01(solution()); }});
RegisterWrong w1({"01", "broadcast_add", "reads b's first row only",
             [] { return exercises_01(with([](Impl01& i) { i.broadcast_add = add_first_row; })); }});
RegisterWrong w2({"01", "matmul_loops", "indexes B as B[j, k]",
             [] { return exercises_01(with([](Impl01& i) { i.matmul_loops = matmul_transposed_b; })); }});
RegisterWrong w2k({"01", "matmul_loops", "unrolled past K 16 without the column offset",
              [] { return exercises_01(with([](Impl01& i) { i.matmul_loops = matmul_unrolled_k16; })); },
              "matmul_loops(a, b) differs"});
RegisterWrong w3({"01", "softmax_rows", "no max shift: NaN on large logits",
             [] { return exercises_01(with([](Impl01& i) { i.softmax_rows = softmax_unshifted; })); }});
RegisterWrong w4({"01", "softmax_rows", "normalises columns",
             [] { return exercises_01(with([](Impl01& i) { i.softmax_rows = softmax_columns; })); }});

}  // namespace
}  // namespace heed::check
