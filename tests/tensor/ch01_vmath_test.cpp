// Chapter 01: the vectorised tanh, sigmoid and dot product (tensor/vmath.h) against the standard
// library's scalar functions.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tensor/random.h"
#include "tensor/vmath.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

using test::kEps;
// Below this sigmoid_n returns 0 (tensor/vmath.h): -708 in double, -87 in the float build.
constexpr real kSigmoidFloor = test::kFloatBuild ? -87 : -708;
// The smallest magnitude swept, and a large finite one, in real's range.
const real kTiny = static_cast<real>(test::kFloatBuild ? 1e-37 : 1e-300);
const real kHuge = static_cast<real>(test::kFloatBuild ? 1e30 : 1e300);

// Arguments that cover the ranges: a dense sweep, tiny magnitudes, the edges of the reductions.
std::vector<real> arguments() {
  std::vector<real> x;
  for (int i = -40000; i <= 40000; ++i) x.push_back(i * 1e-3 + 1e-7 * (i % 7));
  for (real m = kTiny; m < 1; m *= real(3.7)) x.push_back(m), x.push_back(-m);
  for (double v : {0.0, 0.34657359027997264, 0.3465735902799727, 18.0, 19.06, 25.0, 50.0, 707.9, 708.0, 708.1, 745.0})
    x.push_back(static_cast<real>(v)), x.push_back(static_cast<real>(-v));
  if (test::kFloatBuild)  // the float build's own edges: its tanh clamp (|x| = 10) and exp floor (87)
    for (real v : {9.9f, 10.0f, 10.1f, 86.9f, 87.0f, 87.1f, 88.7f})
      x.push_back(v), x.push_back(-v);
  return x;
}

// The relative error in units of eps (at least the smallest normal's): 1 is one to two units in
// the last place.
real ulps(real got, real want) {
  real ulp = std::max(std::fabs(want), std::numeric_limits<real>::min()) * kEps;
  return std::fabs(got - want) / ulp;
}

real sigmoid_ref(real v) { return v >= 0 ? 1 / (1 + std::exp(-v)) : std::exp(v) / (1 + std::exp(v)); }

}  // namespace

TEST_SUITE("ch01_tensor") {
  TEST_CASE("tanh_n and sigmoid_n agree with std::tanh and std::exp to within 3 eps relative") {
    std::vector<real> x = arguments(), t(x.size()), s(x.size());
    tanh_n(x.data(), t.data(), static_cast<int64_t>(x.size()));
    sigmoid_n(x.data(), s.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      INFO("x = " << x[i] << ": tanh " << t[i] << " vs " << std::tanh(x[i]) << ", sigmoid " << s[i] << " vs "
                  << sigmoid_ref(x[i]));
      CHECK(ulps(t[i], std::tanh(x[i])) <= 3);
      if (x[i] >= kSigmoidFloor) {
        CHECK(ulps(s[i], sigmoid_ref(x[i])) <= 3);
      } else {
        CHECK(s[i] == 0);  // documented: the exact value is below 3e-308 (float: 2e-38)
      }
    }
  }

  TEST_CASE("tanh_n and sigmoid_n: exact at 0 and at the ends, odd/symmetric, NaN stays NaN") {
    const real inf = std::numeric_limits<real>::infinity(), nan = std::numeric_limits<real>::quiet_NaN();
    std::vector<real> x{0.0, -0.0, inf, -inf, kHuge, -kHuge, nan}, t(x.size()), s(x.size());
    tanh_n(x.data(), t.data(), 7);
    sigmoid_n(x.data(), s.data(), 7);
    CHECK(t[0] == 0);
    CHECK(!std::signbit(t[0]));
    CHECK(std::signbit(t[1]));
    CHECK(t[2] == 1);
    CHECK(t[3] == -1);
    CHECK(t[4] == 1);
    CHECK(t[5] == -1);
    CHECK(std::isnan(t[6]));
    CHECK(s[0] == 0.5);
    CHECK(s[1] == 0.5);
    CHECK(s[2] == 1);
    CHECK(s[3] == 0);
    CHECK(std::isnan(s[6]));
    std::vector<real> a = arguments(), ta(a.size()), tb(a.size()), sa(a.size()), sb(a.size());
    std::vector<real> neg(a.size());
    for (size_t i = 0; i < a.size(); ++i) neg[i] = -a[i];
    tanh_n(a.data(), ta.data(), static_cast<int64_t>(a.size()));
    tanh_n(neg.data(), tb.data(), static_cast<int64_t>(a.size()));
    sigmoid_n(a.data(), sa.data(), static_cast<int64_t>(a.size()));
    sigmoid_n(neg.data(), sb.data(), static_cast<int64_t>(a.size()));
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(ta[i] == -tb[i]);                                        // tanh(-x) = -tanh(x), exactly
      if (std::fabs(a[i]) < 30) CHECK(std::fabs(sa[i] + sb[i] - 1) <= 2 * kEps);  // s(x) + s(-x) = 1
    }
  }

  TEST_CASE("tanh_n, sigmoid_n and dot_n give the same bits wherever an element sits") {
    Generator gen(5);
    Tensor x = Tensor::normal({40}, 0, 3, gen), y = Tensor::normal({40}, 0, 1, gen);
    std::vector<real> whole_t(40), whole_s(40);
    tanh_n(x.data(), whole_t.data(), 40);
    sigmoid_n(x.data(), whole_s.data(), 40);
    for (int64_t start = 0; start < 8; ++start)
      for (int64_t n = 1; n <= 9 && start + n <= 40; ++n) {
        std::vector<real> part_t(n), part_s(n);
        tanh_n(x.data() + start, part_t.data(), n);
        sigmoid_n(x.data() + start, part_s.data(), n);
        for (int64_t i = 0; i < n; ++i) {
          CHECK(part_t[i] == whole_t[start + i]);
          CHECK(part_s[i] == whole_s[start + i]);
        }
      }
    std::vector<real> inplace(x.to_vector());
    tanh_n(inplace.data(), inplace.data(), 40);
    CHECK(inplace == whole_t);
    // dot_n: a fixed order for each n, within n eps of the sequential sum.
    for (int64_t n : {0, 1, 3, 7, 8, 9, 17, 40}) {
      real seq = 0, mag = 0;
      for (int64_t i = 0; i < n; ++i) seq += x[i] * y[i], mag += std::fabs(x[i] * y[i]);
      CHECK(std::fabs(dot_n(x.data(), y.data(), n) - seq) <= static_cast<real>(n) * kEps * mag);
      CHECK(dot_n(x.data(), y.data(), n) == dot_n(x.data(), y.data(), n));
    }
  }
}
