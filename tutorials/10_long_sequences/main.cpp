// Chapter 10: long sequences, the claim of Bahdanau et al. (2014, Figure 2) measured. Three
// models (plain, additive, general) trained alike on reverse with sources of 5..30 symbols,
// two at a time on two threads; accuracy by source length from 5 to 40, past the training
// lengths, as a table and an SVG chart; the gradient that one output's loss sends to each
// encoder state, before and after training; and where general's attention goes past length 30.
// Usage: tutorial-10 [--quick] [DIR]   (pictures go to DIR, default build/ch10, created if
// missing). `--quick`: a tiny budget, the same report, nothing learned.
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "autograd/functions.h"
#include "io/atomic_file.h"
#include "models/evaluate.h"
#include "models/analysis/gradient_path.h"
#include "models/seq2seq.h"
#include "models/tasks/tasks.h"
#include "models/train.h"
#include "viz/heatmap.h"
#include "viz/svg.h"

using namespace heed;

namespace {

constexpr int64_t kSymbols = 10;              // V: symbols 0..9, ids 3..12
constexpr int64_t kMinLen = 5, kMaxLen = 30;  // training lengths
constexpr uint64_t kSeed = 1;                 // the weights' seed, the same for every model
constexpr uint64_t kDataSeed = kSeed + 1000003;  // the batches' seed, the same for every model
const char* const kModels[] = {"plain", "additive", "general"};

struct Budget {
  int64_t steps, every, samples;  // training steps, table rows, sequences per length
  int64_t grad_len, grad_n;       // section 4: source length and sequences
  int64_t look_n;                 // section 5: sequences per length
};

Budget budget(bool quick) {
  if (quick) return {20, 10, 10, 8, 10, 10};
  return {2000, 250, 200, 20, 100, 100};
}

ModelConfig config(const std::string& model) {
  ModelConfig c;
  c.model = model;
  c.cell = "gru";
  c.src_vocab = c.tgt_vocab = kSymbols + 3;
  c.embed = 32;
  c.hidden = 64;
  c.max_src_len = 64;
  return c;
}

real thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<real>(ts.tv_sec) + static_cast<real>(ts.tv_nsec) * 1e-9;
}

// One model's run: built from kSeed, trained on the kDataSeed stream, scored by length.
struct Run {
  std::string name;
  std::unique_ptr<Seq2Seq> model;
  std::vector<real> losses;
  std::vector<Accuracy> by_length;
  std::string error;  // a heed::Error from the worker thread
};

void train_and_score(Run& run, const Task& task, const Budget& bud, const std::vector<int64_t>& lengths) {
  const real start = thread_cpu_seconds();
  TrainOptions opt;  // Adam, lr 3e-3 decayed linearly to 0, gradient-norm clip 1
  opt.steps = bud.steps;
  opt.batch = 32;
  opt.seed = kDataSeed;
  train(*run.model, task, opt, [&](const Progress& p) {
    run.losses.push_back(p.loss);
    if (p.step % bud.every == 0)
      std::fprintf(stderr, "tutorial-10: %-8s step %5lld of %lld, %.0f s of CPU\n", run.name.c_str(),
                   static_cast<long long>(p.step), static_cast<long long>(p.steps), thread_cpu_seconds() - start);
  });
  run.by_length = evaluate_by_length(*run.model, task, lengths, bud.samples, kSeed);
  std::fprintf(stderr, "tutorial-10: %-8s trained and scored in %.0f s of CPU\n", run.name.c_str(),
               thread_cpu_seconds() - start);
}

// The runs are independent (each has its own model, generator and graphs; graphs are per
// thread), so two threads share them out; the numbers are those of one run after another.
void run_all(std::vector<Run>& runs, const Task& task, const Budget& bud, const std::vector<int64_t>& lengths) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < runs.size(); i = next++) {
      try {
        train_and_score(runs[i], task, bud, lengths);
      } catch (const Error& e) {
        runs[i].error = e.what();
      }
    }
  };
  std::thread other(worker);
  worker();
  other.join();
  for (const Run& r : runs)
    if (!r.error.empty()) throw Error(r.name + ": " + r.error);
}

real window_mean(const std::vector<real>& v, int64_t end, int64_t n) {
  real s = 0;
  for (int64_t i = end - n; i < end; ++i) s += v[i];
  return s / static_cast<real>(n);
}

