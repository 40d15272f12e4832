// A benchmark, not a test: GFLOP/s of gemm_naive, the plain loop orders gemm was before it was
// blocked (copied below as gemm_loops) and gemm, on the products the models compute at configuration M of
// TASKS.md (batch 64, H 256, E 64, S 30) and S (batch 32, H 64, E 32). Skipped by default; run with
//   make -j2 build/tests && build/tests -ts=bench_gemm --no-skip
// One thread; best of several timed runs, since the machine is shared and times drift.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "tensor/gemm.h"
#include "tensor/random.h"

namespace {

using heed::real;
using Kernel = void (*)(bool, bool, int64_t, int64_t, int64_t, const real*, const real*, real*, bool);

// The kernel before this one, kept to measure against: loop orders that keep the innermost loop
// on contiguous memory in each form.
void gemm_loops(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B,
                real* C, bool accumulate) {
  if (!accumulate)
    for (int64_t i = 0; i < M * N; ++i) C[i] = 0;
  if (trans_b) {
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
  for (int64_t i = 0; i < M; ++i) {
    real* c = C + i * N;
    for (int64_t k = 0; k < K; ++k) {
      real a = trans_a ? A[k * M + i] : A[i * K + k];
      const real* b = B + k * N;
      for (int64_t j = 0; j < N; ++j) c[j] += a * b[j];
    }
  }
}

struct Shape {
  const char* what;
  int64_t batch, M, N, K;
};

// The best GFLOP/s of `reps` runs, each long enough (~20 ms) to time reliably.
double gflops(Kernel kernel, bool ta, bool tb, const Shape& s, const std::vector<real>& a,
              const std::vector<real>& b, std::vector<real>& c, int reps) {
  using clock = std::chrono::steady_clock;
  double flops = 2.0 * s.batch * s.M * s.N * s.K, best = 0;
  auto run = [&] {
    for (int64_t i = 0; i < s.batch; ++i)
      kernel(ta, tb, s.M, s.N, s.K, a.data() + i * s.M * s.K, b.data() + i * s.K * s.N, c.data() + i * s.M * s.N,
             false);
  };
  run();  // warm-up: caches, and gemm's packing buffers
  int64_t calls = std::max<int64_t>(1, static_cast<int64_t>(2e7 / flops));
  for (int r = 0; r < reps; ++r) {
    auto t0 = clock::now();
    for (int64_t i = 0; i < calls; ++i) run();
    std::chrono::duration<double> dt = clock::now() - t0;
    best = std::max(best, flops * calls / dt.count() * 1e-9);
  }
  return best;
}

}  // namespace

TEST_SUITE("bench_gemm") {
  TEST_CASE("gemm GFLOP/s on the models' shapes" * doctest::skip()) {
    const Shape shapes[] = {
        {"M: GRU gates h W", 1, 64, 768, 256},
        {"M: GRU input x W", 1, 64, 768, 64},
        {"M: input, all steps", 1, 1920, 768, 64},
        {"M: weight grad", 1, 768, 256, 64},
        {"M: hidden grad", 1, 64, 256, 768},
        {"M: key projection", 1, 1920, 256, 256},
        {"M: output logits", 1, 1920, 13, 256},
        {"M: scores (batched)", 64, 1, 30, 256},
        {"M: context (batched)", 64, 1, 256, 30},
        {"M: scores, 1 query", 1, 1, 30, 256},
        {"M: context, 1 query", 1, 1, 256, 30},
        {"M: d values (K=1)", 64, 30, 256, 1},
        {"S: GRU gates", 1, 32, 192, 64},
        {"S: key projection", 1, 320, 64, 64},
        {"matrix-vector", 1, 256, 1, 768},
        {"vector-matrix", 1, 1, 768, 256},
        {"square 512", 1, 512, 512, 512},
    };
    const char* forms[] = {"A B", "A B^T", "A^T B", "A^T B^T"};
    heed::Generator gen(1);
    std::printf("%-22s %-16s %-8s %8s %8s %8s %7s\n", "shape", "batch x M x N x K", "form", "naive", "loops",
                "gemm", "speedup");
    for (const Shape& s : shapes) {
      std::vector<real> a(s.batch * s.M * s.K), b(s.batch * s.K * s.N), c(s.batch * s.M * s.N);
      for (real& x : a) x = gen.uniform(-1, 1);
      for (real& x : b) x = gen.uniform(-1, 1);
      char dims[40];
      std::snprintf(dims, sizeof dims, "%ldx%ldx%ldx%ld", long(s.batch), long(s.M), long(s.N), long(s.K));
      for (int f = 0; f < 4; ++f) {
        bool ta = f >= 2, tb = f % 2 == 1;
        double naive = gflops(heed::gemm_naive, ta, tb, s, a, b, c, 2);
        double loops = gflops(gemm_loops, ta, tb, s, a, b, c, 5);
        double fast = gflops(heed::gemm, ta, tb, s, a, b, c, 5);
        std::vector<real> want(c.size());  // and the last result of gemm is still right
        for (int64_t i = 0; i < s.batch; ++i)
          heed::gemm_naive(ta, tb, s.M, s.N, s.K, a.data() + i * s.M * s.K, b.data() + i * s.K * s.N,
                           want.data() + i * s.M * s.N, false);
        real err = 0;
        for (size_t i = 0; i < c.size(); ++i) err = std::max(err, std::abs(c[i] - want[i]));
        CHECK(err <= 1e-12 * s.K);
        std::printf("%-22s %-16s %-8s %8.1f %8.1f %8.1f %6.1fx\n", s.what, dims, forms[f], naive, loops, fast,
                    fast / loops);
      }
    }
  }
}

// Where gemm_small stops paying: both kernels on a grid of small shapes, to choose kSmallWork.
TEST_SUITE("bench_gemm") {
  TEST_CASE("gemm_small against gemm_packed" * doctest::skip()) {
    heed::Generator gen(2);
    const int64_t sizes[] = {1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256};
    std::printf("%-16s %-8s %8s %8s %8s\n", "M x N x K", "form", "small", "packed", "M*N*K");
    for (int64_t M : sizes)
      for (int64_t N : sizes)
        for (int64_t K : sizes) {
          if (M * N * K > 300000 || M * N * K < 500) continue;
          if ((M + N + K) % 3 != 0 && M > 2 && N > 2) continue;  // a thinner grid, keeping thin shapes
          Shape s{"", 1, M, N, K};
          std::vector<real> a(M * K), b(K * N), c(M * N);
          for (real& x : a) x = gen.uniform(-1, 1);
          for (real& x : b) x = gen.uniform(-1, 1);
          for (int f : {0, 1, 2}) {
            bool ta = f == 2, tb = f == 1;
            double small = gflops(heed::gemm_small, ta, tb, s, a, b, c, 3);
            double packed = gflops(heed::gemm_packed, ta, tb, s, a, b, c, 3);
            std::printf("%4ldx%4ldx%4ld   %-8s %8.1f %8.1f %8ld %s\n", long(M), long(N), long(K),
                        f == 0 ? "A B" : f == 1 ? "A B^T" : "A^T B", small, packed, long(M * N * K),
                        small > packed ? "small" : "packed");
          }
        }
  }
}
