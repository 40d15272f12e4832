// The matrix-product kernel, built the way GotoBLAS and BLIS build theirs:
//
//   for each NC-wide column block of B                    (kept in L3)
//     for each KC-deep slice of the inner dimension
//       pack op(B)[KC, NC] into thin kNr-wide panels      (one panel sits in L1)
//       for each MC-tall row block of A
//         pack op(A)[MC, KC] into thin kMr-tall panels    (the block sits in L2)
//         for every kMr x kNr tile of C: the micro-kernel, kMr*kNr accumulators in registers
//
// Packing copies each block once into the exact order the micro-kernel reads it, so the kernel
// streams through contiguous memory whatever the transposition, and every loaded value of A and B
// is reused kNr and kMr times from registers. Edges are padded with zeros in the packed panels,
// so the kernel always computes a full tile; only the write-back to C looks at the edge.
// Thin products skip all this (see gemm_small): there the copying would cost more than it saves.
//
// Results depend only on the shapes and the data, never on alignment or timing: bit-identical
// from call to call. The order of summation differs from gemm_naive, hence tests with a tolerance.
#include "tensor/gemm.h"
//
// This file is compiled once per kernel set (tensor/kernels.h: portable, avx2, avx2_wide, avx512),
// each time into its own namespace and with its own vector width; tensor/gemm.cpp is the entry.
// Nothing here may use out-of-line code of the standard library (see the Makefile: an object of
// a wide set must not hand other files code for instructions the processor may lack).
#include <cstdint>

#include "tensor/simd.h"

#ifndef HEED_KERNEL_SET
#define HEED_KERNEL_SET portable
#endif

namespace heed::kernel_set::HEED_KERNEL_SET {

// Where the packed panels go: scratch(0, n) is room for n reals for A, scratch(1, n) for B,
// 64-byte aligned, kept from call to call by the caller (tensor/gemm.cpp, one pair per thread).
using Scratch = real* (*)(int which, int64_t n);

// The set's entries, as tensor/gemm.h describes gemm, gemm_packed and gemm_small.
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B, real* C,
          bool accumulate, Scratch scratch);
void gemm_packed(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B,
                 real* C, bool accumulate, Scratch scratch);
void gemm_small(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B,
                real* C, bool accumulate, Scratch scratch);
// C[i0:i1, j0:j1] of gemm's product, and nothing else of C: the tiles a thread pool hands out
// (tensor/gemm.cpp). Each element comes out bit-identical to gemm's (see "The small path").
void gemm_tile(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B,
               real* C, bool accumulate, Scratch scratch, int64_t i0, int64_t i1, int64_t j0, int64_t j1);

