// The matrix-product kernels against their oracle: gemm, and the two kernels it chooses between
// (gemm_packed, gemm_small), must equal gemm_naive up to rounding in all four transposition forms,
// with and without accumulate, on sizes that hit every edge of the tiles and cache blocks.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tensor/gemm.h"
#include "tensor/random.h"
#include "tests/support/precision.h"

namespace {

using heed::real;
using Kernel = void (*)(bool, bool, int64_t, int64_t, int64_t, const real*, const real*, real*, bool);

struct Named {
  const char* name;
  Kernel kernel;
};
const Named kKernels[] = {{"gemm", heed::gemm}, {"gemm_packed", heed::gemm_packed}, {"gemm_small", heed::gemm_small}};

std::vector<real> uniform(heed::Generator& gen, int64_t n) {
  std::vector<real> v(n);
  for (real& x : v) x = gen.uniform(-1, 1);
  return v;
}

std::string describe(const char* kernel, bool ta, bool tb, int64_t M, int64_t N, int64_t K, bool acc) {
  return std::string(kernel) + (ta ? " A^T" : " A") + (tb ? " B^T" : " B") + " M=" + std::to_string(M) +
         " N=" + std::to_string(N) + " K=" + std::to_string(K) + (acc ? " accumulate" : "");
}

// Every kernel on one shape and form, with and without accumulate, against gemm_naive. Entries are
// in [-1, 1], so each entry of the product is a sum of K terms of size at most 1: a summation
// order other than the naive one moves it by a few K ulps at most. C is surrounded by guard
// values that must stay untouched; without accumulate it starts as NaN, which must not leak in.
void check_shape(heed::Generator& gen, bool ta, bool tb, int64_t M, int64_t N, int64_t K) {
  std::vector<real> a = uniform(gen, M * K), b = uniform(gen, K * N), c0 = uniform(gen, M * N);
  std::vector<real> want(M * N), want_acc(M * N);
  heed::gemm_naive(ta, tb, M, N, K, a.data(), b.data(), want.data(), false);
  for (int64_t i = 0; i < M * N; ++i) want_acc[i] = c0[i] + want[i];  // what gemm_naive computes
  const real tol = heed::test::tol(1e-12) * static_cast<real>(std::max<int64_t>(K, 1));
  const int64_t kGuard = 8;
  const real kGuardValue = 12345.0;
  for (const Named& k : kKernels)
    for (bool acc : {false, true}) {
      std::vector<real> c(M * N + 2 * kGuard, kGuardValue);
      real* cp = c.data() + kGuard;
      if (acc)
        std::copy(c0.begin(), c0.end(), cp);
      else
        std::fill(cp, cp + M * N, std::numeric_limits<real>::quiet_NaN());
      k.kernel(ta, tb, M, N, K, a.data(), b.data(), cp, acc);
      const std::vector<real>& w = acc ? want_acc : want;
      real err = 0;
      for (int64_t i = 0; i < M * N; ++i) err = std::max(err, std::isnan(cp[i]) ? INFINITY : std::abs(cp[i] - w[i]));
      bool guards = std::all_of(c.begin(), c.begin() + kGuard, [&](real x) { return x == kGuardValue; }) &&
                    std::all_of(c.end() - kGuard, c.end(), [&](real x) { return x == kGuardValue; });
      INFO(describe(k.name, ta, tb, M, N, K, acc), ": max error ", err, ", tolerance ", tol);
      CHECK(err <= tol);
      CHECK(guards);
    }
}

}  // namespace

