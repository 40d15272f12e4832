// The kernel sets (tensor/kernels.h) give the same bits: each set this processor runs computes
// the same products (every transposition, with and without accumulating, shapes on and off the
// tiles' edges, K cut into slices) and the same tanh and sigmoid (every tail length, the special
// values) as the portable set, bit for bit. On an AVX2 machine without AVX-512 the avx512 set
// cannot run, but avx2_wide runs its code (64-byte vectors) on AVX2. The portable set itself is
// held to the rule every set follows, written as plain loops below (the order of the fused
// multiply-adds; heed::math's tanh and sigmoid): so where it is the only set (ARM64), these
// tests still check every bit it computes. Also: HEED_KERNELS's refusals.
// The sets' speed is measured by the benchmarks (heed bench says which set ran), not here.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tensor/gemm.h"
#include "tensor/kernels.h"
#include "tensor/math.h"
#include "tensor/random.h"
#include "tensor/vmath.h"
#include "tests/support/heed_cli.h"

using namespace heed;

namespace {

struct Restore {  // the set in use before, whatever happens
  std::string name = kernels().name;
  ~Restore() { use_kernels(name); }
};

std::vector<real> random_values(Generator& g, int64_t n) {
  std::vector<real> v(static_cast<size_t>(n));
  for (real& x : v) x = static_cast<real>(g.uniform(-1, 1));
  return v;
}

bool same_bits(const std::vector<real>& a, const std::vector<real>& b) {
  // (An empty vector's data() may be null, which memcmp must not get, even with a size of 0.)
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(real)) == 0);
}

// The rule of every set's product (tensor/gemm_kernel.cpp, "the small path"), as plain loops:
// k runs in slices of kKc (256 doubles or 512 floats, a constant of gemm_kernel.cpp); within a
// slice an accumulator starts at 0 and takes one fused multiply-add per k, in ascending k; the
// slice's sum is then added to C, or stored, for the first slice when not accumulating.
std::vector<real> gemm_rule(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const std::vector<real>& A,
                            const std::vector<real>& B, const std::vector<real>& C0, bool accumulate) {
  constexpr int64_t kKc = 256 * 8 / sizeof(real);
  std::vector<real> C(static_cast<size_t>(M * N));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      real c = accumulate ? C0[i * N + j] : 0;
      for (int64_t pc = 0; pc < K; pc += kKc) {
        real sum = 0;
        for (int64_t k = pc; k < std::min(K, pc + kKc); ++k)
          sum = std::fma(ta ? A[k * M + i] : A[i * K + k], tb ? B[j * K + k] : B[k * N + j], sum);
        c = accumulate || pc > 0 ? c + sum : sum;
      }
      C[i * N + j] = c;
    }
  return C;
}

// Runs f once under each set this processor runs; f returns what the set computed. The portable
// set must compute `rule`'s bits (what every set must compute), every other set the portable set's.
template <class F>
void each_set_agrees_with_portable(const std::vector<real>& rule, F f) {
  Restore restore;
  use_kernels("portable");
  const std::vector<real> reference = f();
  CHECK_MESSAGE(same_bits(reference, rule), "the portable set breaks the rule every set follows");
  for (const KernelSet& k : kernel_sets()) {
    if (!k.runs_here() || std::string(k.name) == "portable") continue;
    use_kernels(k.name);
    const std::vector<real> got = f();
    const std::string name = k.name;
    CAPTURE(name);
    CHECK(same_bits(got, reference));
  }
}

}  // namespace

