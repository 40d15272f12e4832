// Which kernel set runs (tensor/kernels.h): the table of this build's sets, and the choice.
#include "tensor/kernels.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include "tensor/tensor.h"

// Each set's entries, defined in tensor/gemm_kernel.cpp and tensor/vmath_kernel.cpp compiled
// into namespace heed::kernel_set::<set> (the Makefile builds one pair of objects per set).
#define HEED_KERNEL_SET_ENTRIES(set)                                                                      \
  namespace heed::kernel_set::set {                                                                        \
  void gemm(bool, bool, int64_t, int64_t, int64_t, const real*, const real*, real*, bool, KernelSet::Scratch); \
  void gemm_packed(bool, bool, int64_t, int64_t, int64_t, const real*, const real*, real*, bool,          \
                   KernelSet::Scratch);                                                                 \
  void gemm_small(bool, bool, int64_t, int64_t, int64_t, const real*, const real*, real*, bool,           \
                  KernelSet::Scratch);                                                                  \
  void gemm_tile(bool, bool, int64_t, int64_t, int64_t, const real*, const real*, real*, bool,            \
                 KernelSet::Scratch, int64_t, int64_t, int64_t, int64_t);                              \
  void tanh_n(const real*, real*, int64_t);                                                             \
  void sigmoid_n(const real*, real*, int64_t);                                                          \
  }

// x86-64 builds have four sets (the Makefile decides by the same test of the target); others one.
#if defined(__x86_64__)
#define HEED_X86_KERNEL_SETS 1
#endif

HEED_KERNEL_SET_ENTRIES(portable)
#ifdef HEED_X86_KERNEL_SETS
HEED_KERNEL_SET_ENTRIES(avx2)
HEED_KERNEL_SET_ENTRIES(avx2_wide)
HEED_KERNEL_SET_ENTRIES(avx512)
#endif

namespace heed {

namespace {

bool anywhere() { return true; }

#ifdef HEED_X86_KERNEL_SETS
// What the Makefile's flags for the sets let the compiler use (-mavx2 -mfma; and -mavx512f,vl,bw,dq).
// The processor's answer includes the operating system's: it must save the wide registers.
bool has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
bool has_avx512() {
  return has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
}
#endif

#define HEED_KERNEL_SET(set, needs, runs_here)                                                            \
  KernelSet {                                                                                           \
    #set, needs, runs_here, kernel_set::set::gemm, kernel_set::set::gemm_packed, kernel_set::set::gemm_small,   \
        kernel_set::set::gemm_tile, kernel_set::set::tanh_n, kernel_set::set::sigmoid_n                                                   \
  }

const KernelSet kSets[] = {
#ifdef HEED_X86_KERNEL_SETS
    HEED_KERNEL_SET(portable, "any x86-64 processor", anywhere),
    HEED_KERNEL_SET(avx2, "AVX2 and FMA", has_avx2),
    HEED_KERNEL_SET(avx2_wide, "AVX2 and FMA", has_avx2),
    HEED_KERNEL_SET(avx512, "AVX-512 (F, VL, BW, DQ) and FMA", has_avx512),
#else
    HEED_KERNEL_SET(portable, "this build's target", anywhere),
#endif
};

const KernelSet* find(std::string_view name) {
  for (const KernelSet& k : kSets)
    if (name == k.name) return &k;
  return nullptr;
}

std::string all_names() {
  std::string s;
  for (const KernelSet& k : kSets) s += (s.empty() ? "" : ", ") + std::string(k.name);
  return s;
}

const KernelSet& checked(std::string_view name) {
  const KernelSet* k = find(name);
  if (!k)
    throw Error("HEED_KERNELS=" + std::string(name) + ": no such kernel set in this build (it has " + all_names() +
                "; this processor runs " + runnable_kernel_names() + ")");
  if (!k->runs_here())
    throw Error("HEED_KERNELS=" + std::string(name) + ": this processor cannot run it (it needs " + k->needs +
                "; this processor runs " + runnable_kernel_names() + ")");
  return *k;
}

const KernelSet& choose() {
  if (const char* env = std::getenv("HEED_KERNELS"); env && *env) return checked(env);
  for (const char* name : {"avx512", "avx2"})
    if (const KernelSet* k = find(name); k && k->runs_here()) return *k;
  return kSets[0];  // portable
}

std::atomic<const KernelSet*> active{nullptr};

}  // namespace

std::span<const KernelSet> kernel_sets() { return kSets; }

const KernelSet& kernels() {
  if (const KernelSet* k = active.load(std::memory_order_acquire)) return *k;
  const KernelSet* expected = nullptr;
  active.compare_exchange_strong(expected, &choose(), std::memory_order_acq_rel);  // the first choice stands
  return *active.load(std::memory_order_acquire);
}

void use_kernels(std::string_view name) { active.store(&checked(name), std::memory_order_release); }

std::string runnable_kernel_names() {
  std::string s;
  for (const KernelSet& k : kSets)
    if (k.runs_here()) s += (s.empty() ? "" : ", ") + std::string(k.name);
  return s;
}

}  // namespace heed
