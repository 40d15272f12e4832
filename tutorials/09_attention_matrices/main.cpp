// Chapter 09: reading attention matrices. The same source through additive models that have
// learned nothing, copy, reverse (one model watched while it learns; another with a
// bidirectional encoder) and sort; for each, the matrix as text, a count of where each output
// step's largest weight falls, and the picture as SVG (and one HTML explorer) written to a folder.
// Usage: tutorial-09 [--quick] [--out DIR] [SECTION...]; sections untrained, copy, reverse,
// bidirectional, sort, film (default: all). DIR defaults to build/ch09 and is created if missing.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "io/atomic_file.h"
#include "models/evaluate.h"
#include "models/seq2seq.h"
#include "models/tasks/tasks.h"
#include "models/train.h"
#include "models/tasks/vocab.h"
#include "models/analysis/watch.h"
#include "viz/film.h"
#include "viz/heatmap.h"
#include "viz/html.h"
#include "viz/svg.h"

using namespace heed;

namespace {

constexpr int64_t kSymbols = 10;
constexpr int64_t kMinLen = 5, kMaxLen = 10;
constexpr uint64_t kSeed = 1;  // as `heed train --seed 1`
const std::vector<int64_t> kSource = {6, 4, 7, 4, 8, 12, 5, 9};  // the symbols 3 1 4 1 5 9 2 6

struct Options {
  bool quick = false;
  std::string out = "build/ch09";
};
Options g_opt;

int64_t steps() { return g_opt.quick ? 30 : 800; }

ModelConfig config(const Task& task, bool bidirectional = false) {
  ModelConfig c;  // as `heed train --model additive` builds it
  c.model = "additive";
  c.src_vocab = task.src_vocab().size();
  c.tgt_vocab = task.tgt_vocab().size();
  c.embed = 32;
  c.hidden = 64;
  c.bidirectional = bidirectional;
  c.max_src_len = std::max<int64_t>(64, 2 * task.max_len());
  return c;
}

// Trains as `heed train --model additive --seed 1` does; `watch` sees every step.
void train_model(Seq2Seq& model, const Task& task, const std::function<void(const Progress&)>& watch = {}) {
  TrainOptions opt;
  opt.steps = steps();
  opt.batch = 32;
  opt.seed = kSeed + 1000003;
  train(model, task, opt, [&](const Progress& p) {
    if (watch) watch(p);
    if (p.step % 100 == 0 || p.step == p.steps)
      std::fprintf(stderr, "tutorial-09: %s%s, step %lld of %lld, %.0f s\n", task.name().c_str(),
                   model.config().bidirectional ? " (bidirectional)" : "", static_cast<long long>(p.step),
                   static_cast<long long>(p.steps), p.seconds);
  });
}

struct Picture {
  std::vector<std::string> source, output;
  std::vector<std::vector<real>> weights;  // (output steps, S)
};

// Greedy decoding of one source for L + 1 steps, with its attention.
Picture decode(const Seq2Seq& model, const Task& task, const std::vector<int64_t>& src) {
  Batch batch = make_batch({{src, task.target(src)}});
  Decoded d = model.greedy(batch, static_cast<int64_t>(src.size()) + 1);
  Picture p;
  for (int64_t id : src) p.source.push_back(task.src_vocab().token(id));
  for (int64_t id : d.tokens[0]) p.output.push_back(task.tgt_vocab().token(id));
  p.weights = d.attention[0];
  return p;
}

std::string file_name(const std::string& name) { return (std::filesystem::path(g_opt.out) / name).string(); }

void show(const Picture& p, const std::string& name, const std::string& title) {
  std::printf("%s", terminal_heatmap(p.source, p.output, p.weights, false).c_str());
  write_text_file(file_name(name), svg_heatmap(p.source, p.output, p.weights, title));
  std::printf("wrote %s\n", file_name(name).c_str());
}

// Where the largest weight of each output step falls (the <eos> step excluded), relative to
// the source position that holds the symbol the step must write: t for copy, L-1-t for
// reverse, and for sort every position holding the next-smallest symbol. Over n sources of
// length L.
struct Where {
  int64_t on = 0, right = 0, left = 0, total = 0;
  real peak = 0;  // mean largest weight
  real pct(int64_t k) const { return 100 * static_cast<real>(k) / static_cast<real>(total); }
};

bool is_source_of(const Task& task, const Example& e, int64_t t, int64_t i) {
  const int64_t L = static_cast<int64_t>(e.src.size());
  if (i < 0 || i >= L) return false;
  if (task.name() == "copy") return i == t;
  if (task.name() == "reverse") return i == L - 1 - t;
  return e.src[i] == e.tgt[t];  // sort
}

Where where_peaks(const Seq2Seq& model, const Task& task, int64_t L, int64_t n, uint64_t seed) {
  Generator gen(seed);
  std::vector<Example> examples;
  for (int64_t i = 0; i < n; ++i) examples.push_back(task.sample(gen, L));
  Decoded d = model.greedy(make_batch(examples), L + 1);
  Where w;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t t = 0; t < L; ++t) {
      const std::vector<real>& row = d.attention[b][t];
      const int64_t top = std::max_element(row.begin(), row.end()) - row.begin();
      if (is_source_of(task, examples[b], t, top))
        ++w.on;
      else if (is_source_of(task, examples[b], t, top - 1))
        ++w.right;
      else if (is_source_of(task, examples[b], t, top + 1))
        ++w.left;
      w.peak += row[top];
      ++w.total;
    }
  w.peak /= static_cast<real>(w.total);
  return w;
}

