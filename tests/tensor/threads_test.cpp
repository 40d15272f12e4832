// The thread pool (tensor/threads.h): parallel_for cuts [0, n) into the same pieces for any
// thread count, runs each once, really on several threads, small work on the caller; an exception
// in a piece reaches the caller (the lowest piece's, whatever the timing); a nested call and calls
// from two threads at once finish. And what runs on it computes the same bits for 1, 2, 3 and 8
// threads: the matrix product in every transposition, cut by rows and by columns, equal to the
// packed product in one piece. make tsan runs this suite under ThreadSanitizer.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tensor/gemm.h"
#include "tensor/kernels.h"
#include "tensor/ops.h"
#include "tensor/random.h"
#include "tensor/threads.h"
#include "tensor/vmath.h"

using namespace heed;

namespace {

struct RestoreThreads {  // the count in use before, whatever happens
  int n = threads();
  ~RestoreThreads() { set_threads(n); }
};

const int kCounts[] = {1, 2, 3, 8};  // 8: more threads than this machine may have cores

using Pieces = std::set<std::pair<int64_t, int64_t>>;

// The pieces parallel_for made of [0, n), and a check that they cover it exactly once.
Pieces pieces_of(int64_t n, int64_t grain) {
  std::mutex m;
  Pieces pieces;
  std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
  parallel_for(n, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
    std::lock_guard<std::mutex> lock(m);
    pieces.insert({begin, end});
  });
  int64_t once = 0;
  for (auto& h : hits) once += h.load() == 1;
  CHECK(once == n);
  return pieces;
}

}  // namespace