namespace {

inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

using simd::fmadd;
using simd::kLanes;
using simd::load;
using simd::splat;
using simd::store;
using simd::Vec;

// The register tile: kMr rows by kNr columns of C, i.e. 6 x 8 doubles (6 x 16 floats in the float
// build: the same registers, twice the lanes) = 12 ymm accumulators,
// plus 2 registers for a row of B and 1 for a broadcast value of A: 15 of AVX2's 16 registers
// (on ARM64, twice as many 16-byte halves: 30 of NEON's 32; with AVX-512's 64-byte vectors the
// tile is 6 x 16 doubles in 15 of its 32 zmm registers).
// Each step of k loads 2 vectors and 6 scalars and does 12 FMAs; 12 independent accumulators
// also cover the FMA latency (4 cycles x 2 FMA pipes = 8 in flight).
// The tile's size decides which elements are computed together, never how: the sets' tiles
// differ, their results do not.
constexpr int kMr = 6;
constexpr int kNr = 2 * kLanes;

// The cache blocks, in elements, for AMD EPYC Zen 4/5 (48 KB L1d, 1 MB L2 per core), checked with
// the bench_gemm suite (tests/tensor/bench_gemm_test.cpp):
// - kKc: a kKc x kNr panel of B (16 KB in double) and a kKc x kMr panel of A (12 KB) fit in L1
//   together. 256 is also the largest inner size of the models (H), so K is rarely split.
//   (In float, kKc is 512: a B panel 16 floats wide is then 32 KB and an A panel 12 KB, still in L1.)
// - kMc: the packed kMc x kKc block of A (96 x 256 doubles = 192 KB) stays in L2, next to the
//   B panels streaming through, while the kernel sweeps across the B panels.
// - kNc: the packed kKc x kNc block of B (256 x 3072 doubles = 6 MB) lives in L3.
// kKc, unlike the tile, must be the same in every kernel set: it decides where a sum is cut.
constexpr int64_t kKc = 256 * 8 / sizeof(real);
constexpr int64_t kMc = 96;
constexpr int64_t kNc = 3072;
static_assert(kMc % kMr == 0 && kNc % kNr == 0);

// A matrix as a strided view: element (r, c) is p[r * rs + c * cs]. op(A) and op(B) of every
// transposition form are such views, so the packing routines below handle all four forms.
struct View {
  const real* p;
  int64_t rs, cs;
  const real* at(int64_t r, int64_t c) const { return p + r * rs + c * cs; }
};

// Packing copies `lines` lines of a matrix, kc values deep, into panels of W lines: step k of a
// panel holds value k of each of its W lines, one after another -- exactly the order in which
// the micro-kernel reads them. Line r, value k is at src[r * line_stride + k * k_stride]. Lines
// past the last are zero, so the last panel is a full one too.
// For A the lines are rows of op(A) (W = kMr); for B they are columns of op(B) (W = kNr).
template <int W>
void pack(const real* src, int64_t line_stride, int64_t k_stride, int64_t lines, int64_t kc, real* dst) {
  for (int64_t l = 0; l < lines; l += W, src += W * line_stride) {
    int64_t w = min64(W, lines - l);
    if (w == W && line_stride == 1) {  // the W values of each step are contiguous: one copy
      for (int64_t k = 0; k < kc; ++k, dst += W) std::memcpy(dst, src + k * k_stride, W * sizeof(real));
    } else if (w == W) {  // a gather, with the line loop unrolled
      for (int64_t k = 0; k < kc; ++k, dst += W)
#pragma GCC unroll 16
        for (int r = 0; r < W; ++r) dst[r] = src[r * line_stride + k * k_stride];
    } else {  // the last, partial panel
      for (int64_t k = 0; k < kc; ++k, dst += W)
        for (int r = 0; r < W; ++r) dst[r] = r < w ? src[r * line_stride + k * k_stride] : 0;
    }
  }
}

// The micro-kernel: the kMr x kNr tile  a-panel (kc x kMr) ^T  x  b-panel (kc x kNr), summed in
// registers, then written to the m x n corner of C at c (rows ldc apart): stored, or added to
// what is there when add. m < kMr or n < kNr only on the edges of C. Row k of the B panel is at
// b + k * ldb: ldb is kNr for a packed panel, or the row stride of op(B) read in place.
void micro_kernel(int64_t kc, const real* a, const real* b, int64_t ldb, real* c, int64_t ldc, int64_t m,
                  int64_t n, bool add) {
  Vec acc[kMr][2];  // the tile of C: row r is acc[r][0] (columns 0 to kLanes-1) and acc[r][1]
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) acc[r][0] = acc[r][1] = Vec{};  // not `= {}`: GCC clears that in memory
  // Step k adds the outer product of column k of the A panel and row k of the B panel.
  for (int64_t k = 0; k < kc; ++k, a += kMr, b += ldb) {
    Vec b0 = load(b), b1 = load(b + kLanes);  // row k of the B panel
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {  // a[r], broadcast to all lanes, times that row
      acc[r][0] = fmadd(splat(a[r]), b0, acc[r][0]);
      acc[r][1] = fmadd(splat(a[r]), b1, acc[r][1]);
    }
  }
  if (m == kMr && n == kNr) {  // a full tile: straight into C
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      real* row = c + r * ldc;
      store(row, add ? load(row) + acc[r][0] : acc[r][0]);
      store(row + kLanes, add ? load(row + kLanes) + acc[r][1] : acc[r][1]);
    }
    return;
  }
  real tile[kMr][kNr];  // an edge tile: through memory, then only the m x n part that exists
  for (int r = 0; r < kMr; ++r) {
    store(tile[r], acc[r][0]);
    store(tile[r] + kLanes, acc[r][1]);
  }
  for (int64_t r = 0; r < m; ++r)
    for (int64_t j = 0; j < n; ++j) c[r * ldc + j] = add ? c[r * ldc + j] + tile[r][j] : tile[r][j];
}