void report(const Where& w, int64_t n, int64_t L) {
  std::printf("the largest weight of each output step (%lld sources of length %lld, <eos> steps left out):\n",
              static_cast<long long>(n), static_cast<long long>(L));
  std::printf("  on the source position of the symbol written %5.1f %%   one to its right %5.1f %%\n", w.pct(w.on),
              w.pct(w.right));
  std::printf("  one to its left %5.1f %%   elsewhere %5.1f %%   mean largest weight %.3f\n", w.pct(w.left),
              w.pct(w.total - w.on - w.right - w.left), w.peak);
}

// ---------------------------------------------------------------------------------------------

void untrained() {
  ReverseTask task(kSymbols, kMinLen, kMaxLen);
  Generator gen(kSeed);
  Seq2Seq model(config(task), gen);
  std::printf("== untrained: an additive model before its first step, on the source 3 1 4 1 5 9 2 6\n");
  Picture p = decode(model, task, kSource);
  show(p, "untrained.svg", "untrained additive model");
  const real L = static_cast<real>(kSource.size());
  real top = 0, entropy = 0;
  for (const auto& row : p.weights) {
    top += *std::max_element(row.begin(), row.end());
    for (real a : row) entropy -= a > 0 ? a * std::log(a) : 0;
  }
  const real rows = static_cast<real>(p.weights.size());
  std::printf("mean largest weight %.3f (uniform: 1/8 = %.3f); mean entropy %.3f (uniform: log 8 = %.3f)\n",
              top / rows, 1 / L, entropy / rows, std::log(L));
}

void copy() {
  CopyTask task(kSymbols, kMinLen, kMaxLen);
  Generator gen(kSeed);
  Seq2Seq model(config(task), gen);
  std::printf("== copy: additive, %lld steps\n", static_cast<long long>(steps()));
  train_model(model, task);
  show(decode(model, task, kSource), "copy.svg", "additive model trained on copy");
  report(where_peaks(model, task, kMaxLen, 200, 4242), 200, kMaxLen);
}

