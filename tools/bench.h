// heed bench's parts: one timed configuration (tools/bench_cmd.cpp) and the sweep of one
// dimension over several runs of it (tools/bench_sweep.cpp).
#pragma once

#include <string>
#include <vector>

#include "models/config.h"
#include "tools/args.h"

namespace heed {

inline constexpr int64_t kBenchVocab = 10;     // the reverse task's symbols
inline constexpr int kMaxSweepValues = 16;     // values of one --sweep
inline const std::vector<std::string> kBenchModels = {"plain", "additive", "general",  "dot",
                                                      "scaled", "cosine",  "location", "transformer"};

// What one bench run times: --config's sizes overridden by --embed, --hidden, --batch and
// --len, and for a sweep by `dim` = `value` (dim empty: none). Checked: the sizes' ranges,
// the model's configuration and the memory of a step (heed::Error naming the problem).
struct BenchRun {
  ModelConfig config;
  int64_t batch = 0, len = 0;
};
BenchRun bench_run(const Args& a, const std::string& model, const std::string& dim = "", int64_t value = 0);

// heed bench --decode N (tools/bench_decode.cpp): ms per step of step-by-step decoding, r's
// model on r's batch with no graph, at steps 8, 16, 32, ... up to N, each the median of the 8
// steps ending there over `repeats` runs.
int bench_decode(const BenchRun& r, int64_t positions, int64_t repeats);

// heed bench --sweep DIM=V1,V2,... and heed bench --from FILE (tools/bench_sweep.cpp).
int bench_sweep(const Args& a);
int bench_from(const Args& a);

// The path of the running heed program, for the sweep's child runs: /proc/self/exe where
// there is one, else argv[0] as main() recorded it.
void set_program_path(const char* argv0);
std::string program_path();
// argv[0] as the user typed it ("heed", "./build/heed"), for commands heed prints to be run.
std::string program_as_invoked();

}  // namespace heed