TEST_SUITE("ch01_tensor") {
  TEST_CASE("gemm equals gemm_naive on a grid of awkward sizes, all forms, accumulate or not") {
    heed::Generator gen(8);
    const int64_t sizes[] = {0, 1, 2, 3, 5, 7, 8, 13, 17, 31, 33, 64, 65, 100, 257};
    for (int64_t M : sizes)
      for (int64_t N : sizes)
        for (int64_t K : sizes) {
          if (M * N * K > 60000) continue;  // the large ones below; this keeps the test fast
          for (int form = 0; form < 4; ++form) check_shape(gen, form & 2, form & 1, M, N, K);
        }
  }

  TEST_CASE("gemm equals gemm_naive on large shapes: several cache blocks in every direction") {
    heed::Generator gen(9);
    // (M, N, K) over several cache blocks (kMc = 96 rows, kKc = 256 deep, kNc = 3072 columns):
    // M over two blocks and K over two slices; K over three slices; N over two blocks.
    const int64_t shapes[][3] = {{110, 40, 300}, {20, 17, 530}, {13, 3100, 3}};
    for (const auto& s : shapes)
      for (int form = 0; form < 4; ++form) check_shape(gen, form & 2, form & 1, s[0], s[1], s[2]);
  }

  TEST_CASE("gemm propagates infinities and NaN as gemm_naive does") {
    // Padding (zeros in packed panels, repeated rows and columns in gemm_small) must never reach
    // C: 0 * inf would turn an infinity into NaN.
    heed::Generator gen(11);
    const int64_t shapes[][3] = {{1, 30, 7}, {3, 17, 5}, {13, 9, 7}, {30, 1, 9}, {5, 2, 3}, {8, 21, 4}};
    for (const auto& s : shapes)
      for (int form = 0; form < 4; ++form) {
        bool ta = form & 2, tb = form & 1;
        int64_t M = s[0], N = s[1], K = s[2];
        std::vector<real> a = uniform(gen, M * K), b = uniform(gen, K * N), want(M * N);
        // op(A)(M-1, K-1) = inf and op(B)(K-1, 0) = -inf: the last row, column and step, where
        // the padding is; and a NaN somewhere in B.
        a[ta ? (K - 1) * M + M - 1 : (M - 1) * K + K - 1] = INFINITY;
        b[tb ? K - 1 : (K - 1) * N] = -INFINITY;
        b[gen.randint(0, K * N - 1)] = NAN;
        heed::gemm_naive(ta, tb, M, N, K, a.data(), b.data(), want.data(), false);
        for (const Named& k : kKernels) {
          std::vector<real> c(M * N);
          k.kernel(ta, tb, M, N, K, a.data(), b.data(), c.data(), false);
          bool same = true;
          for (int64_t i = 0; i < M * N; ++i)
            same &= std::isfinite(want[i]) ? std::abs(c[i] - want[i]) <= heed::test::tol(1e-12) * static_cast<real>(K)
                                           : (std::isnan(want[i]) ? std::isnan(c[i]) : c[i] == want[i]);
          INFO(describe(k.name, ta, tb, M, N, K, false));
          CHECK(same);
        }
      }
  }

  TEST_CASE("gemm is deterministic: two calls give bit-identical results") {
    heed::Generator gen(10);
    const int64_t shapes[][3] = {{65, 100, 257}, {1, 30, 256}, {30, 1, 256}, {7, 33, 5}, {100, 70, 600}};
    for (const auto& s : shapes)
      for (int form = 0; form < 4; ++form) {
        bool ta = form & 2, tb = form & 1;
        int64_t M = s[0], N = s[1], K = s[2];
        std::vector<real> a = uniform(gen, M * K), b = uniform(gen, K * N), c1(M * N), c2(M * N);
        heed::gemm(ta, tb, M, N, K, a.data(), b.data(), c1.data(), false);
        // Another product in between, so the packing buffers hold something else.
        std::vector<real> big = uniform(gen, 200 * 200), scratch(200 * 200);
        heed::gemm(false, false, 200, 200, 200, big.data(), big.data(), scratch.data(), false);
        heed::gemm(ta, tb, M, N, K, a.data(), b.data(), c2.data(), false);
        INFO(describe("gemm", ta, tb, M, N, K, false));
        CHECK(std::memcmp(c1.data(), c2.data(), c1.size() * sizeof(real)) == 0);
      }
  }
}

TEST_SUITE("ch01_tensor") {
  // Padding never changes a result (docs/architecture.md): a row of C must come out bit-identical however
  // many other rows and columns the product has and whichever path computes it. Row r of a
  // product with M rows is compared with the same row computed alone (M = 1) and in a taller
  // product (M = 40), and column subsets likewise, over sizes that take every path.
  TEST_CASE("gemm: each element is independent of the product's other rows and columns, bit for bit") {
    heed::Generator gen(77);
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (int64_t K : {1, 7, 64, 300, 600})
          for (int64_t N : {1, 3, 4, 5, 8, 13, 40}) {
            const int64_t M = 40;
            std::vector<real> A(M * K), B(K * N);
            for (real& x : A) x = gen.uniform(-1, 1);
            for (real& x : B) x = gen.uniform(-1, 1);
            std::vector<real> full(M * N);
            heed::gemm(ta, tb, M, N, K, A.data(), B.data(), full.data(), false);
            for (int64_t m : {1, 2, 5, 6, 7}) {  // the first m rows alone
              std::vector<real> a(m * K);
              for (int64_t i = 0; i < m; ++i)
                for (int64_t k = 0; k < K; ++k) (ta ? a[k * m + i] : a[i * K + k]) = ta ? A[k * M + i] : A[i * K + k];
              std::vector<real> part(m * N);
              heed::gemm(ta, tb, m, N, K, a.data(), B.data(), part.data(), false);
              INFO("ta " << ta << " tb " << tb << " M " << m << " N " << N << " K " << K);
              CHECK(std::memcmp(part.data(), full.data(), sizeof(real) * m * N) == 0);
            }
            if (N > 1) {  // the first column alone
              std::vector<real> b(K);
              for (int64_t k = 0; k < K; ++k) b[k] = tb ? B[0 * K + k] : B[k * N + 0];
              std::vector<real> col(M);
              heed::gemm(ta, tb, M, 1, K, A.data(), b.data(), col.data(), false);
              bool same = true;
              for (int64_t i = 0; i < M; ++i) same = same && col[i] == full[i * N];
              INFO("column alone: ta " << ta << " tb " << tb << " N " << N << " K " << K);
              CHECK(same);
            }
          }
  }
}