// n sources of one length, drawn from Generator(seed).
Batch fixed_length_batch(const Task& task, int64_t length, int64_t n, uint64_t seed) {
  Generator gen(seed);
  std::vector<Example> examples;
  for (int64_t i = 0; i < n; ++i) examples.push_back(task.sample(gen, length));
  return make_batch(examples);
}

void show_task(const Task& task, const std::vector<Run>& runs, const Budget& bud) {
  std::printf("== 1. the task and the models\n");
  std::printf("reverse, V %lld symbols, training sources of %lld..%lld symbols; one of length 24:\n",
              static_cast<long long>(kSymbols), static_cast<long long>(kMinLen), static_cast<long long>(kMaxLen));
  Generator gen(10);
  Example e = task.sample(gen, 24);
  std::printf("  %s\n  -> %s\n", task.src_vocab().decode(e.src).c_str(), task.tgt_vocab().decode(e.tgt).c_str());
  std::printf("gru cells, E 32, H 64; each trained for %lld steps of 32 sequences (Adam, lr 3e-3\n"
              "decayed linearly to 0, clip 1), from the same weights' seed on the same batches:\n",
              static_cast<long long>(bud.steps));
  for (const Run& r : runs)
    std::printf("  %-9s %6lld parameters\n", r.name.c_str(), static_cast<long long>(r.model->num_parameters()));
  std::printf("\n");
}

void show_training(const std::vector<Run>& runs, const Budget& bud) {
  std::printf("== 2. training (two models at a time on two threads)\n");
  std::printf("%6s", "step");
  for (const Run& r : runs) std::printf(" %9s", r.name.c_str());
  std::printf("\n%6d", 1);
  for (const Run& r : runs) std::printf(" %9.4f", r.losses[0]);
  std::printf("\n");
  for (int64_t s = bud.every; s <= bud.steps; s += bud.every) {
    std::printf("%6lld", static_cast<long long>(s));
    for (const Run& r : runs) std::printf(" %9.4f", window_mean(r.losses, s, bud.every));
    std::printf("\n");
  }
  std::printf("(the loss: the mean over the %lld steps up to each row)\n\n", static_cast<long long>(bud.every));
}

void show_accuracy(const std::vector<Run>& runs, const std::vector<int64_t>& lengths, const Budget& bud,
                   const std::string& dir) {
  std::printf("== 3. accuracy by source length (greedy, %lld sequences per length; trained on %lld..%lld)\n",
              static_cast<long long>(bud.samples), static_cast<long long>(kMinLen), static_cast<long long>(kMaxLen));
  std::printf("%6s", "");
  for (const Run& r : runs) std::printf("   %13s", r.name.c_str());
  std::printf("\n%6s", "length");
  for (size_t m = 0; m < runs.size(); ++m) std::printf("   %6s %6s", "exact", "token");
  std::printf("\n");
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] > kMaxLen && (i == 0 || lengths[i - 1] <= kMaxLen))
      std::printf("  -- longer than any training sequence --\n");
    std::printf("%6lld", static_cast<long long>(lengths[i]));
    for (const Run& r : runs) std::printf("   %6.3f %6.3f", r.by_length[i].exact(), r.by_length[i].token());
    std::printf("\n");
  }
  std::vector<Series> series;
  for (const Run& r : runs) {
    Series s{r.name, {}, {}};
    for (const Accuracy& a : r.by_length) {
      s.x.push_back(static_cast<real>(a.length));
      s.y.push_back(a.exact());
    }
    series.push_back(s);
  }
  const std::string path = dir + "/accuracy_by_length.svg";
  // The chart's point is what happens past the training lengths: a marker shows where they end.
  const XMarker trained{static_cast<real>(kMaxLen), "trained up to " + std::to_string(kMaxLen)};
  write_text_file(path, svg_line_chart(series, "reverse, trained on lengths 5-30", "source length", "exact accuracy",
                                       {trained}));
  std::printf("chart: %s\n\n", path.c_str());
}

