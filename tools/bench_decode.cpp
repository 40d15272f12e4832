// heed bench --decode N: the time of each step of step-by-step decoding (what greedy, beam search
// and heed predict run), to show how a step's cost grows with the number of positions decoded
// before it. A Transformer step that keeps its keys and values costs O(t D) in attention and a
// constant in everything else; one that re-projects its past would cost O(t D^2).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "models/model.h"
#include "models/tasks/tasks.h"
#include "tensor/kernels.h"
#include "tensor/threads.h"
#include "tools/bench.h"

namespace heed {

int bench_decode(const BenchRun& r, int64_t positions, int64_t repeats) {
  const ModelConfig& c = r.config;
  if (c.positions == "learned" && positions > c.max_src_len)
    throw Error("bench: --decode " + std::to_string(positions) + " needs sinusoidal positions (learned ones stop at " +
                std::to_string(c.max_src_len) + ")");
  Generator gen(0), data(1);
  std::unique_ptr<Model> model = make_model(c, gen);
  ReverseTask task(kBenchVocab, r.len, r.len);
  Batch batch = sample_batch(task, data, r.batch);
  NoGradGuard no_grad;
  // ms[t][k], cpu[t][k]: step t's wall and CPU time in repeat k (the CPU time is this process's,
  // all threads': on a shared machine the wall clock also counts other processes' turns). The
  // tokens fed are the batch's own, repeated: what a step costs does not depend on which tokens.
  auto cpu_now = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<real>(ts.tv_sec) * 1e3 + static_cast<real>(ts.tv_nsec) / 1e6;
  };
  std::vector<std::vector<real>> ms(static_cast<size_t>(positions)), cpu(static_cast<size_t>(positions));
  for (int64_t k = 0; k < repeats; ++k) {
    std::unique_ptr<StepState> st = model->start_decoding(batch);
    for (int64_t t = 0; t < positions; ++t) {
      std::vector<int64_t> prev(static_cast<size_t>(r.batch));
      for (int64_t b = 0; b < r.batch; ++b) prev[b] = t == 0 ? Vocab::kBos : batch.src[b * r.len + t % r.len];
      const real c0 = cpu_now();
      auto t0 = std::chrono::steady_clock::now();
      Tensor logits = model->logits(model->decode_step(prev, *st).out).value();
      auto t1 = std::chrono::steady_clock::now();
      cpu[static_cast<size_t>(t)].push_back(cpu_now() - c0);
      ms[static_cast<size_t>(t)].push_back(std::chrono::duration<real, std::milli>(t1 - t0).count());
    }
  }
  // Each figure is the median over the 8 steps ending at step s (1-based) of every repeat.
  auto at = [&](int64_t s, const std::vector<std::vector<real>>& times = {}) {
    const std::vector<std::vector<real>>& m = times.empty() ? ms : times;
    std::vector<real> xs;
    for (int64_t t = std::max<int64_t>(0, s - 8); t < s; ++t) xs.insert(xs.end(), m[t].begin(), m[t].end());
    std::sort(xs.begin(), xs.end());
    return xs[xs.size() / 2];
  };
  std::printf("%s D %lld layers %lld heads %lld batch %lld len %lld, %s kernels, %d thread%s: ms per decoding step\n",
              c.model.c_str(), static_cast<long long>(c.embed), static_cast<long long>(c.layers),
              static_cast<long long>(c.heads), static_cast<long long>(r.batch), static_cast<long long>(r.len),
              kernels().name, threads(), threads() == 1 ? "" : "s");
  for (int64_t s = 8; s <= positions; s *= 2)
    std::printf("  step %4lld: %8.3f ms (cpu %8.3f ms, %.2fx step 8's)\n", static_cast<long long>(s), at(s),
                at(s, cpu), at(s, cpu) / at(8, cpu));
  if (positions >= 256) std::printf("  step 256 / step 32: %.2f (cpu %.2f)\n", at(256) / at(32), at(256, cpu) / at(32, cpu));
  return 0;
}

}  // namespace heed
