// heed bench --sweep DIM=V1,V2,...: the same benchmark at each value of one dimension, for one
// or several models, as a Markdown table and (--svg) a chart; heed bench --from FILE: the same
// report from points measured earlier (heed's and PyTorch's, tools/bench_sweep.sh).
//
// Each point runs in a child process of its own (this program again, `heed bench ... --json`),
// one after the other, never two at once. In one process the points would disturb each other:
// the peak-memory figure is the growth of the resident set over the process after the model is
// built, and memory that an earlier, larger point freed stays with the process (the allocator
// keeps it, see tune_allocator), so a later point would seem to need less than it does; the
// allocator's and caches' state would also carry over. A fresh process per point measures each
// as a lone `heed bench` run does, and as `make bench` does per configuration.

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/atomic_file.h"
#include "io/os.h"
#include "io/parse.h"
#include "io/paths.h"
#include "io/utf8.h"
#include "tools/bench.h"
#include "tools/common.h"
#include "viz/sweep_report.h"

namespace heed {

namespace {

std::string g_argv0 = "heed";

struct Sweep {
  std::string dim;
  std::vector<int64_t> values;
};

// "len=5,10,20": a known dimension, 1 to kMaxSweepValues increasing positive whole numbers.
Sweep parse_sweep(const Args& a) {
  const std::string spec = a.text("--sweep", "");
  const size_t eq = spec.find('=');
  Sweep s;
  s.dim = spec.substr(0, eq);
  if (std::find(kSweepDimensions.begin(), kSweepDimensions.end(), s.dim) == kSweepDimensions.end())
    throw a.error("--sweep: unknown dimension '" + s.dim + "' (choose len, hidden or batch, e.g. --sweep len=5,10,20)");
  if (eq == std::string::npos || eq + 1 == spec.size())
    throw a.error("--sweep " + s.dim + ": no values (give them as --sweep " + s.dim + "=5,10,20)");
  const int64_t hi = s.dim == "len" ? SymbolTask::kMaxLength : s.dim == "hidden" ? 4096 : 100000;
  for (size_t start = eq + 1;;) {
    size_t comma = spec.find(',', start);
    std::string v = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    try {
      s.values.push_back(parse_int64(v, "--sweep " + s.dim, 1, hi));
    } catch (const Error& e) {
      throw a.error(e.what());
    }
    if (s.values.size() > 1 && s.values.back() <= s.values[s.values.size() - 2])
      throw a.error("--sweep " + s.dim + ": the values must increase (" + std::to_string(s.values.back()) + " after " +
                    std::to_string(s.values[s.values.size() - 2]) + ")");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (static_cast<int>(s.values.size()) > kMaxSweepValues)
    throw a.error("--sweep " + s.dim + ": " + std::to_string(s.values.size()) + " values; at most " +
                  std::to_string(kMaxSweepValues) + " a sweep");
  if (a.has("--" + s.dim))
    throw a.error("--sweep " + s.dim + " and --" + s.dim + " both set " + s.dim + "; give one");
  return s;
}

// "plain,additive": known models, none twice.
std::vector<std::string> parse_models(const Args& a) {
  std::vector<std::string> out;
  std::string list = a.text("--model", "additive");
  for (size_t start = 0;;) {
    size_t comma = list.find(',', start);
    std::string m = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (std::find(kBenchModels.begin(), kBenchModels.end(), m) == kBenchModels.end()) {
      std::string names;
      for (const std::string& k : kBenchModels) names += (names.empty() ? "" : ", ") + k;
      throw a.error("--model: '" + m + "' is not one of " + names);
    }
    if (std::find(out.begin(), out.end(), m) != out.end()) throw a.error("--model: " + m + " is given twice");
    out.push_back(m);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// Runs `args` (argv[0] first) with stdout read into *out and stderr left to ours; returns the
// exit status, or 128 + the signal that ended it.
int run_child(const std::vector<std::string>& args, std::string* out) {
  int status = 0;
  if (std::string why; !os::run_capture(args, out, &status, &why)) throw Error("--sweep: " + why);
  return status;
}

// The --svg path, checked before anything runs (a folder, or a file that cannot be written).
std::string svg_path(const Args& a) {
  std::string path = a.text("--svg", "");
  std::error_code ec;
  if (!path.empty() && std::filesystem::is_directory(path, ec))
    throw a.error("--svg " + path + ": is a folder; give a file name, e.g. " +
                  (std::filesystem::path(path) / "sweep.svg").string());
  if (!path.empty()) check_writable(path, a.has("--force"));
  return path;
}

void report(const std::vector<SweepPoint>& points, const std::string& dim, const std::string& svg,
            bool side_by_side) {
  std::printf("\n%s", (side_by_side ? sweep_comparison_table(points, dim) : sweep_table(points, dim)).c_str());
  if (!svg.empty()) {
    write_text_file(svg, svg_sweep_chart(points, dim));
    std::printf("\nwrote %s\n", terminal_safe(svg).c_str());
  }
}

}  // namespace

void set_program_path(const char* argv0) { g_argv0 = argv0; }

std::string program_as_invoked() { return g_argv0; }

// This program's own file, for the children (so a child is the same build even if the working
// directory changed): io/os.h's program_path, else argv[0].
std::string program_path() { return os::program_path(g_argv0); }

int bench_sweep(const Args& a) {
  const Sweep sweep = parse_sweep(a);
  const std::vector<std::string> models = parse_models(a);
  if (a.has("--watch")) throw a.error("--watch does not combine with --sweep (time the snapshots at one size)");
  const int64_t steps = a.integer("--steps", 20, 1, 1000000), warmup = a.integer("--warmup", 3, 0, 1000000);
  const std::string svg = svg_path(a);
  // Every point checked before the first one runs: a bad size fails now, not an hour in.
  struct Run {
    std::string model;
    int64_t value;
    std::vector<std::string> args;
  };
  std::vector<Run> runs;
  for (const std::string& m : models)
    for (int64_t v : sweep.values) {
      if (m == "transformer" && sweep.dim == "hidden")
        throw a.error("--sweep hidden: the transformer has no hidden size (its width is --embed)");
      BenchRun r;
      try {
        r = bench_run(a, m, sweep.dim, v);
      } catch (const Error& e) {  // name the point; the flags' own errors already name the command
        std::string msg = e.what();
        if (msg.rfind("heed bench: ", 0) == 0) msg = msg.substr(12);
        throw a.error("--sweep " + sweep.dim + "=" + std::to_string(v) + " (" + m + "): " + msg);
      }
      std::vector<std::string> args = {program_path(), "bench",   "--model", m,
                                       "--embed",      std::to_string(r.config.embed), "--batch", std::to_string(r.batch),
                                       "--len",        std::to_string(r.len), "--steps", std::to_string(steps),
                                       "--warmup",     std::to_string(warmup), "--json"};
      if (m != "transformer")  // the recurrent models' sizes; the transformer refuses them
        args.insert(args.end(), {"--cell", r.config.cell, "--hidden", std::to_string(r.config.hidden)});
      for (const std::string& f : kTransformerFlags)
        if (a.has(f)) args.insert(args.end(), {f, a.text(f, "")});
      if (a.has(kTransformerSwitch)) args.push_back(kTransformerSwitch);
      runs.push_back({m, v, args});
    }
  std::vector<SweepPoint> points;
  Json all = Json::Array{};
  for (const Run& run : runs) {
    std::string out;
    const int status = run_child(run.args, &out);
    if (status != 0) {
      // The child said what went wrong on stderr, in one line; a signal says nothing.
      if (status > 128)
        std::fprintf(stderr, "heed bench: --sweep: the run of %s at %s %lld ended by signal %d\n", run.model.c_str(),
                     sweep.dim.c_str(), static_cast<long long>(run.value), status - 128);
      return status > 128 ? 1 : status;
    }
    const size_t last = out.find_last_of('\n', out.size() >= 2 ? out.size() - 2 : 0);
    const std::string json_line = out.substr(last == std::string::npos ? 0 : last + 1);
    std::fputs(out.substr(0, last == std::string::npos ? 0 : last + 1).c_str(), stdout);  // the run's text line
    std::fflush(stdout);
    Json j = parse_json(json_line);
    points.push_back(sweep_point(j));
    all.push_back(j);
  }
  report(points, sweep.dim, svg, false);
  if (a.has("--json")) std::printf("%s\n", all.dump().c_str());
  return 0;
}

int bench_from(const Args& a) {
  if (a.has("--sweep")) throw a.error("--from and --sweep: give one (--from times nothing)");
  const std::string path = a.text("--from", "");
  check_no_collisions({{"--from", path, false}, {"--svg", a.text("--svg", ""), true}}, "heed bench");
  try {
    check_regular_input(path, "--from");  // a FIFO would block the reader forever
  } catch (const Error& e) {
    throw a.error(e.what());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw a.error("--from " + path + ": cannot open: " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  std::vector<SweepPoint> points;
  try {
    points = read_sweep_points(text.str());
  } catch (const Error& e) {
    throw a.error("--from " + path + ": " + e.what());
  }
  if (points.empty()) throw a.error("--from " + path + ": no points in the file");
  std::string dim;
  try {
    dim = swept_dimension(points);
  } catch (const Error& e) {
    throw a.error("--from " + path + ": " + e.what());
  }
  const std::string svg = svg_path(a);
  std::printf("%s", sweep_table(points, dim).c_str());
  report(points, dim, svg, true);
  return 0;
}

}  // namespace heed