void show_gradients(const std::vector<Run>& runs, const Task& task, const Budget& bud) {
  const int64_t L = bud.grad_len, mid = L / 2;
  std::printf("== 4. the gradient that reaches each encoder state (sources of length %lld, %lld sequences)\n",
              static_cast<long long>(L), static_cast<long long>(bud.grad_n));
  std::printf("||d loss_t / d h_i||, the mean over the sequences; loss_t: the cross-entropy of output t\n"
              "alone, teacher forced. Output %lld writes x_1; output %lld writes x_%lld.\n",
              static_cast<long long>(L), static_cast<long long>(mid), static_cast<long long>(L + 1 - mid));
  Batch batch = fixed_length_batch(task, L, bud.grad_n, 5);
  // Columns: untrained output L, trained output L, trained output mid; each for every model.
  std::vector<std::vector<real>> cols;
  for (const Run& r : runs) {
    Generator gen(kSeed);
    Seq2Seq untrained(config(r.name), gen);  // the same weights the run started from
    cols.push_back(encoder_gradient_norms(untrained, batch, L - 1));
  }
  for (const Run& r : runs) cols.push_back(encoder_gradient_norms(*r.model, batch, L - 1));
  for (const Run& r : runs) cols.push_back(encoder_gradient_norms(*r.model, batch, mid - 1));
  std::printf("%4s  %-26s  %-26s  %-26s\n", "", ("untrained, output " + std::to_string(L)).c_str(),
              ("trained, output " + std::to_string(L)).c_str(), ("trained, output " + std::to_string(mid)).c_str());
  std::printf("%4s", "i");
  for (int block = 0; block < 3; ++block) {
    std::printf(" ");
    for (const Run& r : runs) std::printf(" %8s", r.name.c_str());
  }
  std::printf("\n");
  for (int64_t i = L; i >= 1; --i) {
    std::printf("%4lld", static_cast<long long>(i));
    for (size_t c = 0; c < cols.size(); ++c) std::printf("%s %8.1e", c % runs.size() == 0 ? " " : "", cols[c][i - 1]);
    std::printf("\n");
  }
  std::printf("\n");
}

// Where the attention of output t peaks, relative to the position of the symbol it writes
// (x_{L+1-t}): the mean over the sequences of argmax_i alpha_ti - (L + 1 - t).
std::vector<real> peak_offsets(const Seq2Seq& model, const Batch& batch, int64_t L) {
  Decoded d = model.greedy(batch, L + 1);
  std::vector<real> offset(L, 0);
  for (int64_t b = 0; b < batch.batch; ++b)
    for (int64_t t = 0; t < L; ++t) {
      const std::vector<real>& w = d.attention[b][t];
      int64_t peak = std::max_element(w.begin(), w.end()) - w.begin();  // 0-based
      offset[t] += static_cast<real>(peak - (L - 1 - t)) / static_cast<real>(batch.batch);
    }
  return offset;
}

std::vector<real> key_norms(const Seq2Seq& model, const Batch& batch) {
  NoGradGuard no_grad;
  Tensor keys = model.start(batch).keys.value();  // (B, S, A)
  const int64_t B = keys.shape()[0], S = keys.shape()[1], A = keys.shape()[2];
  std::vector<real> norm(S, 0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < S; ++i) {
      real sq = 0;
      for (int64_t k = 0; k < A; ++k) sq += keys[(b * S + i) * A + k] * keys[(b * S + i) * A + k];
      norm[i] += std::sqrt(sq) / static_cast<real>(B);
    }
  return norm;
}

