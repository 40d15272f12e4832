#include "tensor/gemm.h"

#include <vector>

namespace heed {

void gemm_naive(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B,
                real* C, bool accumulate) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      real s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += (trans_a ? A[k * M + i] : A[i * K + k]) * (trans_b ? B[j * K + k] : B[k * N + j]);
      C[i * N + j] = accumulate ? C[i * N + j] + s : s;
    }
}

// Loop orders that keep the innermost loop on contiguous memory in each form.
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B, real* C,
          bool accumulate) {
  if (!accumulate)
    for (int64_t i = 0; i < M * N; ++i) C[i] = 0;
  if (trans_b) {
    // C[i, j] += sum_k op(A)[i, k] B[j, k]: a dot product of two contiguous rows.
    std::vector<real> row(K);
    for (int64_t i = 0; i < M; ++i) {
      const real* a = A + i * K;
      if (trans_a) {
        for (int64_t k = 0; k < K; ++k) row[k] = A[k * M + i];
        a = row.data();
      }
      for (int64_t j = 0; j < N; ++j) {
        const real* b = B + j * K;
        real s = 0;
        for (int64_t k = 0; k < K; ++k) s += a[k] * b[k];
        C[i * N + j] += s;
      }
    }
    return;
  }
  // C[i, :] += op(A)[i, k] * B[k, :], the inner loop over a contiguous row of B and C.
  for (int64_t i = 0; i < M; ++i) {
    real* c = C + i * N;
    for (int64_t k = 0; k < K; ++k) {
      real a = trans_a ? A[k * M + i] : A[i * K + k];
      const real* b = B + k * N;
      for (int64_t j = 0; j < N; ++j) c[j] += a * b[j];
    }
  }
}

}  // namespace heed