// The blocked product C (+)= a b for views a (M x K) and b (K x N), C row-major [M, N] with rows
// ldc apart (ldc > N for a tile of a larger C).
//
// When op(B)'s rows are contiguous and A fits in one row block (M <= kMc), each B panel would be
// read by only a few tiles after packing: then the kernel reads B where it lies, row k of a panel
// at b.at(k, j), and only a last, narrower panel is packed (its zero padding keeps the kernel's
// loads inside the matrix). Measured with bench_gemm ("gemm GFLOP/s on the models' shapes"): the
// GRU product of config S (32 x 192 x 64, A B) went from 37 to 46 GFLOP/s; the large products are
// unchanged (they pack as before). The arithmetic is the same either way, bit for bit.
void gemm_blocked(View a, View b, int64_t M, int64_t N, int64_t K, real* C, int64_t ldc, bool accumulate,
                  Scratch scratch) {
  if (K == 0 && !accumulate)  // an empty sum
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = 0;
  const bool b_in_place = b.cs == 1 && M <= kMc;
  for (int64_t jc = 0; jc < N; jc += kNc) {
    int64_t nc = min64(kNc, N - jc);
    for (int64_t pc = 0; pc < K; pc += kKc) {
      int64_t kc = min64(kKc, K - pc);
      const int64_t full = b_in_place ? nc / kNr * kNr : 0;  // columns read in place
      real* bp = scratch(1, (nc - full + kNr - 1) / kNr * kNr * kc);  // ((nc-full)/kNr panels, kc, kNr)
      pack<kNr>(b.at(pc, jc + full), b.cs, b.rs, nc - full, kc, bp);
      bool add = accumulate || pc > 0;  // later slices of K add to the earlier ones
      for (int64_t ic = 0; ic < M; ic += kMc) {
        int64_t mc = min64(kMc, M - ic);
        real* ap = scratch(0, (mc + kMr - 1) / kMr * kMr * kc);  // (mc/kMr panels, kc, kMr)
        pack<kMr>(a.at(ic, pc), a.rs, a.cs, mc, kc, ap);
        for (int64_t jr = 0; jr < nc; jr += kNr) {  // one B panel stays in L1 ...
          const bool in_place = jr < full;
          const real* panel = in_place ? b.at(pc, jc + jr) : bp + (jr - full) * kc;
          const int64_t ldb = in_place ? b.rs : kNr;
          for (int64_t ir = 0; ir < mc; ir += kMr)  // ... while the A panels stream from L2
            micro_kernel(kc, ap + ir * kc, panel, ldb, C + (ic + ir) * ldc + jc + jr, ldc,
                         min64(kMr, mc - ir), min64(kNr, nc - jr), add);
        }
      }
    }
  }
}

// ---- The small path: no packing, straight from A and B, still in vector registers.
//
// Every path computes each element of C with the same operations in the same order: k runs in
// slices of kKc; within a slice, an accumulator starts at zero and takes one fused multiply-add
// per k, in ascending k; the slice's sum is then added to C (or stored, for the first slice when
// not accumulating). So a row of C does not depend on how many other rows or columns the product
// has, nor on which path computed it -- the property that keeps padding from changing a result
// (a sequence alone or in a batch gives bit-identical outputs).
//
// Without packed panels there is no zero padding to run into, so these tiles pad by overlap:
// a tile that would run past the last column of C recomputes columns it already has (with the
// same operations in the same order, so with bit-identical values) and stores them once more.
// Products thinner than the micro-kernel's tile take this path, with 2 rows x up to 5 vectors.