void show_looking(const std::vector<Run>& runs, const Task& task, const Budget& bud, const std::string& dir) {
  const std::vector<int64_t> lengths = {30, 35, 40};
  std::printf("== 5. past the training lengths: where the attention looks (%lld sequences per length)\n",
              static_cast<long long>(bud.look_n));
  std::printf("the peak of output t's attention minus the position of the symbol it writes, the mean\n"
              "over the sequences (0: on it; +1: on the state one step later)\n");
  std::vector<const Run*> attn = {&runs[1], &runs[2]};  // additive, general
  std::vector<std::vector<real>> offsets;
  for (const Run* r : attn)
    for (int64_t L : lengths)
      offsets.push_back(peak_offsets(*r->model, fixed_length_batch(task, L, bud.look_n, 7 + L), L));
  std::printf("%8s  %-20s  %-20s\n%8s", "", "additive", "general", "output");
  for (size_t m = 0; m < attn.size(); ++m) {
    std::printf(" ");
    for (int64_t L : lengths) std::printf("  L %2lld", static_cast<long long>(L));
    std::printf(" ");
  }
  std::printf("\n");
  for (int64_t t : {1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 25, 30, 33, 35, 38, 40}) {
    std::printf("%8lld", static_cast<long long>(t));
    for (size_t c = 0; c < offsets.size(); ++c) {
      const int64_t L = lengths[c % lengths.size()];
      std::printf("%s", c % lengths.size() == 0 ? "  " : "");
      if (t <= L)
        std::printf(" %+5.1f", offsets[c][t - 1]);
      else
        std::printf(" %5s", "");
    }
    std::printf("\n");
  }

  Batch long_batch = fixed_length_batch(task, 40, bud.look_n, 8);
  std::printf("\nthe keys' size by position, ||W1 h_i|| (additive) and ||W h_i|| (general), sources of length 40\n");
  std::printf("%8s", "i");
  for (int64_t i = 1; i <= 40; i += i == 1 ? 4 : 5) std::printf(" %5lld", static_cast<long long>(i));
  std::printf("\n");
  for (const Run* r : attn) {
    std::vector<real> n = key_norms(*r->model, long_batch);
    std::printf("%8s", r->name.c_str());
    for (int64_t i = 1; i <= 40; i += i == 1 ? 4 : 5) std::printf(" %5.1f", n[i - 1]);
    std::printf("\n");
  }

  // One sequence of length 35, as both models decode it.
  Generator gen(35);
  Example e = task.sample(gen, 35);
  Batch one = make_batch({e});
  const Vocab& v = task.tgt_vocab();
  std::printf("\none source of length 35:\n  %s\n", v.decode(e.src).c_str());
  std::vector<std::string> source;
  for (int64_t id : e.src) source.push_back(v.token(id));
  Decoded general;
  for (const Run* r : attn) {
    Decoded d = r->model->greedy(one, 36);
    int64_t right = 0;
    for (int64_t t = 0; t < 35; ++t) right += d.tokens[0][t] == one.tgt_out[t];
    std::printf("%s writes (%lld of 35 in place):\n  %s\n", r->name.c_str(), static_cast<long long>(right),
                v.decode(d.tokens[0]).c_str());
    std::vector<std::string> output;
    for (int64_t id : d.tokens[0]) output.push_back(v.token(id));
    const std::string path = dir + "/attention_" + r->name + "_35.svg";
    write_text_file(path, svg_heatmap(source, output, d.attention[0], r->name + ", a source of length 35"));
    std::printf("  heatmap: %s\n", path.c_str());
    if (r->name == "general") general = d;
  }
  // General's first outputs, over the source positions they look at, labelled by position.
  const int64_t rows = 12, from = 20;
  std::vector<std::string> positions, output;
  for (int64_t i = from; i <= 35; ++i) positions.push_back(std::to_string(i));
  std::vector<std::vector<real>> w;
  for (int64_t t = 0; t < rows; ++t) {
    output.push_back(v.token(general.tokens[0][t]));
    w.emplace_back(general.attention[0][t].begin() + (from - 1), general.attention[0][t].end());
  }
  std::printf("general's first %lld outputs; columns: source positions %lld..35\n", static_cast<long long>(rows),
              static_cast<long long>(from));
  std::printf("%s", terminal_heatmap(positions, output, w, false).c_str());
}

