// heed's elementary functions (tensor/math.h), from + - * / sqrt and fma alone. Each is the same
// three steps: reduce the argument exactly to a small remainder, sum a Taylor polynomial on it
// (Horner's rule, one fused multiply-add a term), and put the result back together. The vector
// tanh and sigmoid of tensor/vmath_kernel.cpp run exactly the operations of exp_parts, tanh and
// sigmoid below, lane by lane; tests/tensor/ch01_math_test.cpp holds their bits equal.
//
// Throughout, an "ulp" is a unit in the last place of the exact result; u = 2^-53 (double) or
// 2^-24 (float) is half of one, the error of one rounding.
#include "tensor/math.h"

#include <bit>
#include <limits>
#include <string>

#include "tensor/tensor.h"

namespace heed::math {

namespace {

using L = Layout<real>;
using Int = L::Int;

constexpr real kInf = std::numeric_limits<real>::infinity();
constexpr real kNaN = std::numeric_limits<real>::quiet_NaN();

// acc + x y, rounded once (the processor's fma instruction, or the C library's correctly rounded
// fma where there is none).
inline real fmadd(real x, real y, real acc) {
  if constexpr (sizeof(real) == 8)
    return __builtin_fma(x, y, acc);
  else
    return __builtin_fmaf(x, y, acc);
}

inline bool is_nan(real x) { return x != x; }

// 2^n from its bits, for a normal result (1 - bias <= n <= bias).
inline real two_to(Int n) { return std::bit_cast<real>(static_cast<Int>((n + L::kBias) << L::kMantissa)); }

// ---- exp ----------------------------------------------------------------------------------
//
//   x = n ln2 + r, n = round(x / ln2), |r| <= ln2 / 2     (ln2 in two parts: n kLn2Hi is exact,
//                                                          so r carries no error of ln2's rounding)
//   e^r - 1 = r + r^2 (1/2! + r (1/3! + ... + r / 13!))   (Taylor; float stops at 1/8!)
//   e^x = 2^n (1 + (e^r - 1))                             (the last step one fma: 2^n + 2^n (e^r - 1))
//
// n is rounded by adding 1.5 2^52 (a real whose ulp is 1): the sum's low mantissa bits hold n.
// The vector kernels run exactly these operations (tensor/vmath_kernel.cpp, exp_parts).
constexpr real kRound = real(1.5) * real(Int(1) << L::kMantissa);

// For -1075 ln2 < x < 1025 ln2: n (the multiple of ln2) and e^r - 1.
inline real exp_parts(real x, Int& n) {
  real shifted = fmadd(x, real(kLog2e), kRound);
  real nr = shifted - kRound;
  real r = fmadd(-nr, L::kLn2Hi, x);
  r = fmadd(-nr, L::kLn2Lo, r);
  n = std::bit_cast<Int>(shifted) - std::bit_cast<Int>(kRound);
  constexpr int kLast = L::kExpLastFactorial - 2;  // the index of 1/kExpLastFactorial!
  real q = real(kInvFactorial[kLast]);
#pragma GCC unroll 16
  for (int i = kLast - 1; i >= 0; --i) q = fmadd(q, r, real(kInvFactorial[i]));
  return fmadd(r * r, q, r);
}

// 2^n (1 + m) for any n of exp's range: where 2^n itself is no normal real, by way of 2^(n -+ 64).
inline real scale_up(Int n, real m) {
  if (n > L::kBias) {  // e^x within a factor 2 of overflow: 2^(n-1) (1 + m) times 2, exact or inf
    real s = two_to(n - 1);
    return fmadd(s, m, s) * 2;
  }
  if (n < 1 - L::kBias) {  // subnormal result: rounded once at full precision, once to the subnormal
    real s = two_to(n + 64);
    return fmadd(s, m, s) * two_to(-64);
  }
  real s = two_to(n);
  return fmadd(s, m, s);
}

// ---- log ----------------------------------------------------------------------------------
//
//   x = 2^k m with sqrt(2)/2 <= m < sqrt(2), f = m - 1 (exact: m and 1 are within a factor 2)
//   log(1 + f) = 2 atanh(s), s = f / (2 + f), |s| <= 3 - 2 sqrt(2) = 0.1716
//              = 2s + s R(z), z = s^2, R(z) = 2z/3 + 2z^2/5 + 2z^3/7 + ...
//   2s = f - f^2/2 + s f^2/2, so log(1 + f) = f - (h - s (h + R)) with h = f^2 / 2
//   log x = k ln2_hi + (f - (h - (s (h + R) + k ln2_lo)))
//
// The large terms, k ln2_hi and f, are exact; h and the small rest carry the rounding. R stops at
// z^10 (2z^10/21): the next term, 2 s z^11 / 23, is below 1e-18 |s|, far under half an ulp of the
// result (> |s|); float stops at z^4 (next: 2 z^5/11 < 3e-9).
constexpr int kLogTerms = sizeof(real) == 8 ? 10 : 4;
constexpr real kSqrt2 = real(1.41421356237309504880);

// x = 2^k m with m in [sqrt2/2, sqrt2), for finite x > 0 (subnormals included).
inline real split_exponent(real x, Int& k) {
  k = 0;
  if (x < std::numeric_limits<real>::min()) {  // subnormal: make it normal first
    x *= two_to(L::kMantissa + 2);
    k = -(L::kMantissa + 2);
  }
  Int bits = std::bit_cast<Int>(x);
  k += (bits >> L::kMantissa) - L::kBias;
  real m = std::bit_cast<real>(static_cast<Int>((bits & ((Int(1) << L::kMantissa) - 1)) |
                                                 (Int(L::kBias) << L::kMantissa)));  // in [1, 2)
  if (m >= kSqrt2) {
    m *= real(0.5);
    ++k;
  }
  return m;
}

// s (h + R), the small part of log(1 + f), with h = f^2 / 2.
// R(z) = z (2/3 + z (2/5 + ... + z 2/(2 kLogTerms + 1))), Horner from the highest.
[[gnu::always_inline]] inline real log_series(real z) {
  // 2 / (2j + 1), j = 1 .. kLogTerms, each rounded once to real (computed when compiling).
  constexpr auto kCoef = [] {
    struct { real c[kLogTerms + 1]; } t{};
    for (int j = 1; j <= kLogTerms; ++j) t.c[j] = real(2.0 / (2 * j + 1));
    return t;
  }();
  real R = kCoef.c[kLogTerms];
#pragma GCC unroll 16
  for (int j = kLogTerms - 1; j >= 1; --j) R = fmadd(R, z, kCoef.c[j]);
  return R * z;
}

inline real log_tail(real f, real h, real& s) {
  s = f / (2 + f);
  return s * (h + log_series(s * s));
}

// ---- sin and cos -------------------------------------------------------------------------
//
//   x = n pi/2 + r, n = round(x 2/pi), |r| <= pi/4 (and a hair)
//   pi/2 = C1 + C2 + C3 (three reals, 159 bits in double, 72 in float)
//   r = ((x - n C1) - n C2) - n C3, carried as a pair rh + rl
//
// x - n C1 is exact (one fma: both are multiples of C1's last place, and the difference is
// below 1), n C2 is split exactly into two reals by an fma, and only n C3 rounds, far below the
// last place of r for |x| <= kTrigMax, even where x is within 2^-60 of a multiple of pi/2.
// Then by n mod 4, sin x is sin r, cos r, -sin r or -cos r, with
//   sin r = r - r^3/3! + ... + r^17/17!   (next term below 2e-19 |r|; float to r^9/9!, next < 3e-9)
//   cos r = 1 - r^2/2 + ... + r^18/18!    (next term below 1e-21;   float to r^10/10!, next < 4e-10)
// and the low part rl added as its derivative: sin(rh + rl) = sin rh + rl cos rh, and rl is so
// small that cos rh = 1 - rh^2/2 serves (and -rh for cos).
constexpr real kTwoOverPi = real(0.636619772367581343076);
constexpr real kC1 = sizeof(real) == 8 ? real(0x1.921fb54442d18p+0) : real(0x1.921fb6p+0);
constexpr real kC2 = sizeof(real) == 8 ? real(0x1.1a62633145c07p-54) : real(-0x1.777a5cp-25);
constexpr real kC3 = sizeof(real) == 8 ? real(-0x1.f1976b7ed8fbcp-110) : real(-0x1.ee59dap-50);
constexpr int kSinLast = sizeof(real) == 8 ? 17 : 9;  // the highest odd power kept
constexpr int kCosLast = sizeof(real) == 8 ? 18 : 10;  // the highest even power kept

// +-1/k! for k = 0 .. 18, the sign that of i^(k-1) or i^k (sin's odd, cos's even Taylor terms),
// computed when compiling: k! is exact in double to 18! (and in float to 10!), so each is 1/k!
// rounded once.
struct Factorials {
  real c[19];
};
constexpr Factorials kTaylor = [] {
  Factorials t{};
  for (int k = 0; k <= 18; ++k) {
    real f = 1;
    for (int i = 2; i <= k; ++i) f *= i;
    t.c[k] = (k % 4 == 0 || k % 4 == 1 ? 1 : -1) / f;
  }
  return t;
}();

// sum + err = a + b exactly (Knuth's two-sum: no condition on the sizes).
inline real two_sum(real a, real b, real& err) {
  real sum = a + b;
  real bb = sum - a;
  err = (a - (sum - bb)) + (b - bb);
  return sum;
}

// rh + rl = x - n pi/2 and n mod 4, for finite |x| <= kTrigMax.
inline int reduce_half_pi(real x, real& rh, real& rl) {
  real shifted = fmadd(x, kTwoOverPi, kRound);
  real n = shifted - kRound;
  int quadrant = static_cast<int>((std::bit_cast<Int>(shifted) - std::bit_cast<Int>(kRound)) & 3);
  real a = fmadd(-n, kC1, x);       // exact
  real p = n * kC2;
  real p_err = fmadd(n, kC2, -p);   // n C2 = p + p_err, exactly
  real e;
  real s = two_sum(a, -p, e);       // a - p = s + e, exactly
  real low = (e - p_err) - n * kC3;
  rh = s + low;
  rl = (s - rh) + low;
  return quadrant;
}

// sin(rh + rl) for |rh| <= pi/4 (plus a hair), |rl| <= ulp(rh).
inline real sin_poly(real rh, real rl) {
  real z = rh * rh;
  // Horner in z: -1/3! + z (1/5! - z (...)), the terms above r.
  real p = kTaylor.c[kSinLast];
#pragma GCC unroll 16
  for (int k = kSinLast - 2; k >= 3; k -= 2) p = fmadd(p, z, kTaylor.c[k]);
  return rh + fmadd(rh * z, p, rl * (1 - real(0.5) * z));
}

// cos(rh + rl), same ranges: 1 - z/2 + z^2 (1/4! - ...), the leading 1 - z/2 split as fdlibm
// does (w = 1 - z/2 rounded, and what the rounding dropped added back with the small terms).
inline real cos_poly(real rh, real rl) {
  real z = rh * rh;
  real z_err = fmadd(rh, rh, -z);  // rh^2 = z + z_err exactly
  real p = kTaylor.c[kCosLast];  // 1/4! - z (1/6! - ...), the terms above z^2
#pragma GCC unroll 16
  for (int k = kCosLast - 2; k >= 4; k -= 2) p = fmadd(p, z, kTaylor.c[k]);
  real hz = real(0.5) * z;
  real w = 1 - hz;
  real small = fmadd(z * z, p, -(real(0.5) * z_err + rh * rl));
  return w + (((1 - w) - hz) + small);
}

[[noreturn]] void trig_out_of_range(const char* name, real x) {
  throw Error(std::string("heed::math::") + name + ": |x| = " + std::to_string(x) + " is above " +
              std::to_string(L::kTrigMax) + ", beyond which heed's reduction by pi/2 is not exact");
}

// ---- pow ------------------------------------------------------------------------------------

// Whether y (finite) is an integer, and an odd one. |y| >= 2^mantissa is an even integer.
inline bool is_integer(real y, bool& odd) {
  real a = y < 0 ? -y : y;
  constexpr real kBig = real(Int(1) << L::kMantissa);
  odd = false;
  if (a >= kBig) return true;
  real rounded = (a + kBig) - kBig;  // a rounded to an integer (round to nearest even)
  if (rounded != a) return false;
  odd = (static_cast<Int>(a) & 1) != 0;
  return true;
}

// log x as an unevaluated sum hi + lo, to about 2^-60 relative in double: the log above with
// every term but the smallest kept as a pair -- k ln2 with ln2 in two parts, f - h by two-sum,
// h = f^2/2 and s (h + R) split by fma, s = f / (2 + f) with its rounding error -- so that only
// R (below 0.02 of the result) and the pairs' small parts round. For finite x > 0.
inline real log_pair(real x, real& lo) {
  Int k;
  real m = split_exponent(x, k);
  real f = m - 1;
  real ff = f * f;
  real ff_err = fmadd(f, f, -ff);  // f^2 = ff + ff_err
  real h = real(0.5) * ff, h_err = real(0.5) * ff_err;
  // s = f / (2 + f) = s + s_lo: d + d_err = 2 + f exactly, then the quotient's remainder.
  real d_err;
  real d = two_sum(2, f, d_err);
  real s = f / d;
  real s_lo = (fmadd(-s, d, f) - s * d_err) / d;
  real R = log_series(s * s);
  real hR_err;
  real hR = two_sum(h, R, hR_err);   // h + R = hR + hR_err
  real t = s * hR;
  real t_err = fmadd(s, hR, -t) + (s * hR_err + s_lo * hR);  // s (h + R) = t + t_err
  constexpr real kLn2 = sizeof(real) == 8 ? real(0x1.62e42fefa39efp-1) : real(0x1.62e43p-1);
  constexpr real kLn2Low = sizeof(real) == 8 ? real(0x1.abc9e3b39803fp-56) : real(-0x1.05c610ca86c39p-29);
  real kr = static_cast<real>(k);
  real kl_hi = kr * kLn2;
  real kl_err = fmadd(kr, kLn2, -kl_hi) + kr * kLn2Low;  // k ln2 = kl_hi + kl_err
  // log x = kl_hi + (f - h) + t + (the small parts), summed from the large terms by two-sums.
  real e1, e2, e3;
  real a = two_sum(f, -h, e1);   // f - h = a + e1
  real b = two_sum(a, t, e2);    // a + t = b + e2
  real c = two_sum(kl_hi, b, e3);
  real rest = e3 + (e2 + (e1 + (kl_err + (t_err - h_err))));
  real hi = c + rest;
  lo = (c - hi) + rest;
  return hi;
}

}  // namespace

real exp(real x) {
  if (is_nan(x)) return x;
  if (x > L::kExpOver) return kInf;
  if (x < L::kExpUnder) return 0;
  Int n;
  real m = exp_parts(x, n);
  return scale_up(n, m);
}

real log(real x) {
  if (is_nan(x) || x < 0) return kNaN;
  if (x == 0) return -kInf;
  if (x == kInf) return x;
  Int k;
  real m = split_exponent(x, k);
  real f = m - 1;
  real h = real(0.5) * f * f;
  real s;
  real tail = log_tail(f, h, s);
  real kr = static_cast<real>(k);
  return fmadd(kr, L::kLn2Hi, f - (h - fmadd(kr, L::kLn2Lo, tail)));
}

// The vector kernel's tanh_v, one lane: tanh|x| = -(e^u - 1) / (2 + (e^u - 1)) with u = -2|x|,
// e^u - 1 = 2^n (e^r - 1) + (2^n - 1) keeping full relative accuracy near 0.
real tanh(real x) {
  bool negative = std::bit_cast<Int>(x) < 0;  // the sign bit, also of -0 and of NaN
  real u = -2 * (negative ? -x : x);
  u = u < L::kTanhFloor ? L::kTanhFloor : u;  // (a NaN stays NaN)
  Int n;
  real m = exp_parts(u, n);
  real scale = two_to(n);
  real em1 = fmadd(scale, m, scale - 1);  // e^u - 1, in (-1, 0]
  real t = -em1 / (2 + em1);              // tanh|x|: >= 0 but for the sign of a zero
  Int bits = std::bit_cast<Int>(t) & std::numeric_limits<Int>::max();
  return std::bit_cast<real>(negative ? bits | std::numeric_limits<Int>::min() : bits);
}

// The vector kernel's sigmoid_v, one lane.
real sigmoid(real x) {
  real u = x < 0 ? x : -x;  // -|x|; a NaN stays NaN
  Int n;
  real m = exp_parts(u < L::kExpFloor ? L::kExpFloor : u, n);
  real scale = two_to(n);
  real w = fmadd(scale, m, scale);  // e^-|x|
  w = u < L::kExpFloor ? 0 : w;
  return x >= 0 ? 1 / (1 + w) : w / (1 + w);
}

real sin(real x) {
  if (is_nan(x) || x == kInf || x == -kInf) return kNaN;
  if ((x < 0 ? -x : x) > L::kTrigMax) trig_out_of_range("sin", x);
  real rh, rl;
  int q = reduce_half_pi(x, rh, rl);
  if (x == 0) return x;  // keeps -0
  real v = q & 1 ? cos_poly(rh, rl) : sin_poly(rh, rl);
  return q & 2 ? -v : v;
}

real cos(real x) {
  if (is_nan(x) || x == kInf || x == -kInf) return kNaN;
  if ((x < 0 ? -x : x) > L::kTrigMax) trig_out_of_range("cos", x);
  real rh, rl;
  int q = reduce_half_pi(x, rh, rl);
  // cos x = sin(x + pi/2): quadrant q + 1.
  real v = q & 1 ? sin_poly(rh, rl) : cos_poly(rh, rl);
  return (q + 1) & 2 ? -v : v;
}

// x^y = e^(y log x), the product y (hi + lo) kept as a pair p + p_lo, and
// e^(p + p_lo) = 2^n (1 + m) (1 + p_lo) = 2^n (1 + (m + p_lo (1 + m))).
real pow(real x, real y) {
  if (y == 0 || x == 1) return 1;
  if (is_nan(x) || is_nan(y)) return kNaN;
  real ax = x < 0 ? -x : x;
  if (y == kInf || y == -kInf) {
    if (ax == 1) return 1;
    return (ax < 1) == (y < 0) ? kInf : 0;
  }
  bool odd = false;
  bool integer = is_integer(y, odd);
  bool negate = std::bit_cast<Int>(x) < 0 && odd;  // also -0 and -inf: the sign survives an odd power
  real magnitude;
  if (ax == 0) {
    magnitude = y < 0 ? kInf : 0;
  } else if (ax == kInf) {
    magnitude = y < 0 ? 0 : kInf;
  } else if (x < 0 && !integer) {
    return kNaN;
  } else {
    real lo;
    real hi = log_pair(ax, lo);
    real p = y * hi;
    real p_lo = fmadd(y, hi, -p) + y * lo;  // y (hi + lo) = p + p_lo, to about 2^-60
    if (p > L::kExpOver) {
      magnitude = kInf;
    } else if (p < L::kExpUnder) {
      magnitude = 0;
    } else {
      Int n;
      real m = exp_parts(p, n);
      magnitude = scale_up(n, m + fmadd(p_lo, m, p_lo));
    }
  }
  return negate ? -magnitude : magnitude;
}

}  // namespace heed::math
