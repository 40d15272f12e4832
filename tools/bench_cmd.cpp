// heed bench: the time of one training step (forward with teacher forcing, loss, backward,
// clip, Adam), as docs/models.md defines it, on a fixed batch of the reverse task.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "autograd/functions.h"
#include "io/json.h"
#include "io/os.h"
#include "models/train.h"
#include "nn/loss.h"
#include "nn/optim.h"
#include "tensor/kernels.h"
#include "tensor/threads.h"
#include "tools/bench.h"
#include "tools/common.h"
#include "tools/train_watch.h"

namespace heed {

namespace {

const char* kBenchHelp =
    "usage: heed bench [flags]\n"
    "\n"
    "Times training steps on one fixed batch of the reverse task (every source --len long),\n"
    "on --threads N threads (heed --help), in this build's precision (%s), and reports the\n"
    "median and spread of ms per step, target tokens per second, matrix-product GFLOP/s\n"
    "(analytic count) and peak memory.\n"
    "\n"
    "  --config S|M      the sizes of docs/models.md: S = E 32, H 64, batch 32, len 10;\n"
    "                    M = E 64, H 256, batch 64, len 30 (S)\n"
    "  --model M         plain|additive|general|dot|scaled|cosine|location|transformer (additive)\n"
    "  --cell C          recurrent models: gru|lstm|rnn (gru)\n"
    "  --embed E, --hidden H, --batch B, --len L   override the configuration's sizes\n"
    "%s"
    "  --steps N         timed steps (20), after --warmup N untimed ones (3)\n"
    "  --json            end stdout with one JSON object: model, dtype, kernels, embed, hidden, batch, len,\n"
    "                    ms_per_step, tokens_per_second, peak_rss_mb, step_peak_mb (and more)\n"
    "  --decode N        time step-by-step decoding (no graph) instead of training: ms per step at\n"
    "                    steps 8, 16, 32, ... up to N (8..4096), each the median of the 8 steps\n"
    "                    ending there over --steps runs (3)\n"
    "  --watch           also time the snapshots of heed train --watch/--film (as many as steps)\n"
    "                    and report their cost as a share of training, one every --watch-every N\n"
    "                    steps (20)\n"
    "\n"
    "How the cost grows with the work:\n"
    "  --sweep DIM=V1,V2,...   time each value of DIM (len, hidden or batch; up to %d values,\n"
    "                    increasing), the other sizes from --config and the flags, one process\n"
    "                    per point; prints a Markdown table. --json ends stdout with one JSON\n"
    "                    array of the points' objects instead of one object\n"
    "  --model M1,M2,... with --sweep: several models, one line each in the chart\n"
    "  --svg FILE        with --sweep or --from: an SVG chart of ms/step against the value (--force:\n"
    "                    replace it even when it is write-protected)\n"
    "  --from FILE       time nothing: read the points of earlier sweeps (JSON objects or arrays,\n"
    "                    one per line: heed bench --json, reference/pytorch/bench_step.py) and\n"
    "                    print them side by side (tools/bench_sweep.sh does this with PyTorch)\n"
    "  e.g. heed bench --sweep len=5,10,20,40,80 --model plain,additive,general --svg len.svg\n"
    "\n"
    "Memory: peak_rss_mb is the process's peak resident set; step_peak_mb is how far the peak\n"
    "grew over the process after start-up and model construction (optimiser state, graph and\n"
    "gradients), as reference/pytorch/bench_step.py measures PyTorch.\n";

// A field of /proc/self/status in kB ("VmRSS", "VmHWM"), or -1 where there is none.
real status_kb(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field + ":", 0) == 0) return std::stod(line.substr(field.size() + 1));
  return -1;
}

// Resets the process's peak resident set (VmHWM) to its current size (Linux 4.0 and later).
bool reset_peak_rss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

real percentile(std::vector<real> xs, real q) {
  std::sort(xs.begin(), xs.end());
  real k = (static_cast<real>(xs.size()) - 1) * q;
  size_t lo = static_cast<size_t>(k), hi = std::min(lo + 1, xs.size() - 1);
  return xs[lo] + (xs[hi] - xs[lo]) * (k - static_cast<real>(lo));
}

}  // namespace