// Luong's input feeding (section 3.3 of the paper) on the same task and budget: general without
// it (the same run as above, so the same numbers) and with it, the cell reading h~_{t-1} too.
int run_input_feeding(bool quick) {
  const Budget bud = budget(quick);
  ReverseTask task(kSymbols, kMinLen, kMaxLen);
  const std::vector<int64_t> lengths = {5, 10, 15, 20, 25, 30, 35, 40};
  std::vector<Run> runs;
  for (bool feeding : {false, true}) {
    ModelConfig c = config("general");
    c.input_feeding = feeding;
    Generator gen(kSeed);
    runs.push_back(Run{feeding ? "general+if" : "general", std::make_unique<Seq2Seq>(c, gen), {}, {}, {}});
  }
  std::printf("== input feeding: general without and with it (Luong et al. 2015, section 3.3)\n");
  for (const Run& r : runs)
    std::printf("  %-10s %6lld parameters\n", r.name.c_str(), static_cast<long long>(r.model->num_parameters()));
  std::fflush(stdout);
  run_all(runs, task, bud, lengths);
  std::printf("%6s", "step");
  for (const Run& r : runs) std::printf(" %11s", r.name.c_str());
  std::printf("\n");
  for (int64_t s = bud.every; s <= bud.steps; s += bud.every) {
    std::printf("%6lld", static_cast<long long>(s));
    for (const Run& r : runs) std::printf(" %11.4f", window_mean(r.losses, s, bud.every));
    std::printf("\n");
  }
  std::printf("(the loss: the mean over the %lld steps up to each row)\n\n", static_cast<long long>(bud.every));
  std::printf("accuracy by source length (greedy, %lld sequences per length; trained on %lld..%lld)\n",
              static_cast<long long>(bud.samples), static_cast<long long>(kMinLen), static_cast<long long>(kMaxLen));
  std::printf("%6s", "length");
  for (size_t m = 0; m < runs.size(); ++m) std::printf("   %6s %6s", "exact", "token");
  std::printf("     (%s, then %s)\n", runs[0].name.c_str(), runs[1].name.c_str());
  for (size_t i = 0; i < lengths.size(); ++i) {
    std::printf("%6lld", static_cast<long long>(lengths[i]));
    for (const Run& r : runs) std::printf("   %6.3f %6.3f", r.by_length[i].exact(), r.by_length[i].token());
    std::printf("\n");
  }
  std::printf("\nthe peak of output t's attention minus the position of the symbol it writes (mean over %lld\n"
              "sequences), as in section 5\n",
              static_cast<long long>(bud.look_n));
  std::printf("%8s", "output");
  for (const Run& r : runs) std::printf("   %-10s %5s %5s", r.name.c_str(), "", "");
  std::printf("\n%8s", "");
  for (size_t m = 0; m < runs.size(); ++m) std::printf("   %5s %5s %5s", "L 30", "L 35", "L 40");
  std::printf("\n");
  std::vector<std::vector<std::vector<real>>> off(runs.size());
  for (size_t m = 0; m < runs.size(); ++m)
    for (int64_t L : {30, 35, 40}) off[m].push_back(peak_offsets(*runs[m].model, fixed_length_batch(task, L, bud.look_n, 7 + L), L));
  for (int64_t t : {1, 2, 5, 10, 20, 30, 35, 40}) {
    std::printf("%8lld", static_cast<long long>(t));
    for (size_t m = 0; m < runs.size(); ++m) {
      std::printf("   ");
      for (size_t k = 0; k < 3; ++k) {
        const std::vector<real>& o = off[m][k];
        if (t <= static_cast<int64_t>(o.size()))
          std::printf("%+5.1f ", o[t - 1]);
        else
          std::printf("%5s ", "");
      }
    }
    std::printf("\n");
  }
  return 0;
}

int run(bool quick, const std::string& dir) {
  const Budget bud = budget(quick);
  std::filesystem::create_directories(dir);
  ReverseTask task(kSymbols, kMinLen, kMaxLen);
  const std::vector<int64_t> lengths = {5, 10, 15, 20, 25, 30, 35, 40};

  std::vector<Run> runs;
  for (const char* name : kModels) {
    Generator gen(kSeed);
    runs.push_back(Run{name, std::make_unique<Seq2Seq>(config(name), gen), {}, {}, {}});
  }
  show_task(task, runs, bud);
  std::fflush(stdout);
  run_all(runs, task, bud, lengths);
  show_training(runs, bud);
  show_accuracy(runs, lengths, bud, dir);
  show_gradients(runs, task, bud);
  show_looking(runs, task, bud, dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  heed::tune_allocator();  // keep freed tensors with the process (tensor/tensor.h)
  bool quick = false, feeding = false;
  std::string dir = "build/ch10";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick")
      quick = true;
    else if (a == "--input-feeding")
      feeding = true;
    else if (!a.empty() && a[0] != '-')
      dir = a;
    else {
      std::fprintf(stderr, "tutorial-10: unknown flag '%s' (usage: tutorial-10 [--quick] [--input-feeding] [DIR])\n", a.c_str());
      return 2;
    }
  }
  try {
    return feeding ? run_input_feeding(quick) : run(quick, dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tutorial-10: %s\n", e.what());
    return 2;
  }
}