void reverse() {
  ReverseTask task(kSymbols, kMinLen, kMaxLen);
  Generator gen(kSeed);
  Seq2Seq model(config(task), gen);
  const int64_t every = g_opt.quick ? 10 : 50, early = g_opt.quick ? 10 : 100;
  std::printf("== reverse: additive, %lld steps, watched every %lld steps\n", static_cast<long long>(steps()),
              static_cast<long long>(every));
  std::vector<Series> chart = {{"on the mirrored position", {}, {}}, {"one to its right", {}, {}},
                               {"mean largest weight", {}, {}}};
  Picture early_picture;
  std::printf("%6s  %8s  %12s  %12s  %13s\n", "step", "loss", "on mirror %", "right of it %", "largest weight");
  real loss_sum = 0;
  auto watch = [&](const Progress& p) {
    loss_sum += p.loss;
    if (p.step % every != 0) return;
    Where w = where_peaks(model, task, kMaxLen, 50, 99);
    std::printf("%6lld  %8.4f  %12.1f  %12.1f  %13.3f\n", static_cast<long long>(p.step),
                loss_sum / static_cast<real>(every), w.pct(w.on), w.pct(w.right), w.peak);
    loss_sum = 0;
    const real x = static_cast<real>(p.step);
    chart[0].x.push_back(x);
    chart[0].y.push_back(w.pct(w.on) / 100);
    chart[1].x.push_back(x);
    chart[1].y.push_back(w.pct(w.right) / 100);
    chart[2].x.push_back(x);
    chart[2].y.push_back(w.peak);
    if (p.step == early) early_picture = decode(model, task, kSource);
  };
  train_model(model, task, watch);
  std::printf("(loss: mean of the %lld steps up to the row; the rest on 50 sources of length 10)\n",
              static_cast<long long>(every));
  write_text_file(file_name("reverse-training.svg"),
                  svg_line_chart(chart, "additive on reverse: where the largest weight falls", "training step",
                                 "fraction / weight"));
  std::printf("wrote %s\n", file_name("reverse-training.svg").c_str());

  std::printf("\nafter %lld steps\n", static_cast<long long>(early));
  show(early_picture, "reverse-early.svg", "additive on reverse, step " + std::to_string(early));
  std::printf("\nafter %lld steps\n", static_cast<long long>(steps()));
  Picture late = decode(model, task, kSource);
  show(late, "reverse.svg", "additive model trained on reverse");
  write_text_file(file_name("reverse.html"),
                  html_explorer(late.source, late.output, late.weights, "additive model trained on reverse"));
  std::printf("wrote %s\n", file_name("reverse.html").c_str());
  report(where_peaks(model, task, kMaxLen, 200, 4242), 200, kMaxLen);
}

void bidirectional() {
  ReverseTask task(kSymbols, kMinLen, kMaxLen);
  Generator gen(kSeed);
  Seq2Seq model(config(task, true), gen);
  std::printf("== bidirectional: additive with a bidirectional encoder, reverse, %lld steps\n",
              static_cast<long long>(steps()));
  train_model(model, task);
  show(decode(model, task, kSource), "reverse-bidirectional.svg", "additive, bidirectional encoder, reverse");
  report(where_peaks(model, task, kMaxLen, 200, 4242), 200, kMaxLen);
}

void sort() {
  SortTask task(kSymbols, kMinLen, kMaxLen);
  Generator gen(kSeed);
  Seq2Seq model(config(task), gen);
  std::printf("== sort: additive, %lld steps\n", static_cast<long long>(steps()));
  train_model(model, task);
  show(decode(model, task, kSource), "sort.svg", "additive model trained on sort");
  report(where_peaks(model, task, kMaxLen, 200, 4242), 200, kMaxLen);
  Accuracy acc = evaluate_held_out(model, task, 500, kSeed + 7777777);
  std::printf("held-out (500 sources of lengths %lld..%lld): exact %.3f token %.3f\n", static_cast<long long>(kMinLen),
              static_cast<long long>(kMaxLen), acc.exact(), acc.token());
}

// The share of a snapshot's attention on the anti-diagonal band: for each symbol row t of a
// source of length L, the weight on the mirrored position L-1-t and on the one to its right
// (whose state has just read the symbol; section 3), averaged over the L symbol rows.
real band_mass(const FilmFrame& f) {
  const int64_t L = static_cast<int64_t>(f.weights.front().size());
  real sum = 0;
  for (int64_t t = 0; t < L; ++t) {
    const std::vector<real>& row = f.weights[t];
    sum += row[L - 1 - t] + (L - t < L ? row[L - t] : 0);
  }
  return sum / static_cast<real>(L);
}

real mirror_mass(const FilmFrame& f) {
  const int64_t L = static_cast<int64_t>(f.weights.front().size());
  real sum = 0;
  for (int64_t t = 0; t < L; ++t) sum += f.weights[t][L - 1 - t];
  return sum / static_cast<real>(L);
}

void key_frame(const Film& film, const FilmFrame& f, const std::string& what) {
  std::printf("\n%s: step %lld\n", what.c_str(), static_cast<long long>(f.step));
  show({film.source, f.output, f.weights}, "film-step-" + std::to_string(f.step) + ".svg",
       "additive on reverse, step " + std::to_string(f.step));
}