TEST_SUITE("threads") {
  TEST_CASE("threads: the pieces depend on n and the grain alone, and cover [0, n) once") {
    CHECK(parallel_pieces(0, 4) == 1);
    CHECK(parallel_pieces(7, 4) == 1);  // below two grains: one piece, on the caller
    CHECK(parallel_pieces(8, 4) == 2);
    CHECK(parallel_pieces(103, 10) == 10);
    RestoreThreads restore;
    for (std::pair<int64_t, int64_t> case_ : {std::pair<int64_t, int64_t>{1, 1}, {7, 4}, {103, 10}, {1000, 1}, {64, 3}}) {
      const int64_t n = case_.first, grain = case_.second;  // (clang 14 cannot capture a structured binding)
      set_threads(1);
      const Pieces one = pieces_of(n, grain);
      CHECK(static_cast<int64_t>(one.size()) == parallel_pieces(n, grain));
      for (int t : kCounts) {
        CAPTURE(t);
        CAPTURE(n);
        set_threads(t);
        CHECK(threads() == t);
        CHECK(pieces_of(n, grain) == one);
      }
    }
  }

  TEST_CASE("threads: large work runs on several threads, small work on the caller alone") {
    RestoreThreads restore;
    set_threads(8);
    std::mutex m;
    std::set<std::thread::id> ran;
    parallel_for(64, 1, [&](int64_t, int64_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // long enough for every worker to wake
      std::lock_guard<std::mutex> lock(m);
      ran.insert(std::this_thread::get_id());
    });
    CHECK(ran.size() > 1);
    ran.clear();
    parallel_for(100, 60, [&](int64_t, int64_t) {  // one piece
      std::lock_guard<std::mutex> lock(m);
      ran.insert(std::this_thread::get_id());
    });
    CHECK(ran == std::set<std::thread::id>{std::this_thread::get_id()});
  }

  TEST_CASE("threads: an exception in a piece reaches the caller, the lowest piece's, every piece run") {
    RestoreThreads restore;
    for (int t : kCounts) {
      CAPTURE(t);
      set_threads(t);
      std::atomic<int> ran{0};
      auto fn = [&](int64_t begin, int64_t) {
        if (begin == 30 || begin == 50) throw std::runtime_error("piece at " + std::to_string(begin));
        ran.fetch_add(1);
      };
      CHECK_THROWS_WITH_AS(parallel_for(100, 10, fn), "piece at 30", std::runtime_error);
      if (t > 1) CHECK(ran.load() == 8);  // on one thread the first throw ends the loop, as in any loop
      // The pool still works afterwards.
      CHECK(pieces_of(100, 10).size() == 10);
    }
  }

  TEST_CASE("threads: a parallel_for inside a piece runs inline; two threads' calls at once both finish") {
    RestoreThreads restore;
    set_threads(3);
    std::atomic<int64_t> total{0};
    parallel_for(8, 1, [&](int64_t, int64_t) {
      const auto me = std::this_thread::get_id();
      parallel_for(8, 1, [&](int64_t b, int64_t e) {
        CHECK(std::this_thread::get_id() == me);
        total.fetch_add(e - b);
      });
    });
    CHECK(total.load() == 64);
    std::atomic<int64_t> a{0}, b{0};
    auto count = [](std::atomic<int64_t>& into) {
      for (int round = 0; round < 50; ++round)
        parallel_for(40, 1, [&](int64_t lo, int64_t hi) { into.fetch_add(hi - lo); });
    };
    std::thread other([&] { count(b); });
    count(a);
    other.join();
    CHECK(a.load() == 50 * 40);
    CHECK(b.load() == 50 * 40);
  }

  TEST_CASE("threads: set_threads, parse_threads and HEED_THREADS refuse what is not a count") {
    RestoreThreads restore;
    CHECK_THROWS_WITH_AS(set_threads(0), "set_threads: 0 threads; it must be from 1 to 256", Error);
    CHECK_THROWS_AS(set_threads(kMaxThreads + 1), Error);
    CHECK(parse_threads("--threads", "4") == 4);
    CHECK(parse_threads("--threads", "256") == 256);
    CHECK_THROWS_WITH_AS(parse_threads("--threads", "0"), "--threads 0: out of range; it must be a whole number from 1 to 256",
                         Error);
    CHECK_THROWS_WITH_AS(parse_threads("--threads", "-2"), "--threads -2: out of range; it must be a whole number from 1 to 256",
                         Error);
    CHECK_THROWS_WITH_AS(parse_threads("--threads", "257"), "--threads 257: out of range; it must be a whole number from 1 to 256",
                         Error);
    CHECK_THROWS_WITH_AS(parse_threads("--threads", "99999999999999999999999"),
                         "--threads 99999999999999999999999: out of range; it must be a whole number from 1 to 256", Error);
    for (const char* bad : {"", "two", "2x", "1.5", " 2", "0x10", "--", "+2", "-", "2 "}) {
      CAPTURE(bad);
      CHECK_THROWS_AS(parse_threads("--threads", bad), Error);
    }
    const char* old = std::getenv("HEED_THREADS");
    const std::string saved = old ? old : "";
    setenv("HEED_THREADS", "3", 1);
    CHECK(default_threads() == 3);
    setenv("HEED_THREADS", "lots", 1);
    CHECK_THROWS_WITH_AS(default_threads(), "HEED_THREADS 'lots': not a number; it must be a whole number from 1 to 256",
                         Error);
    unsetenv("HEED_THREADS");
    CHECK(default_threads() >= 1);
    if (old) setenv("HEED_THREADS", saved.c_str(), 1);
  }

  TEST_CASE("threads: gemm gives the same bits for 1, 2, 3 and 8 threads, tiled by rows and by columns") {
    RestoreThreads restore;
    Generator g(32);
    struct Shape {
      int64_t M, N, K;
    };
    // Tall (cut by rows), wide (by columns), off every tile's edge, K over one slice (256), and
    // configuration M's recurrent product (64 x 768 x 256).
    for (Shape s : {Shape{1000, 67, 45}, Shape{37, 1500, 53}, Shape{64, 768, 256}, Shape{130, 131, 300}}) {
      for (int form = 0; form < 8; ++form) {
        const bool ta = form & 1, tb = form & 2, acc = form & 4;
        CAPTURE(s.M);
        CAPTURE(s.N);
        CAPTURE(form);
        std::vector<real> A(static_cast<size_t>(s.M * s.K)), B(static_cast<size_t>(s.K * s.N)),
            C0(static_cast<size_t>(s.M * s.N));
        for (real& x : A) x = static_cast<real>(g.uniform(-1, 1));
        for (real& x : B) x = static_cast<real>(g.uniform(-1, 1));
        for (real& x : C0) x = static_cast<real>(g.uniform(-1, 1));
        // The reference: the packed product in one piece, on this thread (the kernels compute
        // every element the same way on every path, tests/tensor/kernels_test.cpp and ch01_gemm_test.cpp).
        std::vector<real> whole = C0;
        gemm_packed(ta, tb, s.M, s.N, s.K, A.data(), B.data(), whole.data(), acc);
        for (int t : kCounts) {
          CAPTURE(t);
          set_threads(t);
          std::vector<real> C = C0;
          gemm(ta, tb, s.M, s.N, s.K, A.data(), B.data(), C.data(), acc);
          CHECK(std::memcmp(C.data(), whole.data(), C.size() * sizeof(real)) == 0);
        }
      }
    }
  }

  TEST_CASE("threads: tanh_n, sigmoid_n, softmax and sums over an axis give their one-thread loops' bits") {
    RestoreThreads restore;
    Generator g(33);
    const Tensor x = Tensor::uniform({300, 211}, -4, 4, g);  // 63300 values: several pieces
    const int64_t R = 300, V = 211;
    // The references, as the loops were before the pool: the kernel set on the whole array,
    // softmax_row row after row, a sum over each column in ascending row order.
    std::vector<real> tanh_ref(static_cast<size_t>(R * V)), sig_ref(tanh_ref.size()), soft_ref(tanh_ref.size()),
        soft0_ref(tanh_ref.size()), sum_ref(static_cast<size_t>(V), 0);
    kernels().tanh_n(x.data(), tanh_ref.data(), R * V);
    kernels().sigmoid_n(x.data(), sig_ref.data(), R * V);
    for (int64_t r = 0; r < R; ++r) softmax_row(x.data() + r * V, soft_ref.data() + r * V, V, 1, nullptr, false);
    for (int64_t c = 0; c < V; ++c) softmax_row(x.data() + c, soft0_ref.data() + c, R, V, nullptr, true);
    for (int64_t r = 0; r < R; ++r)
      for (int64_t c = 0; c < V; ++c) sum_ref[static_cast<size_t>(c)] += x[r * V + c];
    auto same = [](const real* a, const std::vector<real>& b) {
      return std::memcmp(a, b.data(), b.size() * sizeof(real)) == 0;
    };
    for (int t : kCounts) {
      CAPTURE(t);
      set_threads(t);
      std::vector<real> y(tanh_ref.size());
      tanh_n(x.data(), y.data(), R * V);
      CHECK(same(y.data(), tanh_ref));
      sigmoid_n(x.data(), y.data(), R * V);
      CHECK(same(y.data(), sig_ref));
      CHECK(same(softmax(x, 1).data(), soft_ref));
      CHECK(same(log_softmax(x, 0).data(), soft0_ref));
      CHECK(same(sum(x, 0).data(), sum_ref));
    }
  }
}
