// The vector that the kernels (tensor/gemm_kernel.cpp, tensor/vmath_kernel.cpp, tensor/vmath.cpp)
// compute with: Vec holds kLanes values of heed::real and gives +, -, *, /, comparisons, ?: and []
// lane by lane (GCC's vector extension, which clang shares). Its width is fixed when a file is
// compiled, not taken from the machine: 32 bytes unless HEED_VECTOR_BYTES says 64 (the kernel set
// built for AVX-512, tensor/kernels.h). 32 bytes is one register with AVX, two 16-byte halves
// with NEON (ARM64) or plain SSE2, split by the compiler.
//
// Why the width cannot change a result: the kernels never let it decide an order of summation.
// Every element of a product is one chain of fused multiply-adds in ascending k, every lane of
// tanh and sigmoid runs the same instructions as every other, whatever the width; only dot_n
// (tensor/vmath.cpp) sums across lanes, so it is built at 32 bytes only. fmadd is one rounding
// everywhere, and with -ffp-contract=off (the Makefile) nothing else is fused: the kernels give
// the same bits on x86 and ARM, with g++ and clang++, and with every kernel set.
//
// Internal to the kernels; nothing else includes it. It includes nothing of the standard library
// that has out-of-line code (see the Makefile's check on the kernel sets' objects).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tensor/real.h"
#if defined(__FMA__) && defined(__AVX__)
#include <immintrin.h>
#endif

// Without AVX, GCC warns that a 32-byte vector is passed differently than with it (-Wpsabi);
// these functions never cross from one object file to another, so the convention cannot clash.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#ifndef HEED_VECTOR_BYTES
#define HEED_VECTOR_BYTES 32
#endif

namespace heed::simd {

constexpr int kVectorBytes = HEED_VECTOR_BYTES;
static_assert(kVectorBytes == 32 || kVectorBytes == 64, "HEED_VECTOR_BYTES: 32 or 64");
typedef real Vec __attribute__((vector_size(kVectorBytes)));
constexpr int kLanes = kVectorBytes / sizeof(real);

// An unaligned load and store (vmovupd), with no aliasing worries.
[[gnu::always_inline]] inline Vec load(const real* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

[[gnu::always_inline]] inline void store(real* p, Vec v) { std::memcpy(p, &v, sizeof v); }

// x in every lane (vbroadcastsd; x - 0 is exactly x, also for -0).
[[gnu::always_inline]] inline Vec splat(real x) { return x - Vec{}; }

// The scalar fused multiply-add acc + x * y, one rounding: one instruction where the compiler
// targets FMA (x86 with -mfma, ARM64), else a call to the C library's fma.
[[gnu::always_inline]] inline real fmadd(real x, real y, real acc) {
  if constexpr (sizeof(real) == 8)
    return __builtin_fma(x, y, acc);
  else
    return __builtin_fmaf(x, y, acc);
}

// The 32-byte vector type of each precision, for the two halves of a 64-byte Vec on AVX2.
typedef real Half __attribute__((vector_size(32)));

#if defined(__FMA__) && defined(__AVX__)
// acc + x * y on one 32-byte register (vfmadd231pd, or vfmadd231ps in the float build).
// Always inlined, also at -O0: a function the compiler emits out of line in a kernel set's object
// would be one that other objects could share (see the Makefile's check), and a lambda here did
// just that at -O0. (A template only so that the intrinsics of the other precision are never compiled.)
template <class H>
  requires std::is_same_v<H, Half>
[[gnu::always_inline]] inline H fma32(H a, H b, H c) {
  if constexpr (sizeof(real) == 8)
    return _mm256_fmadd_pd(a, b, c);
  else
    return _mm256_fmadd_ps(a, b, c);
}
#endif

// acc + x * y with one rounding, lane by lane: vfmadd231pd with AVX-512 or AVX2 and FMA (a 64-byte
// Vec on AVX2, the avx2_wide set, takes two); elsewhere the scalar fmadd per lane, which ARM64 does
// in hardware. Written out where a kernel wants it: the compiler never fuses on its own.
// (A template only so that the intrinsics of the other precision are never compiled.)
template <class V>
  requires std::is_same_v<V, Vec>
[[gnu::always_inline]] inline V fmadd(V x, V y, V acc) {
#if defined(__AVX512F__)
  if constexpr (kVectorBytes == 64) {
    if constexpr (sizeof(real) == 8)
      return _mm512_fmadd_pd(x, y, acc);
    else
      return _mm512_fmadd_ps(x, y, acc);
  }
#endif
#if defined(__FMA__) && defined(__AVX__)
  if constexpr (kVectorBytes == 32) {
    return fma32(x, y, acc);
  } else {
    Half h[3][2];
    std::memcpy(h[0], &x, sizeof x);
    std::memcpy(h[1], &y, sizeof y);
    std::memcpy(h[2], &acc, sizeof acc);
    Half r[2] = {fma32(h[0][0], h[1][0], h[2][0]), fma32(h[0][1], h[1][1], h[2][1])};
    V out;
    std::memcpy(&out, r, sizeof out);
    return out;
  }
#else
  V r;
  for (int l = 0; l < kLanes; ++l) r[l] = fmadd(real(x[l]), real(y[l]), real(acc[l]));
  return r;
#endif
}

}  // namespace heed::simd