BenchRun bench_run(const Args& a, const std::string& model, const std::string& dim, int64_t value) {
  const bool big = a.choice("--config", "S", {"S", "M"}) == "M";
  BenchRun r;
  ModelConfig& c = r.config;
  c.model = model;
  c.cell = a.choice("--cell", "gru", {"gru", "lstm", "rnn"});
  c.embed = a.integer("--embed", big ? 64 : 32, 1, 4096);
  c.hidden = a.integer("--hidden", big ? 256 : 64, 1, 4096);
  r.batch = a.integer("--batch", big ? 64 : 32, 1, 100000);
  r.len = a.integer("--len", big ? 30 : 10, 1, SymbolTask::kMaxLength);
  if (dim == "hidden") c.hidden = value;
  if (dim == "batch") r.batch = value;
  if (dim == "len") r.len = value;
  c.src_vocab = c.tgt_vocab = ReverseTask(kBenchVocab, r.len, r.len).src_vocab().size();
  c.max_src_len = r.len;
  read_transformer_flags(a, c);
  c.validate();
  check_step_memory(c, r.batch, r.len);  // before anything large is allocated
  return r;
}

int cmd_bench(const std::vector<std::string>& argv) {
  std::set<std::string> valued = {"--config", "--model", "--cell",        "--embed", "--hidden", "--batch", "--len",
                                  "--steps",  "--warmup", "--watch-every", "--sweep", "--svg",    "--from", "--decode"};
  valued.insert(kTransformerFlags.begin(), kTransformerFlags.end());
  Args a("bench", argv, valued, {"--json", "--help", "--watch", "--force", kTransformerSwitch});
  if (a.has("--help")) {
    std::printf(kBenchHelp, kRealName, kTransformerHelp, kMaxSweepValues);
    return 0;
  }
  if (a.has("--decode"))
    for (const char* flag : {"--from", "--sweep", "--json", "--watch", "--warmup"})
      if (a.has(flag)) throw a.error(std::string("--decode times decoding alone; ") + flag + " is for training steps");
  if (a.has("--from")) return bench_from(a);
  if (a.has("--sweep")) return bench_sweep(a);
  if (a.has("--svg")) throw a.error("--svg needs --sweep or --from (one run has no line to draw)");
  if (a.text("--model", "").find(',') != std::string::npos)
    throw a.error("--model: several models need --sweep (one run times one model)");
  BenchRun r = bench_run(a, a.choice("--model", "additive", kBenchModels));
  if (a.has("--decode")) return bench_decode(r, a.integer("--decode", 256, 8, 4096), a.integer("--steps", 3, 1, 1000));
  const ModelConfig& c = r.config;
  const int64_t B = r.batch, L = r.len;
  int64_t steps = a.integer("--steps", 20, 1, 1000000);
  int64_t warmup = a.integer("--warmup", 3, 0, 1000000);
  const bool watch = a.has("--watch");
  const int64_t watch_every = a.integer("--watch-every", kDefaultWatchEvery, 1, 100000000);
  if (a.has("--watch-every") && !watch) throw a.error("--watch-every needs --watch");
  if (watch && !c.has_attention()) throw a.error("--watch: the plain model has no attention matrix to show");
  ReverseTask task(kBenchVocab, L, L);

  Generator gen(0);
  std::unique_ptr<Model> built = make_model(c, gen);
  Model& model = *built;
  Generator data(1);
  Batch batch = sample_batch(task, data, B);
  // Memory as reference/pytorch/bench_step.py measures it: the growth of the peak resident set
  // over the process after start-up and model construction, so the optimiser's state, the
  // graph and the gradients count, and the program itself does not.
  const real base_kb = status_kb("VmRSS");
  const bool peak_reset = reset_peak_rss();
  Adam adam(model.parameters(), 3e-3);
  // Wall time is the figure to compare; the process's CPU time (every thread's) is printed beside
  // it because on a shared machine the wall clock also counts the time other processes held the
  // cores. With one thread the two agree on a quiet machine; with n, CPU time / wall time says how
  // many cores the step kept busy.
  auto cpu_now = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<real>(ts.tv_sec) * 1e3 + static_cast<real>(ts.tv_nsec) / 1e6;
  };
  std::vector<real> ms, cpu_ms;
  for (int64_t i = 0; i < warmup + steps; ++i) {
    real c0 = cpu_now();
    auto t0 = std::chrono::steady_clock::now();
    Var loss = model.loss(batch);
    adam.zero_grad();
    loss.backward();
    clip_grad_norm(model.parameters(), 1.0);
    adam.step();
    auto t1 = std::chrono::steady_clock::now();
    real c1 = cpu_now();
    if (i >= warmup) {
      ms.push_back(std::chrono::duration<real, std::milli>(t1 - t0).count());
      cpu_ms.push_back(c1 - c0);
    }
  }
  // --watch: a snapshot's cost, spread over the steps between two snapshots.
  real watch_cpu_ms = 0;
  const real watch_ms = watch ? median_snapshot_ms(task, model, steps, &watch_cpu_ms) : 0;
  real cpu_median = percentile(cpu_ms, 0.5);
  real median = percentile(ms, 0.5), p10 = percentile(ms, 0.1), p90 = percentile(ms, 0.9);
  real tokens = static_cast<real>(B * (L + 1));
  // A training step is taken as 3x the forward pass's FLOPs (forward + the two products of each backward).
  real gflops = 3 * model.forward_flops(B, L, c.tgt_vocab) / (median / 1000) / 1e9;
  const real peak_kb = static_cast<real>(os::peak_rss_kb());
  real peak_mb = peak_kb / 1024;
  // Without a reset peak (an old kernel) the growth is taken over the whole run's peak.
  real hwm_kb = peak_reset ? status_kb("VmHWM") : peak_kb;
  real step_peak_mb = base_kb >= 0 && hwm_kb >= 0 ? std::max<real>(0, hwm_kb - base_kb) / 1024 : -1;
  const std::string sizes = c.sizes();  // of the model that ran
  std::printf("%-9s %s %s batch %lld len %lld: %8.2f ms/step [p10 %.2f, p90 %.2f] (cpu %.2f)  %9.0f tokens/s  "
              "%6.2f GFLOP/s  peak RSS %.0f MB (steps +%.1f MB)  %s kernels, %d thread%s\n",
              c.model.c_str(), kRealName, sizes.c_str(), static_cast<long long>(B), static_cast<long long>(L), median,
              p10, p90, cpu_median,
              tokens / (median / 1000), gflops, peak_mb, step_peak_mb, kernels().name, threads(),
              threads() == 1 ? "" : "s");
  const real watch_share = 100 * watch_ms / (static_cast<real>(watch_every) * median);
  const real watch_cpu_share = 100 * watch_cpu_ms / (static_cast<real>(watch_every) * cpu_median);
  if (watch)
    std::printf("--watch: %.2f ms per snapshot (cpu %.2f); one every %lld steps adds %.1f %% to the training time "
                "(cpu %.1f %%)\n",
                watch_ms, watch_cpu_ms, static_cast<long long>(watch_every), watch_share, watch_cpu_share);
  if (a.has("--json")) {
    Json j = Json::object({{"program", "heed"},
                           {"model", c.model},
                           {"cell", c.cell},
                           {"dtype", kRealName},
                           {"kernels", kernels().name},
                           {"threads", threads()},
                           {"embed", c.embed},
                           {"hidden", c.hidden},
                           {"batch", B},
                           {"len", L},
                           {"ms_per_step", median},
                           {"ms_p10", p10},
                           {"ms_p90", p90},
                           {"cpu_ms_per_step", cpu_median},
                           {"tokens_per_second", tokens / (median / 1000)},
                           {"gflops_per_second", gflops},
                           {"peak_rss_mb", peak_mb},
                           {"step_peak_mb", step_peak_mb}});
    if (c.is_transformer()) {  // its sizes; "cell" and "hidden" are the recurrent models' (unused here)
      j.set("layers", c.layers);
      j.set("heads", c.heads);
      j.set("ff", c.ff);
    }
    if (watch) {
      j.set("watch_ms_per_snapshot", watch_ms);
      j.set("watch_every", watch_every);
      j.set("watch_overhead_percent", watch_share);
      j.set("watch_cpu_ms_per_snapshot", watch_cpu_ms);
      j.set("watch_cpu_overhead_percent", watch_cpu_share);
    }
    std::printf("%s\n", j.dump().c_str());
  }
  return 0;
}

}  // namespace heed
