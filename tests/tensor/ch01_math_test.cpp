// Chapter 01: heed's own exp, log, tanh, sigmoid, sin, cos and pow (tensor/math.h) against the C
// library over their domains, in units in the last place; the vector kernels' bits against the
// scalar functions'; and the library's objects against any call into the C library's math.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "tensor/kernels.h"
#include "tensor/math.h"
#include "tensor/vmath.h"
#include "tests/support/chapter_check.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

using L = math::Layout<real>;
// The reference: the C library in a wider type (long double for double: 64 or 113 bits of
// mantissa; double for float), so that its own error is far below one of real's ulps.
using Wide = std::conditional_t<sizeof(real) == 8, long double, double>;

constexpr real kInf = std::numeric_limits<real>::infinity();
constexpr real kNaN = std::numeric_limits<real>::quiet_NaN();

// real's unit in the last place at the (wide) value w: 2^(exponent - mantissa bits), and the
// subnormals' spacing below the smallest normal.
Wide ulp_at(Wide w) {
  w = std::fabs(w);
  if (w < std::numeric_limits<real>::min()) return std::numeric_limits<real>::denorm_min();
  int e;
  std::frexp(w, &e);  // w = f 2^e, f in [0.5, 1)
  if (w >= std::numeric_limits<real>::max()) e = std::numeric_limits<real>::max_exponent;
  return std::ldexp(Wide(1), e - std::numeric_limits<real>::digits);
}

// |got - want| in ulps of want; infinite where one is inf (or NaN) and the other is not.
double ulps(real got, Wide want) {
  if (std::isinf(static_cast<real>(want))) want = static_cast<real>(want);  // beyond real's range: rounds to inf
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got) ? 0 : kInf;
  if (std::isinf(want) || std::isinf(got)) {
    if (std::isinf(got) && std::isinf(want)) return (got > 0) == (want > 0) ? 0 : kInf;
    if (std::isinf(want) && std::fabs(got) == std::numeric_limits<real>::max()) return 1;
    return kInf;
  }
  return static_cast<double>(std::fabs(Wide(got) - want) / ulp_at(want));
}

// A small generator of its own (splitmix64), so that the points do not depend on heed's.
struct Points {
  uint64_t s = 0x9e3779b97f4a7c15u;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  }
  real uniform(double lo, double hi) { return static_cast<real>(lo + (hi - lo) * (next() >> 11) * 0x1p-53); }
  // Any positive finite real, by its bits: every exponent equally likely, subnormals included.
  real positive() {
    for (;;) {
      uint64_t b = next();
      real x;
      if constexpr (sizeof(real) == 8) {
        b &= 0x7fffffffffffffffu;
        std::memcpy(&x, &b, 8);
      } else {
        uint32_t b32 = static_cast<uint32_t>(b) & 0x7fffffffu;
        std::memcpy(&x, &b32, 4);
      }
      if (std::isfinite(x) && x > 0) return x;
    }
  }
};

// The points of a sweep plus its edges, and each one's neighbours one ulp either side.
std::vector<real> with_neighbours(std::vector<real> x) {
  size_t n = x.size();
  for (size_t i = 0; i < n; ++i) {
    x.push_back(std::nextafter(x[i], kInf));
    x.push_back(std::nextafter(x[i], -kInf));
  }
  return x;
}

// The largest error of f against ref over xs, reported (doctest prints it with -s) and checked
// against the bound.
template <class F, class R>
void check_ulps(const char* what, const std::vector<real>& xs, F f, R ref, double bound) {
  double m = 0;
  real worst = 0;
  for (real x : xs) {
    double e = ulps(f(x), ref(static_cast<Wide>(x)));
    if (e > m || std::isnan(e)) m = e, worst = x;
  }
  MESSAGE(std::string(what) << ": max " << m << " ulp over " << xs.size() << " points (worst at x = " << static_cast<double>(worst)
               << "), bound " << bound);
  CHECK(m <= bound);
}

std::vector<real> exp_points() {
  Points p;
  std::vector<real> x;
  for (int i = 0; i < 200000; ++i) x.push_back(p.uniform(L::kExpUnder, L::kExpOver));
  for (int i = 0; i < 100000; ++i) x.push_back(p.uniform(-1, 1));
  for (int i = 0; i < 20000; ++i) x.push_back(p.uniform(-1e-6, 1e-6));
  for (real v : {real(0), real(1), real(-1), L::kExpOver, L::kExpUnder, L::kExpFloor, real(-708.39), real(-87.33),
                 real(-745), real(-103), std::numeric_limits<real>::denorm_min(), std::numeric_limits<real>::min()})
    x.push_back(v);
  const double ln2 = 0.6931471805599453;
  for (int n = -1080; n <= 1030; ++n)  // around every multiple of ln2 the reduction picks, and halfway
    if (n * ln2 > L::kExpUnder - 1 && n * ln2 < L::kExpOver + 1)
      x.push_back(static_cast<real>(n * ln2)), x.push_back(static_cast<real>((n + 0.5) * ln2));
  return with_neighbours(x);
}