// Row form, for op(B) with contiguous rows (b.cs == 1). For rows i0 and i1 of C (i1 < 0: only
// i0) and its n columns from j, n in ((V-1) kLanes, V kLanes] and n >= kLanes:
//   C[i, j:j+n] (+)= sum_k op(A)(i, k) op(B)(k, j:j+n),
// the vectors of C held in registers over each slice of k. When n is not a multiple of kLanes,
// the last vector starts at j + n - kLanes, overlapping the one before it.
template <int V>
void row_tile(View a, View b, int64_t i0, int64_t i1, int64_t j, int64_t n, int64_t K, real* C, int64_t ldc,
              bool accumulate) {
  int64_t start[V];  // where each vector begins, from column j
  for (int v = 0; v < V; ++v) start[v] = min64(v * kLanes, n - kLanes);
  real* c0 = C + i0 * ldc + j;
  real* c1 = C + max64(i1, i0) * ldc + j;
  for (int64_t pc = 0; pc < K || pc == 0; pc += kKc) {
    int64_t end = min64(K, pc + kKc);
    Vec acc0[V], acc1[V];
#pragma GCC unroll 5
    for (int v = 0; v < V; ++v) acc0[v] = acc1[v] = Vec{};  // (see micro_kernel)
    if (i1 >= 0) {
      for (int64_t k = pc; k < end; ++k) {  // acc0: row i0, acc1: row i1
        Vec x0 = splat(*a.at(i0, k)), x1 = splat(*a.at(i1, k));
        const real* row = b.at(k, j);
#pragma GCC unroll 5
        for (int v = 0; v < V; ++v) {
          Vec y = load(row + start[v]);
          acc0[v] = fmadd(x0, y, acc0[v]);
          acc1[v] = fmadd(x1, y, acc1[v]);
        }
      }
    } else {
      for (int64_t k = pc; k < end; ++k) {
        Vec x0 = splat(*a.at(i0, k));
        const real* row = b.at(k, j);
#pragma GCC unroll 5
        for (int v = 0; v < V; ++v) acc0[v] = fmadd(x0, load(row + start[v]), acc0[v]);
      }
    }
    // All loads of C before any store, so that overlapping vectors store equal values.
    if (accumulate || pc > 0)
#pragma GCC unroll 5
      for (int v = 0; v < V; ++v) {
        acc0[v] = load(c0 + start[v]) + acc0[v];
        acc1[v] = load(c1 + start[v]) + acc1[v];
      }
#pragma GCC unroll 5
    for (int v = 0; v < V; ++v) {
      if (i1 >= 0) store(c1 + start[v], acc1[v]);
      store(c0 + start[v], acc0[v]);
    }
  }
}

void small_rows(View a, View b, int64_t M, int64_t N, int64_t K, real* C, int64_t ldc, bool accumulate) {
  constexpr int64_t kW = 4 * kLanes;  // columns per full tile
  for (int64_t i = 0; i < M; i += 2) {
    int64_t i1 = i + 1 < M ? i + 1 : -1;
    int64_t j = 0;
    for (; N - j >= kW + kLanes; j += kW) row_tile<4>(a, b, i, i1, j, kW, K, C, ldc, accumulate);
    switch ((N - j + kLanes - 1) / kLanes) {  // the rest: kLanes to kW + kLanes - 1 columns
      case 1: row_tile<1>(a, b, i, i1, j, N - j, K, C, ldc, accumulate); break;
      case 2: row_tile<2>(a, b, i, i1, j, N - j, K, C, ldc, accumulate); break;
      case 3: row_tile<3>(a, b, i, i1, j, N - j, K, C, ldc, accumulate); break;
      case 4: row_tile<4>(a, b, i, i1, j, N - j, K, C, ldc, accumulate); break;
      case 5: row_tile<5>(a, b, i, i1, j, N - j, K, C, ldc, accumulate); break;
    }
  }
}

// For C narrower than one vector (N < kLanes), any layout: scalar arithmetic, the same order.
// R rows of C at a time: each element is still one chain of fused multiply-adds per slice of k,
// but R independent chains run side by side, so the processor is not left waiting out each FMA's
// latency (a matrix-vector product, N = 1, ran one chain at a time: 4 cycles a term).
template <int R>
void narrow_rows(View a, View b, int64_t i0, int64_t N, int64_t K, real* C, int64_t ldc, bool accumulate) {
  for (int64_t j = 0; j < N; ++j) {
    real c[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) c[r] = accumulate ? C[(i0 + r) * ldc + j] : 0;
    for (int64_t pc = 0; pc < K || pc == 0; pc += kKc) {
      real s[R];
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) s[r] = 0;
      for (int64_t k = pc; k < min64(K, pc + kKc); ++k) {
        const real y = *b.at(k, j);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) s[r] = fmadd(*a.at(i0 + r, k), y, s[r]);
      }
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) c[r] = accumulate || pc > 0 ? c[r] + s[r] : s[r];
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) C[(i0 + r) * ldc + j] = c[r];
  }
}

