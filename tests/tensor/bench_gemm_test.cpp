// Benchmarks, not tests: skipped by default, run with
//   make -j2 build/tests && build/tests -ts=bench_gemm --no-skip
// 1. GFLOP/s of gemm_naive, of the plain loop orders gemm was before it was blocked (copied below
//    as gemm_loops), of its two kernels gemm_small and gemm_packed, and of gemm itself, on the
//    products the models compute at configurations M (batch 64, H 256, E 64, S 30, V 13) and S
//    (batch 32, H 64, E 32) of docs/models.md.
// 2. gemm_small against gemm_packed on a grid of thin and small shapes: the evidence for the rule
//    in gemm() that picks between them.
// One thread; each figure is the best of several timed runs, since the machine is shared.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <vector>

#include "tensor/gemm.h"
#include "tensor/random.h"
#include "tests/support/precision.h"

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

// Operands for `batch` products of one shape, entries in [-1, 1].
struct Operands {
  std::vector<real> a, b, c;
  Operands(heed::Generator& gen, const Shape& s)
      : a(s.batch * s.M * s.K), b(s.batch * s.K * s.N), c(s.batch * s.M * s.N) {
    for (real& x : a) x = gen.uniform(-1, 1);
    for (real& x : b) x = gen.uniform(-1, 1);
  }
  void run(Kernel kernel, bool ta, bool tb, const Shape& s) {
    for (int64_t i = 0; i < s.batch; ++i)
      kernel(ta, tb, s.M, s.N, s.K, a.data() + i * s.M * s.K, b.data() + i * s.K * s.N, c.data() + i * s.M * s.N,
             false);
  }
};

// GFLOP/s of each kernel on one shape and form: the best of `rounds` timed runs, each of about
// `flops_per_run` floating-point operations. Timed in CPU time (std::clock), not wall time, so
// that the time the process spends waiting for a core on a shared machine does not count. The
// kernels take turns within each round, so that a busy spell slows them all alike; the best
// figure is the least disturbed. gemm_naive, slow, only runs in the first two rounds.
std::vector<double> gflops(const std::vector<Kernel>& kernels, bool ta, bool tb, const Shape& s, Operands& x,
                           int rounds, double flops_per_run = 2e7) {
  double flops = 2.0 * s.batch * s.M * s.N * s.K;
  int64_t calls = std::max<int64_t>(1, static_cast<int64_t>(flops_per_run / flops));
  std::vector<double> best(kernels.size(), 0);
  for (Kernel k : kernels) x.run(k, ta, tb, s);  // warm-up: caches, and gemm's packing buffers
  for (int r = 0; r < rounds; ++r)
    for (size_t i = 0; i < kernels.size(); ++i) {
      if (kernels[i] == heed::gemm_naive && r >= 2) continue;
      int64_t n = kernels[i] == heed::gemm_naive ? 1 : calls;
      std::clock_t t0 = std::clock();
      for (int64_t c = 0; c < n; ++c) x.run(kernels[i], ta, tb, s);
      double seconds = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
      best[i] = std::max(best[i], flops * n / std::max(seconds, 1e-7) * 1e-9);
    }
  return best;
}

const char* const kForms[] = {"A B", "A B^T", "A^T B", "A^T B^T"};

}  // namespace

TEST_SUITE("bench_gemm") {
  TEST_CASE("gemm GFLOP/s on the models' shapes" * doctest::skip()) {
    const Shape shapes[] = {
        {"M: GRU gates h W", 1, 64, 768, 256},       {"M: GRU gates x W", 1, 64, 768, 64},
        {"M: x W, all steps", 1, 1920, 768, 64},     {"M: weight grad", 1, 768, 256, 64},
        {"M: hidden grad", 1, 64, 256, 768},         {"M: key projection", 1, 1920, 256, 256},
        {"M: output logits", 1, 1920, 13, 256},      {"M: scores (batched)", 64, 1, 30, 256},
        {"M: context (batched)", 64, 1, 256, 30},    {"M: d values (batched)", 64, 30, 256, 1},
        {"S: GRU gates h W", 1, 32, 192, 64},        {"S: key projection", 1, 320, 64, 64},
        {"matrix-vector", 1, 256, 1, 768},           {"vector-matrix", 1, 1, 768, 256},
        {"square 512", 1, 512, 512, 512},
    };
    heed::Generator gen(1);
    std::printf("%-22s %-16s %-8s %7s %7s %7s %7s %7s %8s\n", "shape", "batch x MxNxK", "form", "naive", "loops",
                "small", "packed", "gemm", "vs loops");
    for (const Shape& s : shapes) {
      Operands x(gen, s);
      char dims[48];
      std::snprintf(dims, sizeof dims, "%ld x %ldx%ldx%ld", long(s.batch), long(s.M), long(s.N), long(s.K));
      for (int f = 0; f < 4; ++f) {
        bool ta = f & 2, tb = f & 1;
        std::vector<double> g = gflops({heed::gemm_naive, gemm_loops, heed::gemm_small, heed::gemm_packed, heed::gemm},
                                       ta, tb, s, x, 7);
        double naive = g[0], loops = g[1], small = g[2], packed = g[3], fast = g[4];
        std::printf("%-22s %-16s %-8s %7.1f %7.1f %7.1f %7.1f %7.1f %7.1fx\n", s.what, dims, kForms[f], naive, loops,
                    small, packed, fast, fast / loops);
        // The last result of gemm is still right.
        std::vector<real> got = x.c;
        x.run(heed::gemm_naive, ta, tb, s);
        real err = 0;
        for (size_t i = 0; i < got.size(); ++i) err = std::max(err, std::abs(got[i] - x.c[i]));
        CHECK(err <= heed::test::tol(1e-12) * static_cast<real>(s.K));
      }
    }
  }

  TEST_CASE("gemm_small against gemm_packed" * doctest::skip()) {
    // For each form, the ratio of gemm_small's speed to gemm_packed's, per M (rows) and N
    // (columns), the median over a few K. Above 1: gemm_small is the faster.
    const int64_t sizes[] = {1, 2, 3, 4, 5, 6, 8, 12, 16, 32, 64, 256};
    const int64_t depths[] = {8, 30, 64, 256};
    heed::Generator gen(2);
    for (int f = 0; f < 4; ++f) {
      bool ta = f & 2, tb = f & 1;
      std::printf("\n%s: gemm_small / gemm_packed, median over K in {8, 30, 64, 256}\n M \\ N", kForms[f]);
      for (int64_t N : sizes) std::printf("%6ld", long(N));
      std::printf("\n");
      for (int64_t M : sizes) {
        std::printf("%6ld", long(M));
        for (int64_t N : sizes) {
          std::vector<double> ratios;
          for (int64_t K : depths) {
            Shape s{"", 1, M, N, K};
            Operands x(gen, s);
            std::vector<double> g = gflops({heed::gemm_small, heed::gemm_packed}, ta, tb, s, x, 3, 2e6);
            ratios.push_back(g[0] / g[1]);
          }
          std::sort(ratios.begin(), ratios.end());
          std::printf("%6.2f", (ratios[1] + ratios[2]) / 2);
          CHECK(ratios[0] > 0);
        }
        std::printf("\n");
      }
    }
  }
}
