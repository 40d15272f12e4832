// The entries of tensor/vmath.h: tanh_n and sigmoid_n hand the work to the kernel set in use
// (tensor/kernels.h; the functions themselves are tensor/vmath_kernel.cpp). dot_n is here, built
// once at the fixed 32-byte width of tensor/simd.h: its sum runs across the lanes, so a wider
// vector would change its order, and with it the bits.
#include "tensor/vmath.h"

#include "tensor/kernels.h"
#include "tensor/simd.h"
#include "tensor/threads.h"

namespace heed {

using simd::fmadd;
using simd::kLanes;
using simd::load;
using simd::Vec;

// Long arrays go to the thread pool (tensor/threads.h) in pieces of at least kVmathGrain
// elements (some 10 to 30 microseconds of work, beside a few to wake a thread). An element's
// value never depends on where an array is cut (above), so any thread count gives the same bits.
constexpr int64_t kVmathGrain = 16384;

void tanh_n(const real* x, real* y, int64_t n) {
  const KernelSet& k = kernels();
  if (n < 2 * kVmathGrain) return k.tanh_n(x, y, n);
  parallel_for(n, kVmathGrain, [&](int64_t lo, int64_t hi) { k.tanh_n(x + lo, y + lo, hi - lo); });
}

void sigmoid_n(const real* x, real* y, int64_t n) {
  const KernelSet& k = kernels();
  if (n < 2 * kVmathGrain) return k.sigmoid_n(x, y, n);
  parallel_for(n, kVmathGrain, [&](int64_t lo, int64_t hi) { k.sigmoid_n(x + lo, y + lo, hi - lo); });
}

static_assert(simd::kVectorBytes == 32, "dot_n's order of summation is that of 32-byte vectors");

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
