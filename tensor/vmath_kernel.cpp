// Vectorised tanh and sigmoid, with the vector type Vec of tensor/simd.h (kLanes reals, lane by
// lane arithmetic: 4 doubles or 8 floats, twice as many in the avx512 set). Every fused
// multiply-add is written out (fmadd), and every lane runs the same instructions, so each result
// has the same bits on every machine, with every compiler and with every kernel set. Both tanh and sigmoid come
// down to e^u for u <= 0:
//
//   u = n ln2 + r, n = round(u / ln2), |r| <= ln2 / 2      (range reduction, ln2 in two parts)
//   e^r - 1 = r + r^2 (1/2! + r (1/3! + ... + r / 13!))  (Taylor: the next term is < 4e-18;
//                                                        float stops at 1/7!, see Layout)
//   e^u = 2^n (1 + (e^r - 1)),  e^u - 1 = 2^n (e^r - 1) + (2^n - 1)
//
// 2^n is built from its bits, and e^u - 1 keeps full relative accuracy near 0, which
// tanh(x) = -(e^-2|x| - 1) / (2 + (e^-2|x| - 1)) needs for small x.
//
// This file is compiled once per kernel set (tensor/kernels.h), each time into its own namespace and
// with its own vector width; tensor/vmath.cpp is the entry. Nothing here may use out-of-line code of
// the standard library (see gemm_kernel.cpp).
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>

#include "tensor/simd.h"

#ifndef HEED_KERNEL_SET
#define HEED_KERNEL_SET portable
#endif