// Section 3's run again (the same model, data and steps), filmed as `heed train --film` films it.
void film() {
  ReverseTask task(kSymbols, kMinLen, kMaxLen);
  Generator gen(kSeed);
  Seq2Seq model(config(task), gen);
  FilmMaker maker(task, "additive");
  Film& film = maker.film();
  std::printf("== film: additive on reverse, %lld steps, a snapshot every %lld steps\n", static_cast<long long>(steps()),
              static_cast<long long>(kDefaultWatchEvery));
  maker.start(model);
  train_model(model, task, [&](const Progress& p) { maker.on_step(model, p); });
  std::printf("%6s  %8s  %14s  %12s  %10s\n", "step", "loss", "held-out exact", "mirror mass", "band mass");
  const FilmFrame* aligned = nullptr;
  for (const FilmFrame& f : film.frames) {
    if (!aligned && band_mass(f) > 0.5) aligned = &f;
    if (f.step > 200 && f.step % 100 != 0) continue;
    char loss[16] = "-";
    if (std::isfinite(f.loss)) std::snprintf(loss, sizeof loss, "%.4f", f.loss);
    std::printf("%6lld  %8s  %14.2f  %12.3f  %10.3f\n", static_cast<long long>(f.step), loss, f.exact, mirror_mass(f),
                band_mass(f));
  }
  std::printf("(loss: mean since the previous snapshot; exact: %lld held-out sources; masses: mean over the %zu symbol "
              "rows of %s)\n",
              static_cast<long long>(kWatchHeldOut), film.source.size(), [&] {
                std::string src;
                for (const auto& t : film.source) src += (src.empty() ? "" : " ") + t;
                return src;
              }().c_str());
  if (aligned)
    std::printf("the alignment appears at step %lld: the first snapshot whose band mass exceeds one half\n",
                static_cast<long long>(aligned->step));
  else
    std::printf("no snapshot has a band mass above one half yet\n");
  key_frame(film, film.frames.front(), "untrained");
  if (aligned) key_frame(film, *aligned, "the alignment appears");
  key_frame(film, film.frames.back(), "trained");
  film.title = "additive attention learning reverse";
  film.caption = "tutorial-09 film: heed train --task reverse --model additive --steps " + std::to_string(steps()) +
                 " --film; a snapshot every " + std::to_string(kDefaultWatchEvery) + " steps";
  write_text_file(file_name("reverse-film.html"), html_film(film));
  std::printf("wrote %s\n", file_name("reverse-film.html").c_str());
}

struct Section {
  const char* name;
  void (*run)();
};

const Section kSections[] = {
    {"untrained", untrained}, {"copy", copy}, {"reverse", reverse}, {"bidirectional", bidirectional}, {"sort", sort},
    {"film", film}};

}  // namespace

int main(int argc, char** argv) {
  heed::tune_allocator();  // keep freed tensors with the process (tensor/tensor.h)
  std::vector<const Section*> chosen;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      g_opt.quick = true;
      continue;
    }
    if (std::strcmp(argv[i], "--out") == 0) {
      if (i + 1 == argc) {
        std::fprintf(stderr, "tutorial-09: --out needs a folder\n");
        return 2;
      }
      g_opt.out = argv[++i];
      continue;
    }
    const Section* found = nullptr;
    for (const Section& s : kSections)
      if (argv[i] == std::string(s.name)) found = &s;
    if (!found) {
      std::fprintf(stderr,
                   "tutorial-09: unknown argument '%s' (--quick, --out DIR, untrained, copy, reverse, "
                   "bidirectional, sort, film)\n",
                   argv[i]);
      return 2;
    }
    chosen.push_back(found);
  }
  if (chosen.empty())
    for (const Section& s : kSections) chosen.push_back(&s);
  try {
    std::error_code ec;
    std::filesystem::create_directories(g_opt.out, ec);
    if (ec) {
      std::fprintf(stderr, "tutorial-09: cannot create the folder '%s': %s\n", g_opt.out.c_str(),
                   ec.message().c_str());
      return 2;
    }
    for (size_t i = 0; i < chosen.size(); ++i) {
      if (i) std::printf("\n");
      std::fflush(stdout);
      chosen[i]->run();
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "tutorial-09: %s\n", e.what());
    return 2;
  }
}