std::vector<real> log_points() {
  Points p;
  std::vector<real> x;
  for (int i = 0; i < 200000; ++i) x.push_back(p.positive());
  for (int i = 0; i < 100000; ++i) x.push_back(p.uniform(0.5, 2));
  for (int i = 0; i < 20000; ++i) x.push_back(1 + p.uniform(-1e-6, 1e-6));
  for (real v : {real(1), real(2), real(0.5), real(1.4142135), real(0.70710677), std::numeric_limits<real>::max(),
                 std::numeric_limits<real>::min(), std::numeric_limits<real>::denorm_min()})
    x.push_back(v);
  return with_neighbours(x);
}

std::vector<real> trig_points() {
  Points p;
  std::vector<real> x;
  for (int i = 0; i < 100000; ++i) x.push_back(p.uniform(-7, 7));
  for (int i = 0; i < 100000; ++i) x.push_back(p.uniform(-1e4, 1e4));
  for (int i = 0; i < 50000; ++i) x.push_back(p.uniform(-L::kTrigMax, L::kTrigMax));
  for (int i = 0; i < 20000; ++i) x.push_back(p.uniform(-1e-5, 1e-5));
  // The multiples of pi/2 rounded to real, where the reduction cancels the most.
  for (int n = -20000; n <= 20000; ++n) x.push_back(static_cast<real>(n * 1.5707963267948966192L));
  for (double n = 1e5; n < L::kTrigMax / 1.6; n *= 1.37)
    x.push_back(static_cast<real>(std::nearbyint(n) * 1.5707963267948966192L));
  x.push_back(0);
  x.push_back(std::numeric_limits<real>::denorm_min());
  x.push_back(std::nextafter(L::kTrigMax, real(0)));
  x = with_neighbours(x);
  x.push_back(L::kTrigMax);
  x.push_back(-L::kTrigMax);
  return x;
}

std::vector<real> tanh_points() {
  Points p;
  std::vector<real> x;
  for (int i = 0; i < 200000; ++i) x.push_back(p.uniform(-30, 30));
  for (int i = 0; i < 50000; ++i) x.push_back(p.uniform(-1e-3, 1e-3));
  for (real m = std::numeric_limits<real>::min(); m < 1; m *= real(3.7)) x.push_back(m), x.push_back(-m);
  for (int i = 0; i < 50000; ++i) x.push_back(p.uniform(-750, 750));
  for (real v : {real(0), real(0.34657359), real(10), real(20), real(25), real(50), real(87), real(708), real(745)})
    x.push_back(v), x.push_back(-v);
  return with_neighbours(x);
}

Wide sigmoid_ref(Wide x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }

}  // namespace