namespace heed::kernel_set::HEED_KERNEL_SET {

void tanh_n(const real* x, real* y, int64_t n);
void sigmoid_n(const real* x, real* y, int64_t n);

// What the range reduction needs to know of real's binary layout, for binary64 (double, the
// default) and binary32 (float, `make float`): Bits is the integer vector of the same width as
// Vec (4 x 64 or 8 x 32 bits), a real's mantissa has kMantissa bits and its exponent bias is
// kBias, and the Taylor polynomial stops at 1/kLastFactorial! (its next term is < 4e-18 for
// double, < 6e-9 for float: each below half a unit in the last place of e^r - 1).
template <class T>
struct Layout;
template <>
struct Layout<double> {
  using Int = int64_t;
  static constexpr int kMantissa = 52, kBias = 1023, kLastFactorial = 13;
  static constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln2's leading bits: n kLn2Hi is exact
  static constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln2 - kLn2Hi
  static constexpr double kTanhFloor = -50;   // tanh(25) is 1 to within 4e-22: the rounding gives 1
  static constexpr double kExpFloor = -708;   // e^-708 is still a normal double
};
template <>
struct Layout<float> {
  using Int = int32_t;
  static constexpr int kMantissa = 23, kBias = 127, kLastFactorial = 7;
  static constexpr float kLn2Hi = 0.693359375f;       // 9 significant bits: n kLn2Hi is exact for |n| < 2^15
  static constexpr float kLn2Lo = -2.12194440e-4f;    // ln2 - kLn2Hi
  static constexpr float kTanhFloor = -20;  // tanh(10) is 1 to within 5e-9: the rounding gives 1
  static constexpr float kExpFloor = -87;   // e^-87 is still a normal float
};
// (Outside the unnamed namespace below: the specialisation this build does not use is no warning.)

namespace {

using simd::fmadd;
using simd::kLanes;
using simd::load;
using simd::splat;
using simd::store;
using simd::Vec;

using L = Layout<real>;
using Int = L::Int;
typedef Int Bits __attribute__((vector_size(simd::kVectorBytes)));
static_assert(sizeof(Bits) == sizeof(Vec) && sizeof(Int) == sizeof(real));

constexpr real kLog2e = real(1.4426950408889634074);
constexpr real kLn2Hi = L::kLn2Hi;
constexpr real kLn2Lo = L::kLn2Lo;
constexpr real kRound = real(1.5) * real(Int(1) << L::kMantissa);  // adding it rounds to an integer, kept in the low bits
constexpr Int kRoundBits = std::bit_cast<Int>(kRound);  // (computed when compiling)
constexpr Int kSignBit = std::numeric_limits<Int>::min();
constexpr Int kMagnitude = std::numeric_limits<Int>::max();

// The helpers are forced inline so that the block loops below see one straight run of
// vector instructions (and the compiler can overlap consecutive blocks).
// For u <= 0 (and u >= -1022 ln2): sets scale = 2^n and returns e^r - 1, so that
// e^u = scale (1 + result).
[[gnu::always_inline]] inline Vec exp_parts(Vec u, Vec& scale) {
  Vec shifted = fmadd(u, splat(kLog2e), splat(kRound));  // n in the low bits of the mantissa
  Vec n = shifted - kRound;
  Vec r = fmadd(-n, splat(kLn2Hi), u);
  r = fmadd(-n, splat(kLn2Lo), r);
  Bits k = (Bits)shifted - kRoundBits;  // n as an integer
  scale = (Vec)((k + L::kBias) << L::kMantissa);         // 2^n: n + bias in the exponent bits
  // 1/2!, 1/3!, ..., 1/kLastFactorial!, Horner from the highest.
  constexpr real kInvFactorial[] = {1.0 / 2,           1.0 / 6,           1.0 / 24,          1.0 / 120,
                                    1.0 / 720,         1.0 / 5040,        1.0 / 40320,       1.0 / 362880,
                                    1.0 / 3628800,     1.0 / 39916800,    1.0 / 479001600,   1.0 / 6227020800};
  constexpr int kLast = L::kLastFactorial - 2;  // the index of 1/kLastFactorial!
  Vec q = splat(kInvFactorial[kLast]);
  for (int i = kLast - 1; i >= 0; --i) q = fmadd(q, r, splat(kInvFactorial[i]));
  return fmadd(r * r, q, r);
}

[[gnu::always_inline]] inline Vec tanh_v(Vec x) {
  const Bits sign = (Bits)x & kSignBit;  // a vector cast keeps the bits
  Vec u = -2 * (Vec)((Bits)x & kMagnitude);
  u = u < L::kTanhFloor ? splat(L::kTanhFloor) : u;  // from here on the rounding gives 1
  Vec scale;
  Vec m = exp_parts(u, scale);
  Vec em1 = fmadd(scale, m, scale - 1);  // e^u - 1, in (-1, 0]
  Vec t = -em1 / (2 + em1);      // tanh |x|, >= 0 but for the sign of a zero
  return (Vec)(((Bits)t & kMagnitude) | sign);  // tanh is odd
}

[[gnu::always_inline]] inline Vec sigmoid_v(Vec x) {
  Vec u = x < 0 ? x : -x;  // -|x|; a NaN stays NaN
  Vec scale;
  Vec m = exp_parts(u < L::kExpFloor ? splat(L::kExpFloor) : u, scale);
  Vec w = fmadd(scale, m, scale);  // e^-|x|
  w = u < L::kExpFloor ? splat(0) : w;
  // As tensor/elementwise.cpp: 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below.
  return x >= 0 ? 1 / (1 + w) : w / (1 + w);
}

// Applies f to x in blocks of kLanes; the tail goes through the same f in a zero-padded block.
template <class F>
void map_blocks(const real* x, real* y, int64_t n, F f) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(y + i, f(load(x + i)));
  if (i == n) return;
  real block[kLanes] = {};
  std::memcpy(block, x + i, sizeof(real) * (n - i));
  store(block, f(load(block)));
  std::memcpy(y + i, block, sizeof(real) * (n - i));
}

}  // namespace

void tanh_n(const real* x, real* y, int64_t n) { map_blocks(x, y, n, tanh_v); }

void sigmoid_n(const real* x, real* y, int64_t n) { map_blocks(x, y, n, sigmoid_v); }

}  // namespace heed::kernel_set::HEED_KERNEL_SET