TEST_SUITE("kernels") {
  TEST_CASE("kernel sets: this build has portable first, and the processor runs it") {
    REQUIRE(!kernel_sets().empty());
    CHECK(std::string(kernel_sets()[0].name) == "portable");
    CHECK(kernel_sets()[0].runs_here());
    CHECK(kernels().runs_here());
#if defined(__x86_64__)
    CHECK(kernel_sets().size() == 4);  // portable, avx2, avx2_wide, avx512
#else
    CHECK(kernel_sets().size() == 1);  // portable alone (ARM64): the tests below hold it to the rule
#endif
  }

  TEST_CASE("kernel sets: gemm, gemm_packed and gemm_small give the portable set's bits") {
    // Shapes: below and across a tile (6 rows, 2 vectors of columns), the small path's widths, a
    // row block (96) and more, K across a slice (256 doubles, 512 floats), and empty ones.
    const int64_t kMs[] = {1, 5, 6, 7, 13, 97};
    const int64_t kNs[] = {1, 3, 4, 8, 9, 17, 33, 70};
    const int64_t kKs[] = {0, 1, 7, 64, 600};
    Generator g(3);
    for (int64_t M : kMs)
      for (int64_t N : kNs)
        for (int64_t K : kKs)
          for (int form = 0; form < 4; ++form)
            for (bool accumulate : {false, true}) {
              const bool ta = form & 1, tb = form & 2;
              if (K == 600 && M * N > 200) continue;  // (the long sums on a few shapes are enough)
              const std::vector<real> A = random_values(g, M * K), B = random_values(g, K * N),
                                      C0 = random_values(g, M * N);
              CAPTURE(M);
              CAPTURE(N);
              CAPTURE(K);
              CAPTURE(ta);
              CAPTURE(tb);
              CAPTURE(accumulate);
              const std::vector<real> rule = gemm_rule(ta, tb, M, N, K, A, B, C0, accumulate);
              for (auto* product : {&gemm, &gemm_packed, &gemm_small})
                each_set_agrees_with_portable(rule, [&] {
                  std::vector<real> C = C0;
                  product(ta, tb, M, N, K, A.data(), B.data(), C.data(), accumulate);
                  return C;
                });
            }
  }

  TEST_CASE("kernel sets: a product wider than a column block (3072) gives the portable set's bits") {
    Generator g(4);
    const int64_t M = 7, N = 3100, K = 5;
    const std::vector<real> A = random_values(g, M * K), B = random_values(g, K * N);
    each_set_agrees_with_portable(gemm_rule(false, false, M, N, K, A, B, {}, false), [&] {
      std::vector<real> C(static_cast<size_t>(M * N));
      gemm_packed(false, false, M, N, K, A.data(), B.data(), C.data(), false);
      return C;
    });
  }

  TEST_CASE("kernel sets: tanh_n and sigmoid_n give the portable set's bits, every tail, special values") {
    Generator g(5);
    std::vector<real> x = random_values(g, 70);
    for (size_t i = 0; i < x.size(); ++i) x[i] *= static_cast<real>(i % 7 == 0 ? 100 : 4);
    const real inf = std::numeric_limits<real>::infinity();
    const real special[] = {0, -real(0), inf, -inf, std::numeric_limits<real>::denorm_min(),
                            -std::numeric_limits<real>::min(), std::numeric_limits<real>::max(), real(-800),
                            real(709), real(1e-9)};
    for (size_t i = 0; i < std::size(special); ++i) x[3 * i] = special[i];
    for (int64_t n = 0; n <= static_cast<int64_t>(x.size()); ++n) {
      CAPTURE(n);
      std::vector<real> rule(static_cast<size_t>(2 * n));  // heed::math's, one element at a time
      for (int64_t i = 0; i < n; ++i) {
        rule[i] = math::tanh(x[i]);
        rule[n + i] = math::sigmoid(x[i]);
      }
      each_set_agrees_with_portable(rule, [&] {
        std::vector<real> y(static_cast<size_t>(2 * n));
        tanh_n(x.data(), y.data(), n);
        sigmoid_n(x.data(), y.data() + n, n);
        return y;
      });
    }
    // NaN stays NaN in every set (its bits are not compared: no result of heed's carries one).
    for (const KernelSet& k : kernel_sets()) {
      if (!k.runs_here()) continue;
      const real nan = std::numeric_limits<real>::quiet_NaN();
      real t = 0, s = 0;
      k.tanh_n(&nan, &t, 1);
      k.sigmoid_n(&nan, &s, 1);
      const std::string name = k.name;
      CAPTURE(name);
      CHECK(std::isnan(t));
      CHECK(std::isnan(s));
    }
  }

  TEST_CASE("kernel sets: use_kernels refuses a set this build lacks, naming those it has") {
    Restore restore;
    try {
      use_kernels("avx9");
      FAIL("use_kernels accepted avx9");
    } catch (const Error& e) {
      const std::string m = e.what();
      CHECK(m.find("HEED_KERNELS=avx9") != std::string::npos);
      CHECK(m.find("no such kernel set") != std::string::npos);
      CHECK(m.find("portable") != std::string::npos);
    }
    for (const KernelSet& k : kernel_sets())
      if (!k.runs_here()) {  // (only on a processor without AVX-512, say)
        const std::string name = k.name;
        CAPTURE(name);
        try {
          use_kernels(k.name);
          FAIL("use_kernels accepted a set this processor cannot run");
        } catch (const Error& e) {
          CHECK(std::string(e.what()).find("this processor cannot run it") != std::string::npos);
        }
      }
  }

  TEST_CASE("heed with HEED_KERNELS: the set is named by --version and bench; a bad one is refused") {
    Scratch s("kernels-cli");
    CliRun v = s.heed("--version", "HEED_KERNELS=portable");
    CHECK(v.status == 0);
    CHECK(v.out.find("portable kernels") != std::string::npos);
    CliRun bad = s.heed("--version", "HEED_KERNELS=avx9");
    CHECK(bad.status == 2);
    CHECK(count_lines(bad.err) == 1);
    CHECK(bad.err.find("heed: HEED_KERNELS=avx9: no such kernel set in this build") == 0);
    CliRun b = s.heed("bench --model plain --embed 4 --hidden 4 --batch 2 --len 3 --steps 2 --warmup 0 --json",
                      "HEED_KERNELS=portable");
    CHECK(b.status == 0);
    CHECK(b.out.find("portable kernels") != std::string::npos);
    CHECK(b.out.find("\"kernels\":\"portable\"") != std::string::npos);
  }
}