TEST_SUITE("ch01_tensor") {
  TEST_CASE("heed::math::exp and log: within 1 ulp of the C library over their whole range") {
    check_ulps("exp", exp_points(), math::exp, [](Wide x) { return std::exp(x); }, 1);
    check_ulps("log", log_points(), math::log, [](Wide x) { return std::log(x); }, 1);
  }

  TEST_CASE("heed::math::tanh and sigmoid: within 3 ulp of the C library") {
    std::vector<real> x = tanh_points();
    check_ulps("tanh", x, math::tanh, [](Wide v) { return std::tanh(v); }, 3);
    std::vector<real> above_floor;  // below it sigmoid is 0 by design (tensor/math.h)
    for (real v : x) (v >= L::kExpFloor ? above_floor : x).push_back(v);
    check_ulps("sigmoid", above_floor, math::sigmoid, sigmoid_ref, 3);
    for (real v : {L::kExpFloor - 1, real(-745), -kInf}) CHECK(math::sigmoid(v) == 0);
  }

  TEST_CASE("heed::math::sin and cos: within 1 ulp of the C library for |x| <= kTrigMax") {
    std::vector<real> x = trig_points();
    check_ulps("sin", x, math::sin, [](Wide v) { return std::sin(v); }, 1);
    check_ulps("cos", x, math::cos, [](Wide v) { return std::cos(v); }, 1);
    CHECK_THROWS_WITH_AS(math::sin(L::kTrigMax * 2), doctest::Contains("heed::math::sin: |x| ="), Error);
    CHECK_THROWS_AS(math::cos(-L::kTrigMax * 2), Error);
  }

  TEST_CASE("heed::math::pow: within 2 ulp of the C library where |y log x| <= 20") {
    Points p;
    std::vector<real> xs, ys;
    for (int i = 0; i < 200000; ++i) {
      real x = p.uniform(0, 1) < 0.5 ? p.uniform(0, 4) : std::exp(p.uniform(-40, 40));
      real lx = std::log(std::max(x, std::numeric_limits<real>::min()));
      real y = lx == 0 ? p.uniform(-100, 100) : p.uniform(-20, 20) / std::fabs(lx);
      xs.push_back(x), ys.push_back(y);
    }
    for (int t = 1; t <= 20000; t += 7) {  // Adam's bias corrections, beta^t
      for (real beta : {real(0.9), real(0.98), real(0.999)}) xs.push_back(beta), ys.push_back(static_cast<real>(t));
    }
    for (int d = 1; d <= 4096; d *= 2)  // the positional encodings' frequencies, 10000^(-2i/D)
      for (int i = 0; i < d; ++i) xs.push_back(10000), ys.push_back(-static_cast<real>(2 * i) / static_cast<real>(d));
    double m = 0, m_far = 0;
    real wx = 0, wy = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      Wide want = std::pow(static_cast<Wide>(xs[i]), static_cast<Wide>(ys[i]));
      double e = ulps(math::pow(xs[i], ys[i]), want);
      if (e > m) m = e, wx = xs[i], wy = ys[i];
    }
    MESSAGE("pow: max " << m << " ulp (at " << wx << "^" << wy << "), bound 2");
    CHECK(m <= 2);
    // Further out the bound grows with |y log x| (tensor/math.h): 2 + |y log x| / 30 ulp.
    double excess = 0;  // the largest error beyond that bound
    for (int i = 0; i < 50000; ++i) {
      real x = std::exp(p.uniform(-40, 40));
      real ylogx = p.uniform(-700, 700);
      real y = ylogx / std::fabs(std::log(x));
      double e = ulps(math::pow(x, y), std::pow(static_cast<Wide>(x), static_cast<Wide>(y)));
      m_far = std::max(m_far, e);
      excess = std::max(excess, e - (2 + std::fabs(ylogx) / 30));
    }
    MESSAGE("pow, |y log x| <= 700: max " << m_far << " ulp; bound 2 + |y log x| / 30 (25 at 700)");
    CHECK(excess <= 0);
  }

  TEST_CASE("heed::math: the special cases are the C library's, to the bit (signed zeros, inf, NaN, 0^y, x^inf)") {
    const real big = std::numeric_limits<real>::max(), tiny = std::numeric_limits<real>::denorm_min();
    auto same = [](real got, real want) { return std::isnan(want) ? std::isnan(got) : test::same_bits(got, want); };
    for (real x : {real(0), real(-0.0), kInf, -kInf, kNaN, big, -big, tiny, -tiny}) {
      CAPTURE(x);
      CHECK(same(math::exp(x), std::exp(x)));
      CHECK(same(math::log(x), std::log(x)));
      CHECK(same(math::tanh(x), std::tanh(x)));
      if (!std::isfinite(x) || std::fabs(x) <= L::kTrigMax) {
        CHECK(same(math::sin(x), std::sin(x)));
        CHECK(same(math::cos(x), std::cos(x)));
      }
    }
    CHECK(math::exp(0) == 1);
    CHECK(math::log(1) == 0);
    CHECK(math::sigmoid(0) == real(0.5));
    CHECK(math::sigmoid(kInf) == 1);
    CHECK(std::isnan(math::sigmoid(kNaN)));
    const std::vector<real> pv{0, real(-0.0), 1, -1, 2, -2, real(0.5), real(-0.5), 3, -3, kInf, -kInf, kNaN, real(2.5)};
    for (real x : pv)
      for (real y : pv) {
        CAPTURE(x);
        CAPTURE(y);
        if (std::isfinite(x) && std::isfinite(y) && x != 0 && y != 0 && x != 1 && (x > 0 || y == std::round(y)))
          CHECK(ulps(math::pow(x, y), std::pow(static_cast<Wide>(x), static_cast<Wide>(y))) <= 1);  // an ordinary value
        else
          CHECK(same(math::pow(x, y), std::pow(x, y)));
      }
  }

  TEST_CASE("tanh_n and sigmoid_n (every kernel set) give heed::math::tanh's and sigmoid's bits") {
    std::vector<real> x = tanh_points();
    const std::string before = kernels().name;
    for (const KernelSet& k : kernel_sets()) {
      if (!k.runs_here()) continue;
      use_kernels(k.name);
      std::vector<real> t(x.size()), s(x.size());
      tanh_n(x.data(), t.data(), static_cast<int64_t>(x.size()));
      sigmoid_n(x.data(), s.data(), static_cast<int64_t>(x.size()));
      size_t differ = 0;
      for (size_t i = 0; i < x.size(); ++i)
        differ += !test::same_bits(t[i], math::tanh(x[i])) + !test::same_bits(s[i], math::sigmoid(x[i]));
      const std::string set = k.name;
      CAPTURE(set);
      CHECK(differ == 0);
    }
    use_kernels(before);
  }
}

