// The kernel sets. The code that decides heed's speed -- the matrix product (tensor/gemm_kernel.cpp)
// and the vectorised tanh and sigmoid (tensor/vmath_kernel.cpp) -- is compiled once per instruction
// set, and a program uses the widest set its processor runs, chosen when it first needs one:
//
//   avx512     AVX-512 (F, VL, BW, DQ) and FMA: 64-byte vectors, 32 registers
//   avx2       AVX2 and FMA: 32-byte vectors (what the rest of heed is built for on such a machine)
//   avx2_wide  avx512's code (64-byte vectors) on AVX2, two registers a vector: never chosen by
//              itself; it exists so that every AVX2 machine tests the arithmetic of avx512's code
//   portable   the target's baseline (x86-64: SSE2, the C library's fma per lane: slow, and right)
//
// x86-64 builds (g++ or clang++) have all four; other targets, ARM64 among them, have portable
// alone, compiled for the target (on ARM64: NEON with hardware fma).
//
// Every set computes every element with the same operations in the same order (the tile and the
// vector width decide which elements are computed together, never how), so results are
// bit-identical whichever set runs: tests/tensor/kernels_test.cpp runs each set this processor can run
// on the same inputs and compares their bits. HEED_KERNELS=<name> in the environment chooses a
// set instead of the processor (`heed --version` says which runs).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tensor/real.h"

namespace heed {

struct KernelSet {
  const char* name;
  const char* needs;  // what the processor must have, in words
  bool (*runs_here)();
  // As tensor/gemm.h's gemm, gemm_packed and gemm_small, with the packing buffers: scratch(0, n)
  // and scratch(1, n) give room for n reals for A and for B (tensor/gemm.cpp keeps them per thread).
  using Scratch = real* (*)(int which, int64_t n);
  using Gemm = void (*)(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A,
                        const real* B, real* C, bool accumulate, Scratch scratch);
  Gemm gemm, gemm_packed, gemm_small;
  // gemm's C[i0:i1, j0:j1] alone, bit for bit gemm's values: a tile for a thread (tensor/gemm.cpp).
  void (*gemm_tile)(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B,
                    real* C, bool accumulate, Scratch scratch, int64_t i0, int64_t i1, int64_t j0, int64_t j1);
  // As tensor/vmath.h's tanh_n and sigmoid_n.
  void (*tanh_n)(const real* x, real* y, int64_t n);
  void (*sigmoid_n)(const real* x, real* y, int64_t n);
};

// Every set of this build, portable first.
std::span<const KernelSet> kernel_sets();

// The set in use. The first call chooses it: HEED_KERNELS if set, else the first of avx512, avx2
// and portable that this build has and this processor runs. Throws Error if HEED_KERNELS names a
// set this build lacks or this processor cannot run (the message lists those it can).
const KernelSet& kernels();

// Uses the named set from now on, in every thread (the tests compare the sets). Throws Error
// as kernels() does.
void use_kernels(std::string_view name);

// The sets this build has that this processor runs, as "portable, avx2, avx2_wide".
std::string runnable_kernel_names();

}  // namespace heed
