// What the tests may expect of heed::real, stated once. The default build's real is double; `make
// float` builds the same tests with real = float (tensor/tensor.h). A test that compares values
// takes its tolerance from here, so in the double build it keeps the bound it always had, and in
// the float build the bound scales with float's epsilon: tol(1e-12) is 1e-12 in double and
// 1e-12 * (float eps / double eps) ~ 5e-4 in float -- the same number of units in the last place.
// A test that cannot hold in float at all is marked DOUBLE_ONLY(reason) and skipped there (never
// loosened in double); the reasons are the constants below.
#pragma once

#include <doctest/doctest.h>

#include <cstring>
#include <limits>

#include "tensor/tensor.h"
#include "tests/support/precision.h"

namespace heed::test {

inline constexpr bool kFloatBuild = sizeof(real) < sizeof(double);
inline constexpr real kEps = std::numeric_limits<real>::epsilon();  // 2.2e-16 in double, 1.2e-7 in float

// A tolerance written for double, scaled to real's epsilon: the same count of units in the last place.
constexpr real tol(double double_tolerance) {
  return static_cast<real>(double_tolerance * (static_cast<double>(kEps) / std::numeric_limits<double>::epsilon()));
}

// The same bits (-0 is not 0, a NaN equals itself), for a real of either width.
inline bool same_bits(real a, real b) { return std::memcmp(&a, &b, sizeof(real)) == 0; }

// Why a test is double-only (doctest shows the skipped count; these say why, at the test).
inline constexpr const char* kGradcheckReason =
    "gradient checks need double precision (tutorials/03_gradient_checking; gradcheck refuses float)";
inline constexpr const char* kGoldenBitsReason =
    "holds golden hashes or bytes of the double build's arithmetic, which float cannot reproduce";
inline constexpr const char* kChapterTextReason =
    "compares a program's printed output with the chapter's text, written from the double build";
inline constexpr const char* kDoubleRangeReason = "uses a value beyond float's range (1e300) on purpose";
inline constexpr const char* kPytorchFp64Reason =
    "compares with PyTorch in float64 to double-precision bounds";

}  // namespace heed::test

// Skips the test case in the float build; `reason` names one of the constants above, e.g.
// TEST_CASE("gradcheck: ..." * DOUBLE_ONLY(kGradcheckReason)).
#define DOUBLE_ONLY(reason) doctest::skip(heed::test::kFloatBuild) * doctest::description(heed::test::reason)
