// Chapter 01: the random generator (tensor/random.h) and the random tensors made with it:
// xoshiro256** bit for bit, reproducibility by seed, the moments and ranges promised.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "tensor/ops.h"
#include "tensor/random.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

real min_of(const Tensor& x) { return -max(neg(x)).item(); }

}  // namespace

TEST_SUITE("ch01_tensor") {
  TEST_CASE("the generator is xoshiro256** seeded by splitmix64, bit for bit" * DOUBLE_ONLY(kGoldenBitsReason)) {
    // Golden values from an independent Python transcription of the published algorithms
    // (M = 2**64 - 1; rotl(x, k) = ((x << k) | (x >> (64 - k))) & M):
    //   def splitmix(x): x = (x + 0x9e3779b97f4a7c15) & M; z = x
    //     z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M; z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
    //     return x, z ^ (z >> 31)            # four calls fill the state s[0..3]
    //   def next(s): r = (rotl((s[1] * 5) & M, 7) * 9) & M; t = (s[1] << 17) & M
    //     s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45)
    //     return r                           # uniform = (next(s) >> 11) * 2.0**-53
    Generator g(0);
    CHECK(g.next_u64() == 0x99ec5f36cb75f2b4ULL);
    CHECK(g.next_u64() == 0xbf6e1f784956452aULL);
    CHECK(g.next_u64() == 0x1a5f849d4933e6e0ULL);
    Generator h(42);  // uniform() is the top 53 bits times 2^-53
    CHECK(h.uniform() == 0.08386297105988216);
    CHECK(h.uniform() == 0.3789802506626686);
    CHECK(h.uniform() == 0.6800434110281394);
  }

  TEST_CASE("uniform and normal: the same seed gives the same numbers, another seed others") {
    Generator a(7), b(7), c(8);
    Tensor ua = Tensor::uniform({3, 4}, -2, 3, a), ub = Tensor::uniform({3, 4}, -2, 3, b);
    Tensor uc = Tensor::uniform({3, 4}, -2, 3, c);
    CHECK(equal(ua, ub));
    CHECK(!equal(ua, uc));
    Tensor na = Tensor::normal({5}, 1, 2, a), nb = Tensor::normal({5}, 1, 2, b), nc = Tensor::normal({5}, 1, 2, c);
    CHECK(equal(na, nb));
    CHECK(!equal(na, nc));
    CHECK(min_of(ua) >= -2);
    CHECK(max(ua).item() < 3);
  }

  TEST_CASE("uniform and normal have the moments they promise") {
    // n = 100000 draws: the sample mean of U(0,1) has sd sqrt(1/12/n) = 0.0009 and of N(0,1)
    // sd 0.0032; the bounds are 4 sd, so a correct generator with this seed passes by a wide margin.
    Generator g(2024);
    const int n = 100000;
    Tensor u = Tensor::uniform({n}, 0, 1, g);
    Tensor z = Tensor::normal({n}, 0, 1, g);
    real mu = mean(u).item(), mz = mean(z).item();
    real vz = mean(mul(z, z)).item() - mz * mz;
    CHECK(std::fabs(mu - 0.5) < 4 * 0.0009);
    CHECK(std::fabs(mz) < 4 * 0.0032);
    CHECK(std::fabs(vz - 1) < 4 * 0.0045);  // sd of the sample variance: sqrt(2 / n)
    Tensor w = Tensor::normal({n}, 3, 0.5, g);
    CHECK(std::fabs(mean(w).item() - 3) < 4 * 0.5 * 0.0032);
  }

  TEST_CASE("randint covers [lo, hi] evenly and never leaves it") {
    Generator g(3);
    int counts[5] = {0, 0, 0, 0, 0};
    const int n = 50000;
    int outside = 0;
    for (int i = 0; i < n; ++i) {
      int64_t v = g.randint(-2, 2);
      if (v < -2 || v > 2) ++outside;
      else ++counts[v + 2];
    }
    CHECK(outside == 0);
    for (int c : counts) CHECK(std::abs(c - n / 5) < 4 * 90);  // sd sqrt(n * 0.2 * 0.8) = 89
    CHECK(g.randint(5, 5) == 5);
    CHECK_THROWS_WITH_AS(g.randint(3, 2), "randint: empty range [3, 2]", Error);
    // The whole int64 range is allowed (its size overflows a signed subtraction).
    int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
    bool neg = false, pos = false;
    for (int i = 0; i < 64; ++i) {
      int64_t v = g.randint(lo, hi);
      neg = neg || v < 0;
      pos = pos || v > 0;
    }
    CHECK(neg);
    CHECK(pos);
  }

  TEST_CASE("randint is unbiased where plain modulo is not") {
    // With range r = 3 * 2^62, x % r maps two 64-bit values onto each of [0, 2^62) and one onto
    // the rest, so plain modulo lands below 2^62 half the time instead of a third. Rejection fixes it.
    Generator g(11);
    // [lo, hi] = [-2^63, 2^62 - 1] holds 3 * 2^62 integers; its first quarter is below -2^62.
    const int64_t lo = std::numeric_limits<int64_t>::min(), hi = (int64_t(1) << 62) - 1;
    const int n = 30000;
    int low = 0;
    for (int i = 0; i < n; ++i) low += g.randint(lo, hi) < -(int64_t(1) << 62);
    CHECK(std::fabs(low / real(n) - 1.0 / 3) < 4 * 0.0028);  // sd sqrt(1/3 * 2/3 / n)
  }

  TEST_CASE("split gives an independent, reproducible stream") {
    Generator a(5), b(5);
    Generator ca = a.split(), cb = b.split();
    CHECK(ca.next_u64() == cb.next_u64());
    CHECK(a.next_u64() == b.next_u64());
    Generator d(5);
    Generator cd = d.split();
    CHECK(cd.next_u64() != d.next_u64());
  }
}
