// heed's own elementary functions: exp, log, tanh, sigmoid, sin, cos and pow of one real.
//
// Why heed computes them itself: the C library's exp or sin is not the same on every system.
// IEEE 754 requires + - * / sqrt and fma to be correctly rounded, so those give the same bits on
// every machine; it does not require that of exp, log, sin or pow, and glibc, Apple's libm and
// musl differ in the last bit here and there. One last bit in a softmax, an initial weight or a
// positional encoding is enough to make a training's loss differ after a few hundred steps, and
// the chapters' printed numbers and the fixed-seed checkpoint hashes with it. Written here from
// + - * / sqrt and fma alone, each function gives the same bits on every C library, compiler
// and processor (tests/tensor/ch01_math_test.cpp compares them with the C library over their domains and
// holds the library's objects to calling no other libm function; chapter 01's "How heed
// computes exp" walks through exp).
//
// Each function follows one plan: a range reduction that is exact, or nearly so (x = n ln2 + r,
// x = n pi/2 + r, x = 2^k m), then a polynomial on the small remainder, then the reconstruction.
// Every polynomial is a Taylor series cut where its next term falls below half a unit in the last
// place; the degrees and constants are in tensor/math.cpp (and, for exp, here: the vector kernels
// of tensor/vmath_kernel.cpp share them and compute the same bits). The error bounds below are the
// largest errors tests/tensor/ch01_math_test.cpp measures against the C library, in units in the last place
// (ulp) of the exact result, rounded up; the C library itself is within 1 ulp of the exact value.
//
// This header declares only, with constants that the vector kernels share: it has no inline code
// (the kernel sets' objects may define no code other files share, see the Makefile).
#pragma once

#include <cstdint>

#include "tensor/real.h"

namespace heed::math {

// e^x. Max error 1 ulp (measured 0.97 in double, 0.96 in float). Exact at 0 (1); e^x overflows
// to inf above ln(max real) (709.78 in double, 88.72 in float) and underflows through the
// subnormals to 0 below ln(smallest subnormal / 2) (-745.13, -103.97). NaN gives NaN.
real exp(real x);

// Natural logarithm. Max error 1 ulp (measured 0.83, float 0.80). log(1) = 0 exactly,
// log(+-0) = -inf, log(inf) = inf, log(x < 0) and log(NaN) = NaN. Subnormal x is accurate too.
real log(real x);

// tanh(x) = (e^2x - 1) / (e^2x + 1), from e^-2|x| - 1 so that small x keep full accuracy; odd
// (tanh(-x) = -tanh(x) exactly, and -0 stays -0). Max error 3 ulp (measured 2.50, float 2.49).
// +-1 from |x| = 25 (float: 10).
real tanh(real x);

// 1 / (1 + e^-x), computed without overflow: 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below.
// Max error 3 ulp (measured 2.21, float 2.19). 0 below x = -708 (float: -87), where the exact
// value is under 3e-308 (2e-38): the vector kernel's floor, kept here so the two agree to the bit.
real sigmoid(real x);

// sin(x) and cos(x) for |x| <= kTrigMax (2^30 in double, 2^16 in float), where the reduction by
// pi/2 is exact to far below the last place. Max error 1 ulp (measured: sin 0.72, cos 0.73; float
// 0.71, 0.69). sin(-0) = -0; inf and NaN give NaN; a finite |x| above kTrigMax throws heed::Error
// (heed's uses stay below 2^14: positions and the normal initialiser's angle).
real sin(real x);
real cos(real x);

// x^y = e^(y log x), with log x carried as a pair of reals (to about 2^-58 relative) so that the
// product y log x keeps nearly all of the result's last place. Max error 2 ulp where
// |y log x| <= 20 (heed's uses: Adam's beta^t, the positions' 10000^(-2i/D); measured 1.32, float
// 1.65), and 2 + |y log x| / 30 ulp beyond (the error of log x, times y log x; measured 19.4 up to
// |y log x| = 700, float 2.2). The C standard's special cases: x^0 = 1 and 1^y = 1 (even for
// NaN), 0^y, inf^y, x^inf, and negative x only with an integer y (else NaN).
real pow(real x, real y);

// What the functions need to know of real's binary layout and the constants they share with the
// vector kernels (tensor/vmath_kernel.cpp), for binary64 (double, the default) and binary32
// (float, `make float`).
template <class T>
struct Layout;

template <>
struct Layout<double> {
  using Int = int64_t;
  static constexpr int kMantissa = 52, kBias = 1023;
  // exp's Taylor polynomial for e^r - 1 on |r| <= ln2 / 2 stops at r^13 / 13!: the next term,
  // (ln2/2)^14 / 14!, is < 4e-18, below half an ulp of e^r - 1 (which is >= 0.29 |r|).
  static constexpr int kExpLastFactorial = 13;
  static constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln2's leading 32 bits: n kLn2Hi is exact
  static constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln2 - kLn2Hi
  static constexpr double kTanhFloor = -50;  // tanh(25) is 1 to within 4e-22: the rounding gives 1
  static constexpr double kExpFloor = -708;  // e^-708 is still a normal double (sigmoid's floor)
  static constexpr double kExpOver = 0x1.62e42fefa39efp+9;  // ln(max double): above it e^x is inf
  static constexpr double kExpUnder = -745.1332191019412;   // below ln(2^-1075), e^x rounds to 0
  static constexpr double kTrigMax = 0x1p30;
};

template <>
struct Layout<float> {
  using Int = int32_t;
  static constexpr int kMantissa = 23, kBias = 127;
  // Stops at r^8 / 8!: the next term, (ln2/2)^9 / 9!, is < 2e-10, far below half an ulp of e^r - 1
  // (stopping at r^7 / 7! left 5e-9, a sixth of an ulp, and exp measured 1.05 ulp).
  static constexpr int kExpLastFactorial = 8;
  static constexpr float kLn2Hi = 0.693359375f;     // 9 significant bits: n kLn2Hi is exact for |n| < 2^15
  static constexpr float kLn2Lo = -2.12194440e-4f;  // ln2 - kLn2Hi
  static constexpr float kTanhFloor = -20;  // tanh(10) is 1 to within 5e-9: the rounding gives 1
  static constexpr float kExpFloor = -87;   // e^-87 is still a normal float
  static constexpr float kExpOver = 0x1.62e42ep+6f;  // ln(max float) rounded down: 88.72
  static constexpr float kExpUnder = float(-103.97207708399179);  // ln(2^-150)
  static constexpr float kTrigMax = 0x1p16f;
};

// 1/2!, 1/3!, ..., 1/14!: exp's Taylor coefficients, Horner from the highest the Layout keeps.
inline constexpr double kInvFactorial[] = {1.0 / 2,         1.0 / 6,          1.0 / 24,        1.0 / 120,
                                           1.0 / 720,       1.0 / 5040,       1.0 / 40320,     1.0 / 362880,
                                           1.0 / 3628800,   1.0 / 39916800,   1.0 / 479001600, 1.0 / 6227020800,
                                           1.0 / 87178291200};
// log2(e) rounded to real: n = round(x log2 e) picks the reduction's multiple of ln2. Any n near
// x / ln2 would do; the reduction x - n ln2 is exact whatever n is.
inline constexpr double kLog2e = 1.4426950408889634074;

}  // namespace heed::math