TEST_SUITE("ch01_libm") {
  // The library's objects (and the heed program's), read by nm: every function they call is
  // listed undefined. None may be the C library's math but the correctly rounded ones; else a
  // result's last bit would depend on the system's libm. The names of libm's functions come from
  // the libm this test runs with (its exported symbols, by nm -D) and from C's list in <math.h>.
  TEST_CASE("the library's objects call no C library math function but sqrt, fma and the exact ones") {
    const std::string obj = build_dir() + "/obj";
    std::string libm_path;
    {
      std::ifstream maps("/proc/self/maps");
      std::string line;
      while (std::getline(maps, line))
        if (line.find("/libm.so") != std::string::npos || line.find("/libm-") != std::string::npos)
          libm_path = line.substr(line.find('/'));
    }
    auto lines = [](const std::string& command) {
      std::vector<std::string> out;
      FILE* pipe = popen(command.c_str(), "r");
      REQUIRE(pipe != nullptr);
      char buf[4096];
      while (std::fgets(buf, sizeof buf, pipe)) {
        std::string s(buf);
        while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
        out.push_back(s);
      }
      CHECK(pclose(pipe) == 0);
      return out;
    };
    // C's <math.h> functions (C17 7.12), each also with f and l (and glibc's __NAME_finite).
    std::set<std::string> libm;
    for (const char* f : {"acos",   "asin",      "atan",   "atan2",  "cos",    "sin",    "tan",   "acosh",  "asinh",
                          "atanh",  "cosh",      "sinh",   "tanh",   "exp",    "exp2",   "expm1", "frexp",  "ilogb",
                          "ldexp",  "log",       "log10",  "log1p",  "log2",   "logb",   "modf",  "scalbn", "scalbln",
                          "cbrt",   "fabs",      "hypot",  "pow",    "sqrt",   "erf",    "erfc",  "lgamma", "tgamma",
                          "ceil",   "floor",     "nearbyint", "rint", "lrint", "llrint", "round", "lround", "llround",
                          "trunc",  "fmod",      "remainder", "remquo", "copysign", "nan", "nextafter", "nexttoward",
                          "fdim",   "fmax",      "fmin",   "fma",    "sincos", "exp10",  "pow10", "significand"})
      for (const char* suffix : {"", "f", "l"}) {
        libm.insert(std::string(f) + suffix);
        libm.insert("__" + std::string(f) + suffix + "_finite");
      }
    if (!libm_path.empty())
      for (const std::string& l : lines("nm -D --defined-only '" + libm_path + "' 2>/dev/null")) {
        std::istringstream in(l);
        std::string addr, type, name;
        if (in >> addr >> type >> name && (type == "T" || type == "W" || type == "i"))
          libm.insert(name.substr(0, name.find('@')));
      }
    // Correctly rounded by IEEE 754 (sqrt, fma) or exact by their definition (no rounding at all).
    std::set<std::string> allowed;
    for (const char* f : {"sqrt", "fma", "fabs", "copysign", "ceil", "floor", "trunc", "round", "lround", "llround",
                          "nearbyint", "rint", "lrint", "llrint", "ldexp", "scalbn", "frexp", "ilogb", "logb", "modf",
                          "fmod", "remainder", "fmax", "fmin", "nextafter", "nan"})
      for (const char* suffix : {"", "f", "l"}) allowed.insert(std::string(f) + suffix);
    const std::vector<std::string> undefined = lines(
        "find '" + obj + "/tensor' '" + obj + "/autograd' '" + obj + "/nn' '" + obj + "/models' '" + obj + "/io' '" +
        obj + "/viz' '" + obj + "/tools' -name '*.o' -exec nm -uA {} + 2>/dev/null");
    REQUIRE(undefined.size() > 100);  // the objects are there and nm read them
    std::vector<std::string> offending;
    for (const std::string& l : undefined) {
      std::string name = l.substr(l.find_last_of(' ') + 1);
      name = name.substr(0, name.find('@'));
      if (libm.count(name) && !allowed.count(name)) offending.push_back(l);
    }
    std::string list;
    for (const std::string& o : offending) list += o + "\n";
    INFO("calls into the C library's math (use heed::math, tensor/math.h):\n" << list);
    CHECK(offending.empty());
    CHECK(libm.count("exp"));  // the list knows exp, so a std::exp put back would be found
  }
}
