// The thread pool of tensor/threads.h. One job at a time: the caller publishes it (the function,
// the range, the number of pieces) under the mutex and wakes the workers; every thread, the
// caller included, then takes the next piece from an atomic counter until none is left. Which
// thread runs a piece depends on timing; what the piece computes does not (it is fixed by n and
// the grain), so the results are the same bits whoever runs it.
#include "tensor/threads.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tensor/tensor.h"

namespace heed {

namespace {

// How long a worker looks for the next job before it sleeps.
constexpr int kSpinMicroseconds = 200;

// True on a thread while it runs a piece: a parallel_for there is nested and runs inline.
thread_local bool t_in_piece = false;

class Pool {
 public:
  // n threads in all: the caller and n - 1 workers.
  explicit Pool(int n) {
    for (int i = 1; i < n; ++i) workers_.emplace_back([this] { work(); });
  }

  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_.store(true);
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // Runs the pieces of fn on the workers and the caller. Returns false, having run nothing, when
  // another thread's job holds the pool (the caller then runs its pieces itself).
  bool run(int64_t n, int64_t pieces, const std::function<void(int64_t, int64_t)>& fn) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    {
      std::unique_lock<std::mutex> lock(m_);
      // A worker that woke late for the last job may still be finding it empty: let it go first,
      // so that it cannot take a piece number of this one.
      done_.wait(lock, [&] { return holding_ == 0; });
      job_ = Job{&fn, n, pieces};
      next_.store(0, std::memory_order_relaxed);
      finished_ = 0;
      error_ = nullptr;
      error_piece_ = pieces;
      generation_.store(generation_.load() + 1, std::memory_order_release);
    }
    wake_.notify_all();
    take_pieces(job_);  // the caller works too (it wrote job_, so it may read it unlocked)
    std::exception_ptr error;
    {
      std::unique_lock<std::mutex> lock(m_);
      // Every piece has ended, and no worker still holds this job (a worker that woke for it
      // and found no piece left must let go before the next job is published).
      done_.wait(lock, [&] { return finished_ == job_.pieces && holding_ == 0; });
      error = error_;
      job_ = Job{};
    }
    if (error) std::rethrow_exception(error);
    return true;
  }

 private:
  struct Job {
    const std::function<void(int64_t, int64_t)>* fn = nullptr;
    int64_t n = 0, pieces = 0;
  };

  void work() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      // Before sleeping, look for the next job for a while: a training step publishes one every
      // few hundred microseconds, and waking a sleeping thread can take longer than a whole
      // tile (measured on a 2-core virtual machine: a 64 x 768 x 256 product, 450 us on one
      // thread, was no faster on two until the workers looked before sleeping). yield() gives
      // the core away to any other thread that wants it meanwhile.
      lock.unlock();
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicroseconds);
      while (generation_.load(std::memory_order_acquire) == seen && !stop_.load() &&
             std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
      lock.lock();
      wake_.wait(lock, [&] { return stop_.load() || generation_.load() != seen; });
      if (stop_.load()) return;
      seen = generation_.load();
      if (job_.fn == nullptr) continue;  // woke late: the job has ended
      Job job = job_;  // read under the lock: the job cannot change while holding_ > 0
      ++holding_;
      lock.unlock();
      take_pieces(job);
      lock.lock();
      if (--holding_ == 0) done_.notify_all();
    }
  }

  // Runs pieces of the job until none is left. An exception is kept (the lowest piece's, so
  // that the caller sees the same error whatever the timing) and the other pieces still run.
  void take_pieces(const Job& job) {
    t_in_piece = true;
    for (int64_t p; (p = next_.fetch_add(1, std::memory_order_relaxed)) < job.pieces;) {
      std::exception_ptr error;
      try {
        (*job.fn)(p * job.n / job.pieces, (p + 1) * job.n / job.pieces);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(m_);
      if (error && p < error_piece_) {
        error_ = error;
        error_piece_ = p;
      }
      if (++finished_ == job.pieces) done_.notify_all();
    }
    t_in_piece = false;
  }

  std::vector<std::thread> workers_;
  std::mutex busy_;  // held by the thread whose job the pool runs
  std::mutex m_;     // guards everything below but next_
  std::condition_variable wake_, done_;
  Job job_;
  std::atomic<int64_t> next_{0};  // the next piece to take
  int64_t finished_ = 0;          // pieces ended
  int holding_ = 0;               // workers inside take_pieces
  std::atomic<uint64_t> generation_{0};  // jobs published (written under m_, read by spinners)
  std::atomic<bool> stop_{false};
  std::exception_ptr error_;
  int64_t error_piece_ = 0;
};

