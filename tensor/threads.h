// The thread pool: a fixed set of worker threads, and parallel_for, which hands them pieces of
// a range. heed promises the same bits whatever the thread count, so the pool never decides how
// the work is cut: parallel_for(n, grain, fn) cuts [0, n) into pieces that depend only on n and
// the grain, and each piece is one call fn(begin, end) on one thread. Callers give it work whose
// every output element is computed inside one piece, the same way whichever piece holds it (a
// product's tile of the output, a row's softmax), and never sum across pieces: then 1, 2 or 64
// threads compute the same elements with the same operations in the same order.
//
// Work below two grains runs on the caller, with no thread woken: small work is never slower
// than one thread. A parallel_for inside a piece (a nested call) runs on its own thread, as does
// one from a second thread while the pool is busy: no deadlock, and the same pieces. An exception
// thrown by a piece reaches the caller once every piece has ended (the first one thrown).
// tests/tensor/threads_test.cpp holds these; tests/tools/threads_same_bits_cli_test.cpp the bits of a training.
#pragma once

#include <cstdint>
#include <functional>

namespace heed {

// The most threads heed takes (--threads, HEED_THREADS, set_threads).
inline constexpr int kMaxThreads = 256;

// The threads parallel_for uses, the caller included (1: no workers). The first call to
// threads() or parallel_for chooses default_threads() unless set_threads chose before.
int threads();

// Uses n threads from now on: the old workers are stopped, new ones start with the first job that
// has two pieces or more. REQUIRES: no parallel_for running. Throws Error unless 1 <= n <= kMaxThreads.
void set_threads(int n);

// HEED_THREADS from the environment if set, else the cores this process may run on
// (std::thread::hardware_concurrency; 1 if it does not know). Throws Error if HEED_THREADS
// is not a whole number from 1 to kMaxThreads.
int default_threads();

// "--threads N" or "HEED_THREADS": the text of a thread count, as a number from 1 to
// kMaxThreads, or Error naming `what`, the text and the range.
int parse_threads(const char* what, const char* text);

// The pieces of [0, n) for a grain: n / grain of them (at least 1), piece p being
// [p n / pieces, (p + 1) n / pieces), so each holds at least `grain` indices (when n does).
int64_t parallel_pieces(int64_t n, int64_t grain);

// Calls fn(begin, end) once for each piece of [0, n) (parallel_pieces), on the pool's threads
// and the caller's, and returns when all have ended. REQUIRES: grain >= 1; fn's pieces write
// disjoint outputs.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace heed
