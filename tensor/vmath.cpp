// Vectorised tanh, sigmoid and dot product, with the vector type Vec of tensor/simd.h (kLanes
// doubles, lane by lane arithmetic). Every fused multiply-add is written out (fmadd), so each
// result has the same bits on every machine and with every compiler. Both tanh and sigmoid come
// down to e^u for u <= 0:
//
//   u = n ln2 + r, n = round(u / ln2), |r| <= ln2 / 2      (range reduction, ln2 in two parts)
//   e^r - 1 = r + r^2 (1/2! + r (1/3! + ... + r / 13!))  (Taylor: the next term is < 4e-18)
//   e^u = 2^n (1 + (e^r - 1)),  e^u - 1 = 2^n (e^r - 1) + (2^n - 1)
//
// 2^n is built from its bits, and e^u - 1 keeps full relative accuracy near 0, which
// tanh(x) = -(e^-2|x| - 1) / (2 + (e^-2|x| - 1)) needs for small x.
#include "tensor/vmath.h"

#include <bit>
#include <cstring>

#include "tensor/simd.h"

namespace heed {

namespace {

using simd::fmadd;
using simd::kLanes;
using simd::load;
using simd::splat;
using simd::store;
using simd::Vec;
typedef int64_t Bits __attribute__((vector_size(simd::kVectorBytes)));

constexpr real kLog2e = 1.4426950408889634074;
constexpr real kLn2Hi = 6.93147180369123816490e-01;  // ln2's leading bits: n kLn2Hi is exact
constexpr real kLn2Lo = 1.90821492927058770002e-10;  // ln2 - kLn2Hi
constexpr real kRound = 0x1.8p52;                     // adding it rounds to an integer, kept in the low bits

// The helpers are forced inline so that the block loops below see one straight run of
// vector instructions (and the compiler can overlap consecutive blocks).
// For u <= 0 (and u >= -1022 ln2): sets scale = 2^n and returns e^r - 1, so that
// e^u = scale (1 + result).
[[gnu::always_inline]] inline Vec exp_parts(Vec u, Vec& scale) {
  Vec shifted = fmadd(u, splat(kLog2e), splat(kRound));  // n in the low bits of the mantissa
  Vec n = shifted - kRound;
  Vec r = fmadd(-n, splat(kLn2Hi), u);
  r = fmadd(-n, splat(kLn2Lo), r);
  Bits k = (Bits)shifted - std::bit_cast<int64_t>(kRound);  // n as an integer
  scale = (Vec)((k + 1023) << 52);                             // 2^n: n + 1023 in the exponent bits
  // 1/2!, 1/3!, ..., 1/13!, Horner from the highest.
  constexpr real kInvFactorial[] = {1.0 / 2,           1.0 / 6,           1.0 / 24,          1.0 / 120,
                                    1.0 / 720,         1.0 / 5040,        1.0 / 40320,       1.0 / 362880,
                                    1.0 / 3628800,     1.0 / 39916800,    1.0 / 479001600,   1.0 / 6227020800};
  Vec q = splat(kInvFactorial[11]);
  for (int i = 10; i >= 0; --i) q = fmadd(q, r, splat(kInvFactorial[i]));
  return fmadd(r * r, q, r);
}

[[gnu::always_inline]] inline Vec tanh_v(Vec x) {
  const Bits sign = (Bits)x & INT64_MIN;  // a vector cast keeps the bits
  Vec u = -2 * (Vec)((Bits)x & INT64_MAX);
  u = u < -50 ? splat(-50) : u;  // tanh(25) is 1 to within 4e-22: the rounding gives 1 from here on
  Vec scale;
  Vec m = exp_parts(u, scale);
  Vec em1 = fmadd(scale, m, scale - 1);  // e^u - 1, in (-1, 0]
  Vec t = -em1 / (2 + em1);      // tanh |x|, >= 0 but for the sign of a zero
  return (Vec)(((Bits)t & INT64_MAX) | sign);  // tanh is odd
}

[[gnu::always_inline]] inline Vec sigmoid_v(Vec x) {
  Vec u = x < 0 ? x : -x;  // -|x|; a NaN stays NaN
  Vec scale;
  Vec m = exp_parts(u < -708 ? splat(-708) : u, scale);
  Vec w = fmadd(scale, m, scale);  // e^-|x|
  w = u < -708 ? splat(0) : w;
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

real dot_n(const real* a, const real* b, int64_t n) {
  Vec s0{}, s1{};  // two sums in flight cover the add's latency
  int64_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    s0 = fmadd(load(a + i), load(b + i), s0);
    s1 = fmadd(load(a + i + kLanes), load(b + i + kLanes), s1);
  }
  for (; i + kLanes <= n; i += kLanes) s0 = fmadd(load(a + i), load(b + i), s0);
  real tail = 0;
  for (; i < n; ++i) tail = fmadd(a[i], b[i], tail);
  Vec s = s0 + s1;
  real total = 0;
  for (int l = 0; l < kLanes; ++l) total += s[l];
  return total + tail;
}

}  // namespace heed
