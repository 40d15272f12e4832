// Vectorised tanh and sigmoid, with the vector type Vec of tensor/simd.h (kLanes reals, lane by
// lane arithmetic: 4 doubles or 8 floats, twice as many in the avx512 set). Every fused
// multiply-add is written out (fmadd), and every lane runs the same instructions, so each result
// has the same bits on every machine, with every compiler and with every kernel set. Both tanh and sigmoid come
// down to e^u for u <= 0:
//
//   u = n ln2 + r, n = round(u / ln2), |r| <= ln2 / 2      (range reduction, ln2 in two parts)
//   e^r - 1 = r + r^2 (1/2! + r (1/3! + ... + r / 13!))  (Taylor: the next term is < 4e-18;
//                                                        float stops at 1/8!, see Layout)
//   e^u = 2^n (1 + (e^r - 1)),  e^u - 1 = 2^n (e^r - 1) + (2^n - 1)
//
// 2^n is built from its bits, and e^u - 1 keeps full relative accuracy near 0, which
// tanh(x) = -(e^-2|x| - 1) / (2 + (e^-2|x| - 1)) needs for small x.
//
// These are heed::math's exp_parts, tanh and sigmoid (tensor/math.cpp), lane by lane, with the
// constants of tensor/math.h's Layout: the reference, whose bits tests/tensor/ch01_math_test.cpp holds
// these to under every kernel set.
//
// This file is compiled once per kernel set (tensor/kernels.h), each time into its own namespace and
// with its own vector width; tensor/vmath.cpp is the entry. Nothing here may use out-of-line code of
// the standard library (see gemm_kernel.cpp).
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>

#include "tensor/math.h"
#include "tensor/simd.h"

#ifndef HEED_KERNEL_SET
#define HEED_KERNEL_SET portable
#endif

namespace heed::kernel_set::HEED_KERNEL_SET {

void tanh_n(const real* x, real* y, int64_t n);
void sigmoid_n(const real* x, real* y, int64_t n);

namespace {

using simd::fmadd;
using simd::kLanes;
using simd::load;
using simd::splat;
using simd::store;
using simd::Vec;

using L = math::Layout<real>;  // the constants heed::math's scalar functions use (tensor/math.h)
using Int = L::Int;
typedef Int Bits __attribute__((vector_size(simd::kVectorBytes)));
static_assert(sizeof(Bits) == sizeof(Vec) && sizeof(Int) == sizeof(real));

constexpr real kLog2e = real(math::kLog2e);
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
  // 1/2!, 1/3!, ..., 1/kExpLastFactorial!, Horner from the highest.
  constexpr int kLast = L::kExpLastFactorial - 2;  // the index of 1/kExpLastFactorial!
  Vec q = splat(real(math::kInvFactorial[kLast]));
  for (int i = kLast - 1; i >= 0; --i) q = fmadd(q, r, splat(real(math::kInvFactorial[i])));
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
