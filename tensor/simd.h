// The vector that the kernels (tensor/gemm.cpp, tensor/vmath.cpp) compute with: Vec holds kLanes
// values of heed::real and gives +, -, *, /, comparisons, ?: and [] lane by lane (GCC's vector
// extension, which clang shares). It is 32 bytes on every target: one register with AVX, two
// 16-byte halves with NEON (ARM64) or plain SSE2, split by the compiler. A fixed width, not the
// machine's, keeps the order of every sum the same everywhere, and fmadd is one rounding
// everywhere: with -ffp-contract=off (the Makefile) the kernels give the same bits on x86 and ARM,
// with g++ and with clang++. Internal to the kernels; nothing else includes it.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tensor/tensor.h"
#if defined(__FMA__) && defined(__AVX__)
#include <immintrin.h>
#endif

// Without AVX, GCC warns that a 32-byte vector is passed differently than with it (-Wpsabi);
// these functions never cross from one object file to another, so the convention cannot clash.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace heed::simd {

constexpr int kVectorBytes = 32;
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

// acc + x * y with one rounding, lane by lane: vfmadd231pd with AVX2 and FMA; elsewhere std::fma
// per lane, which ARM64 does in hardware (and an x86 without FMA in software: right, but slow).
// Written out where a kernel wants it: the compiler never fuses on its own (-ffp-contract=off).
// (A template only so that the intrinsic of the other precision is never compiled.)
template <class V>
  requires std::is_same_v<V, Vec>
[[gnu::always_inline]] inline V fmadd(V x, V y, V acc) {
#if defined(__FMA__) && defined(__AVX__)
  if constexpr (sizeof(real) == 8)
    return _mm256_fmadd_pd(x, y, acc);
  else
    return _mm256_fmadd_ps(x, y, acc);
#else
  V r;
  for (int l = 0; l < kLanes; ++l) r[l] = std::fma(x[l], y[l], acc[l]);
  return r;
#endif
}

// The scalar twin: the same one rounding.
[[gnu::always_inline]] inline real fmadd(real x, real y, real acc) { return std::fma(x, y, acc); }

}  // namespace heed::simd