std::mutex g_config;              // guards g_pool's creation and replacement
std::unique_ptr<Pool> g_pool;     // null until the first job that has more than one piece
std::atomic<Pool*> g_ready{nullptr};  // g_pool, once made (read without the lock)
std::atomic<int> g_threads{0};    // 0: not chosen yet

// The pool, its workers started at the first job that needs them, not before: a program whose
// work never reaches two grains (configuration S) then starts no thread at all, and keeps the C
// library's single-thread fast paths (glibc's malloc takes no atomic operations until a second
// thread exists: measured, about 2 % of an S step).
Pool& pool() {
  if (Pool* p = g_ready.load(std::memory_order_acquire)) return *p;
  std::lock_guard<std::mutex> lock(g_config);
  if (!g_pool) {
    g_pool = std::make_unique<Pool>(g_threads.load());
    g_ready.store(g_pool.get(), std::memory_order_release);
  }
  return *g_pool;
}

}  // namespace

int parse_threads(const char* what, const char* text) {
  const std::string s = text;
  const std::string range = "a whole number from 1 to " + std::to_string(kMaxThreads);
  // An optional '-' and decimal digits, as every whole number heed reads (io/parse.h): no '+',
  // no space. Past nine digits it is out of range whatever it is.
  const size_t digits = s.empty() ? 0 : s.size() - (s[0] == '-' ? 1 : 0);
  if (digits == 0 || s.find_first_not_of("0123456789", s.size() - digits) != std::string::npos)
    throw Error(std::string(what) + " '" + s + "': not a number; it must be " + range);
  const long long v = digits > 9 ? -1 : std::stoll(s);
  if (v < 1 || v > kMaxThreads) throw Error(std::string(what) + " " + s + ": out of range; it must be " + range);
  return static_cast<int>(v);
}

int default_threads() {
  if (const char* env = std::getenv("HEED_THREADS"); env && *env) return parse_threads("HEED_THREADS", env);
  const unsigned cores = std::thread::hardware_concurrency();  // the cores this process may use
  return cores == 0 ? 1 : static_cast<int>(cores < kMaxThreads ? cores : kMaxThreads);
}

void set_threads(int n) {
  if (n < 1 || n > kMaxThreads)
    throw Error("set_threads: " + std::to_string(n) + " threads; it must be from 1 to " + std::to_string(kMaxThreads));
  std::lock_guard<std::mutex> lock(g_config);
  if (g_threads.load() == n) return;
  g_ready.store(nullptr);
  g_pool.reset();  // joins the old workers; pool() starts the new ones when a job needs them
  g_threads.store(n);
}

int threads() {
  int n = g_threads.load();
  if (n == 0) {
    set_threads(default_threads());
    n = g_threads.load();
  }
  return n;
}

int64_t parallel_pieces(int64_t n, int64_t grain) {
  const int64_t pieces = n / (grain < 1 ? 1 : grain);
  return pieces < 1 ? 1 : pieces;
}

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  const int64_t pieces = parallel_pieces(n, grain);
  if (pieces > 1 && !t_in_piece && threads() > 1 && pool().run(n, pieces, fn)) return;
  // One thread: the same pieces, in order, on the caller.
  for (int64_t p = 0; p < pieces; ++p) fn(p * n / pieces, (p + 1) * n / pieces);
}

}  // namespace heed