void small_narrow(View a, View b, int64_t M, int64_t N, int64_t K, real* C, int64_t ldc, bool accumulate) {
  int64_t i = 0;
  for (; M - i >= 8; i += 8) narrow_rows<8>(a, b, i, N, K, C, ldc, accumulate);
  for (; i < M; ++i) narrow_rows<1>(a, b, i, N, K, C, ldc, accumulate);
}

// op(A) (M x K) and op(B) (K x N) as strided views.
View view_a(bool trans_a, int64_t M, int64_t K, const real* A) { return trans_a ? View{A, 1, M} : View{A, K, 1}; }
View view_b(bool trans_b, int64_t K, int64_t N, const real* B) { return trans_b ? View{B, 1, K} : View{B, N, 1}; }

// The three paths on views, C's rows ldc apart: the small one (falling back to the packed one
// when op(B)'s columns must be gathered), the packed one, and gemm's choice between them.
void small(View a, View b, int64_t M, int64_t N, int64_t K, real* C, int64_t ldc, bool accumulate, Scratch scratch) {
  if (N < kLanes)
    small_narrow(a, b, M, N, K, C, ldc, accumulate);
  else if (b.cs == 1)  // the rows of op(B) are contiguous
    small_rows(a, b, M, N, K, C, ldc, accumulate);
  else
    gemm_blocked(a, b, M, N, K, C, ldc, accumulate, scratch);  // packing gathers B's columns
}

void product(bool trans_b, View a, View b, int64_t M, int64_t N, int64_t K, real* C, int64_t ldc, bool accumulate,
             Scratch scratch) {
  // Thin products take gemm_small: there a kMr x kNr tile would be mostly padding, and packing
  // would cost as much as the product. Measured with the bench_gemm suite ("gemm_small against
  // gemm_packed", a grid of M, N, K): gemm_small is faster, often several times, when M < kMr,
  // N == 1 or kLanes <= N < kMr, as long as op(B) has contiguous rows (A B and A^T B); A B^T
  // goes to the packed kernel, whose packing gathers B's columns. Both compute every element
  // the same way (see the small path above), so the choice never changes a bit of the result.
  if ((M < kMr || N < kMr) && (!trans_b || N < kLanes)) return small(a, b, M, N, K, C, ldc, accumulate, scratch);
  gemm_blocked(a, b, M, N, K, C, ldc, accumulate, scratch);
}

}  // namespace

void gemm_small(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B,
                real* C, bool accumulate, Scratch scratch) {
  small(view_a(trans_a, M, K, A), view_b(trans_b, K, N, B), M, N, K, C, N, accumulate, scratch);
}

void gemm_packed(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B,
                 real* C, bool accumulate, Scratch scratch) {
  gemm_blocked(view_a(trans_a, M, K, A), view_b(trans_b, K, N, B), M, N, K, C, N, accumulate, scratch);
}

void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B, real* C,
          bool accumulate, Scratch scratch) {
  product(trans_b, view_a(trans_a, M, K, A), view_b(trans_b, K, N, B), M, N, K, C, N, accumulate, scratch);
}

// The tile is a product of its own: op(A)'s rows i0 to i1 times op(B)'s columns j0 to j1, into
// C's corner at (i0, j0), rows still N apart. Every path computes an element the same way
// whatever the product's size, so the tile's elements are gemm's, bit for bit.
void gemm_tile(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const real* A, const real* B,
               real* C, bool accumulate, Scratch scratch, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  View a = view_a(trans_a, M, K, A), b = view_b(trans_b, K, N, B);
  a.p = a.at(i0, 0);
  b.p = b.at(0, j0);
  product(trans_b, a, b, i1 - i0, j1 - j0, K, C + i0 * N + j0, N, accumulate, scratch);
}

}  // namespace heed::kernel_set::HEED_KERNEL_SET
