// Chapter 14: a decoder-only Transformer, and watching an induction head form. Chapter 12's causal
// self-attention stacked into a model that predicts the next token (models/decoder_model.h), then
// the experiment of Elhage et al. 2021 and Olsson et al. 2022: attention-only models of 1 and 2
// layers trained on repeated random tokens, their heads found by what they do (models/analysis/heads.h),
// zeroed one at a time, and the induction head filmed while it forms.
// Sections: causal (the mask, the pieces, later tokens cannot change earlier logits, next-token
// loss; untrained), sample (temperature and top-k on the trained 2-layer model), repeat (both
// models trained; loss on each copy along the run, charted), heads (previous-token and induction
// scores of every head, and every head's matrix as one grid), ablate (each head zeroed), phase (the
// best layer-1 head's induction score against the in-context loss along the run, charted and
// filmed). The trained models are made once per run and shared by the sections that need them.
// Arguments: --quick (a tiny budget), --out DIR (pictures and film; build/ch14, --quick
// build/ch14/quick), and section names to run only those. stdout is deterministic; CPU times go
// to stderr.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "autograd/var.h"
#include "io/atomic_file.h"
#include "models/decoder_model.h"
#include "models/analysis/heads.h"
#include "models/tasks/tasks.h"
#include "models/train.h"
#include "tutorials/chapter.h"
#include "viz/film.h"
#include "viz/svg.h"

using namespace heed;

namespace {

real cpu_seconds() { return static_cast<real>(std::clock()) / CLOCKS_PER_SEC; }
long long ll(int64_t v) { return static_cast<long long>(v); }

// ---- the experiment's configuration, in one place ---------------------------------------------

struct Setup {
  int64_t vocab, min_len, max_len;  // repeat: segments of min_len .. max_len symbols out of vocab
  int64_t embed, heads;             // D and h of every layer (attention only, sinusoidal positions)
  int64_t steps, batch;             // training steps and sequences per step (lr 3e-3 decayed linearly)
  int64_t every;                    // a measurement every `every` steps
  int64_t curve_samples;            // sequences per measurement along the run
  int64_t final_samples;            // sequences of the final scores and the ablations
};
// As `heed train --model decoder --attention-only --layers N --task repeat --vocab 20 --min-len 8
// --max-len 16 --embed 64 --heads 4 --steps 4000` (seed 1, batch 32) for N = 1 and 2.
constexpr Setup kFull{20, 8, 16, 64, 4, 4000, 32, 50, 100, 500};
constexpr Setup kQuick{20, 8, 16, 16, 4, 40, 32, 20, 20, 20};

// The seeds heed train --seed 1 uses: the weights', the data stream's, and its final evaluation's.
constexpr uint64_t kSeed = 1, kDataSeed = kSeed + 1000003, kEvalSeed = kSeed + 7777777;
constexpr uint64_t kCurveSeed = 99;  // the sequences measured along the run
// The one fixed sequence filmed and drawn: a segment of 8 distinct symbols (the shortest length
// trained on), so that each symbol's first occurrence, and the place after it, is one position.
const std::vector<int64_t> kFilmSegment = {7, 2, 19, 11, 4, 16, 0, 13};

ModelConfig decoder_config(const Task& task, int64_t layers, int64_t embed, int64_t heads) {
  ModelConfig c;
  c.model = "decoder";
  c.attention_only = true;
  c.src_vocab = task.src_vocab().size();
  c.tgt_vocab = task.tgt_vocab().size();
  c.embed = embed;
  c.layers = layers;
  c.heads = heads;
  c.max_src_len = std::max<int64_t>(64, 2 * task.max_target_len());  // as heed train
  return c;
}

void print_matrix(const char* name, const real* w, int64_t rows, int64_t cols, const char* format = " %6.3f") {
  std::printf("%s\n", name);
  for (int64_t r = 0; r < rows; ++r) {
    std::printf("  ");
    for (int64_t c = 0; c < cols; ++c) std::printf(format, w[r * cols + c]);
    std::printf("\n");
  }
}

std::vector<std::string> tokens_of(const Vocab& v, const std::vector<int64_t>& ids) {
  std::vector<std::string> out;
  for (int64_t id : ids) out.push_back(v.token(id));
  return out;
}

// ---- 1. the causal mask and the decoder-only model ----------------------------------------------

void causal() {
  std::printf("== 1. from causal self-attention to a decoder-only model\n");
  // The mask of chapter 12 for T = 5: 1 where query t may read key s (s <= t), 0 where it may not.
  const int64_t T = 5;
  std::vector<real> mask(T * T);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t s = 0; s < T; ++s) mask[t * T + s] = s <= t ? 1 : 0;
  print_matrix("the causal mask, T 5 (query row t, key column s; 1: s <= t)", mask.data(), T, T, " %2.0f");

  // A small untrained model: 1 layer of 2 heads, D 8, on 5 symbols.
  RepeatTask small(5, 2, 2);
  Generator gen(kSeed);
  ModelConfig c = decoder_config(small, 1, 8, 2);
  DecoderModel m(c, gen);
  std::vector<int64_t> ids = {Vocab::kBos, 3 + 2, 3 + 0, 3 + 4, 3 + 1};  // <bos> 2 0 4 1
  std::vector<Var> w;
  {
    NoGradGuard no_grad;
    m.hidden(ids, 1, T, {T}, &w);
  }
  std::printf("tokens: %s\n", small.tgt_vocab().decode(ids).c_str());
  print_matrix("layer 0, head 0: its weights, each row a softmax over the keys the mask leaves", w[0].value().data(),
               T, T);

  // The pieces, by the names a PyTorch user would give them.
  RepeatTask task(kFull.vocab, kFull.min_len, kFull.max_len);
  Generator gen2(kSeed);
  DecoderModel two(decoder_config(task, 2, kFull.embed, kFull.heads), gen2);
  std::printf("the 2-layer attention-only model of section 3 (V %lld symbols + 3 specials, D %lld, %lld heads):\n",
              ll(kFull.vocab), ll(kFull.embed), ll(kFull.heads));
  for (const auto& [name, p] : two.named_parameters()) {
    std::printf("  %-28s", name.c_str());
    for (int64_t d : p.shape()) std::printf(" %lld", ll(d));
    std::printf("\n");
  }
  std::printf("  %lld parameters; the positions are sinusoidal (no parameters)\n", ll(two.num_parameters()));

  // A later token cannot change an earlier logit: change the token at j, compare every position.
  const std::vector<int64_t> segment = {3 + 7, 3 + 2, 3 + 19, 3 + 11};  // 7 2 19 11 (symbol k has id k + 3)
  std::vector<int64_t> twice = segment;
  twice.insert(twice.end(), segment.begin(), segment.end());
  Batch b = make_batch({Example{segment, twice}});
  const int64_t L = b.tgt_len, V = task.tgt_vocab().size();
  std::printf("one sequence, target shifted by one:\n  input  (tgt_in):  %s\n  target (tgt_out): %s\n",
              task.tgt_vocab().decode(b.tgt_in).c_str(), task.tgt_vocab().decode(b.tgt_out).c_str());
  NoGradGuard no_grad;
  const Tensor logits = two.forward(b).value();  // (1, L, V)
  std::printf("change the input token at j (to the next symbol): the largest change of the logits at each position\n");
  for (int64_t j : {1, 4, 7}) {
    Batch b2 = b;
    b2.tgt_in[j] = Vocab::kNumSpecials + (b.tgt_in[j] - Vocab::kNumSpecials + 1) % kFull.vocab;
    const Tensor changed = two.forward(b2).value();
    std::printf("  j %lld:", ll(j));
    int64_t same = 0;
    for (int64_t t = 0; t < L; ++t) {
      real d = 0;
      for (int64_t v = 0; v < V; ++v) d = std::max(d, std::fabs(changed[t * V + v] - logits[t * V + v]));
      same += std::memcmp(changed.data() + t * V, logits.data() + t * V, V * sizeof(real)) == 0;
      std::printf(" %.2g", d);
    }
    std::printf("   positions with bit-identical logits: %lld (0 .. %lld)\n", ll(same), ll(j - 1));
  }
  // The next-token loss: the mean cross-entropy of the targets y_1 .. y_L <eos>.
  std::printf("next-token loss of the untrained model on it: %.4f nats (log %lld = %.4f: a uniform guess over the "
              "whole vocabulary)\n\n",
              two.loss(b).value()[0], ll(V), std::log(static_cast<real>(V)));
}

// ---- the two trained models, and what is measured along their runs -----------------------------

// Of `samples` fresh sequences, the fraction whose second copy from its 2nd symbol the model
// predicts exactly: the most probable token at each of those positions, teacher forced.
real in_context_exact(const DecoderModel& m, const RepeatTask& task, int64_t samples, uint64_t seed) {
  NoGradGuard no_grad;
  Generator gen(seed);
  std::vector<Example> ex;
  for (int64_t i = 0; i < samples; ++i) ex.push_back(task.sample(gen));
  const Batch b = make_batch(ex);
  const Tensor logits = m.forward(b).value();  // (B, T, V)
  const int64_t T = b.tgt_len, V = logits.shape()[2];
  int64_t right = 0;
  for (int64_t r = 0; r < b.batch; ++r) {
    const int64_t n = static_cast<int64_t>(ex[r].src.size());
    bool all = true;
    for (int64_t t = n + 1; t < 2 * n; ++t) {
      const real* row = logits.data() + (r * T + t) * V;
      all = all && std::max_element(row, row + V) - row == b.tgt_out[r * T + t];
    }
    right += all;
  }
  return static_cast<real>(right) / static_cast<real>(samples);
}

struct Point {
  int64_t step = 0;
  HalvesLoss loss;                 // on the curve's sequences
  std::vector<HeadScore> scores;   // every head
  real exact = 0;                  // in_context_exact on the curve's sequences
  real train_loss = 0;             // mean training loss since the previous point (NaN at step 0)
  std::vector<std::vector<std::vector<real>>> film;  // the last layer's heads on the film sequence (h, T, T)
  std::vector<int64_t> output;     // the most probable token at each position of the film sequence
};

struct Run {
  std::unique_ptr<DecoderModel> model;
  std::vector<Point> points;
  real cpu = 0;  // seconds of training and measuring
};

struct Experiment {
  Setup s;
  RepeatTask task;
  Example film;  // the fixed sequence
  std::map<int64_t, Run> runs;
  explicit Experiment(const Setup& setup)
      : s(setup), task(setup.vocab, setup.min_len, setup.max_len), film([] {
          std::vector<int64_t> ids;
          for (int64_t k : kFilmSegment) ids.push_back(Vocab::kNumSpecials + k);  // symbol k has id k + 3
          std::vector<int64_t> twice = ids;
          twice.insert(twice.end(), ids.begin(), ids.end());
          return Example{ids, twice};
        }()) {}
  real log_v() const { return std::log(static_cast<real>(s.vocab)); }
};

Point measure(const DecoderModel& m, Experiment& e, int64_t step, real train_loss) {
  Point p;
  p.step = step;
  p.train_loss = train_loss;
  p.loss = repeat_halves_loss(m, e.task, e.s.curve_samples, kCurveSeed);
  p.scores = head_scores(m, e.task, e.s.curve_samples, kCurveSeed);
  p.exact = in_context_exact(m, e.task, e.s.curve_samples, kCurveSeed);
  NoGradGuard no_grad;
  const Batch b = make_batch({e.film});
  const int64_t T = b.tgt_len, h = m.config().heads;
  std::vector<Var> w;
  const Tensor logits = m.logits(m.hidden(b.tgt_in, 1, T, b.tgt_lengths, &w)).value();
  const Tensor& last = w.back().value();  // (1, h, T, T)
  p.film.resize(h);
  for (int64_t k = 0; k < h; ++k)
    for (int64_t t = 0; t < T; ++t) {
      const real* row = last.data() + (k * T + t) * T;
      p.film[k].emplace_back(row, row + T);
    }
  const int64_t V = logits.shape()[2];
  for (int64_t t = 0; t < T; ++t) {
    const real* row = logits.data() + t * V;
    p.output.push_back(std::max_element(row, row + V) - row);
  }
  return p;
}

// The model of `layers` layers, trained once per run of the program and measured every s.every steps.
Run& trained(Experiment& e, int64_t layers) {
  auto found = e.runs.find(layers);
  if (found != e.runs.end()) return found->second;
  Run& r = e.runs[layers];
  Generator gen(kSeed);
  r.model = std::make_unique<DecoderModel>(decoder_config(e.task, layers, e.s.embed, e.s.heads), gen);
  TrainOptions opt;  // heed train's defaults: lr 3e-3 decayed linearly, clip 1
  opt.steps = e.s.steps;
  opt.batch = e.s.batch;
  opt.seed = kDataSeed;
  const real start = cpu_seconds();
  r.points.push_back(measure(*r.model, e, 0, NAN));
  real sum = 0;
  int64_t count = 0;
  train(*r.model, e.task, opt, [&](const Progress& p) {
    sum += p.loss;
    ++count;
    if (p.step % e.s.every != 0 && p.step != p.steps) return;
    r.points.push_back(measure(*r.model, e, p.step, sum / static_cast<real>(count)));
    sum = 0;
    count = 0;
    if (p.step % 500 == 0)
      std::fprintf(stderr, "tutorial-14: %lld layer(s), step %lld of %lld, %.0f s of CPU\n", ll(layers), ll(p.step),
                   ll(p.steps), cpu_seconds() - start);
  });
  r.cpu = cpu_seconds() - start;
  std::fprintf(stderr, "tutorial-14: the %lld-layer run took %.1f s of CPU (training and measuring)\n", ll(layers),
               r.cpu);
  return r;
}

// ---- 2. sampling --------------------------------------------------------------------------------

// Entropy in nats of the distribution draw_token draws from: softmax(logits / temperature) over
// the top_k most probable tokens (all when 0); 0 at temperature 0, which always takes the argmax.
real draw_entropy(const real* logits, int64_t V, const SamplingOptions& o) {
  if (o.temperature == 0) return 0;
  std::vector<real> z(logits, logits + V);
  std::vector<int64_t> order(V);
  for (int64_t i = 0; i < V; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return z[a] > z[b]; });
  const int64_t k = o.top_k > 0 ? std::min(o.top_k, V) : V;
  const real top = z[order[0]] / o.temperature;
  real total = 0;
  std::vector<real> p;
  for (int64_t i = 0; i < k; ++i) {
    p.push_back(std::exp(z[order[i]] / o.temperature - top));
    total += p.back();
  }
  real h = 0;
  for (real q : p)
    if (q > 0) h -= q / total * std::log(q / total);
  return h;
}

void sample(Experiment& e) {
  Run& r = trained(e, 2);
  const DecoderModel& m = *r.model;
  const Vocab& v = e.task.tgt_vocab();
  std::printf("== 2. sampling from the 2-layer model of section 3 (trained first): the prompt is a segment and\n"
              "the first symbol of its repetition; a model that copies writes the rest of the segment, then <eos>\n");
  Generator data(2024);
  Example ex = e.task.sample(data, 10);
  std::vector<int64_t> prompt = ex.src;
  prompt.push_back(ex.src[0]);
  std::printf("prompt: %s\nthe rest of the copy: %s <eos>\n", v.decode(prompt).c_str(),
              v.decode(std::vector<int64_t>(ex.src.begin() + 1, ex.src.end())).c_str());
  struct Row {
    real temperature;
    int64_t top_k;
  };
  for (const Row row : {Row{0, 0}, Row{1, 0}, Row{2, 0}, Row{2, 3}}) {
    SamplingOptions o;
    o.temperature = row.temperature;
    o.top_k = row.top_k;
    Generator gen(5);
    const std::vector<int64_t> got = sample_continuation(m, prompt, 10, o, gen);
    // The entropy of each step's distribution: one forward over the whole sequence gives every
    // step's logits, as the logits at t do not depend on the tokens after t (section 1).
    std::vector<int64_t> ids = {Vocab::kBos};
    ids.insert(ids.end(), prompt.begin(), prompt.end());
    ids.insert(ids.end(), got.begin(), got.end());
    const int64_t T = static_cast<int64_t>(ids.size()), P = static_cast<int64_t>(prompt.size());
    NoGradGuard no_grad;
    const Tensor logits = m.logits(m.hidden(ids, 1, T, {T})).value();
    const int64_t V = logits.shape()[2];
    real entropy = 0;
    int64_t right = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      entropy += draw_entropy(logits.data() + (P + static_cast<int64_t>(i)) * V, V, o);
      const int64_t want = i + 1 < ex.src.size() ? ex.src[i + 1] : Vocab::kEos;
      right += got[i] == want;
    }
    std::printf("temperature %.0f, top-k %lld: %-32s  %2lld of %zu as the copy; entropy per step %.3f nats\n",
                row.temperature, ll(row.top_k), v.decode(got).c_str(), ll(right), got.size(),
                entropy / static_cast<real>(got.size()));
  }
  std::printf("(log %lld = %.3f nats: the entropy of a uniform draw over the whole vocabulary)\n\n",
              ll(v.size()), std::log(static_cast<real>(v.size())));
}

// ---- 3. the experiment -------------------------------------------------------------------------

void repeat(Experiment& e, const std::string& dir) {
  const std::string chart_path = dir + "/repeat_loss.svg";
  std::filesystem::create_directories(dir);
  check_writable(chart_path);
  const real log_v = e.log_v();
  std::printf("== 3. repeat: segments of %lld .. %lld symbols out of %lld, then the segment again; attention-only,\n"
              "D %lld, %lld heads, %lld steps of %lld (lr 3e-3 decayed linearly); log V = log %lld = %.4f nats\n",
              ll(e.s.min_len), ll(e.s.max_len), ll(e.s.vocab), ll(e.s.embed), ll(e.s.heads), ll(e.s.steps),
              ll(e.s.batch), ll(e.s.vocab), log_v);
  std::printf("loss per symbol (nats) on %lld sequences along the run: first copy / repeated copy / from its 2nd symbol\n",
              ll(e.s.curve_samples));
  std::printf("  step      1 layer                   2 layers\n");
  Run& one = trained(e, 1);
  Run& two = trained(e, 2);
  const int64_t print_every = std::max<int64_t>(e.s.every, e.s.steps / 8);
  for (size_t i = 0; i < one.points.size(); ++i) {
    const Point &a = one.points[i], &b = two.points[i];
    if (a.step % print_every != 0 && a.step != e.s.steps) continue;
    std::printf("  %5lld   %.3f %.3f %.3f       %.3f %.3f %.3f\n", ll(a.step), a.loss.first, a.loss.repeated,
                a.loss.in_context, b.loss.first, b.loss.repeated, b.loss.in_context);
  }
  std::printf("final, on %lld fresh sequences (nats per symbol, and %% of log V):\n", ll(e.s.final_samples));
  for (int64_t layers : {1, 2}) {
    const HalvesLoss h = repeat_halves_loss(*e.runs[layers].model, e.task, e.s.final_samples, kEvalSeed);
    std::printf("  %lld layer%s first copy %.4f (%.1f %%)  repeated copy %.4f (%.1f %%)  from its 2nd symbol %.4f (%.1f %%)\n",
                ll(layers), layers == 1 ? ": " : "s:", h.first, 100 * h.first / log_v, h.repeated,
                100 * h.repeated / log_v, h.in_context, 100 * h.in_context / log_v);
    if (layers == 2)
      std::printf("  target: 2 layers below 10 %% of log V from the 2nd symbol: %s; the whole repeated copy: %s\n",
                  h.in_context < 0.1 * log_v ? "met" : "missed", h.repeated < 0.1 * log_v ? "met" : "missed");
    else
      std::printf("  target: 1 layer above half of log V on the repeated copy: %s; from its 2nd symbol: %s\n",
                  h.repeated > 0.5 * log_v ? "met" : "missed", h.in_context > 0.5 * log_v ? "met" : "missed");
  }
  // The chart: each model a colour, each measure a line style; log V as a flat grey line.
  std::vector<Series> chart;
  const char* measures[] = {"first copy", "repeated copy", "from its 2nd symbol"};
  for (int64_t layers : {1, 2})
    for (int k = 0; k < 3; ++k) {
      Series s{std::to_string(layers) + (layers == 1 ? " layer, " : " layers, ") + measures[k], {}, {}, int(layers) - 1, k};
      for (const Point& p : e.runs[layers].points) {
        s.x.push_back(static_cast<real>(p.step));
        s.y.push_back(k == 0 ? p.loss.first : k == 1 ? p.loss.repeated : p.loss.in_context);
      }
      chart.push_back(s);
    }
  chart.push_back(Series{"log V (a uniform guess)", {0, static_cast<real>(e.s.steps)}, {log_v, log_v}, 6, 3});
  chart.push_back(Series{"half of log V", {0, static_cast<real>(e.s.steps)}, {log_v / 2, log_v / 2}, 6, 2});
  write_text_file(chart_path, svg_line_chart(chart, "repeat: loss on each copy while training, 1 and 2 attention-only layers",
                                             "training step", "loss per symbol (nats)"));
  std::printf("(chart: %s)\n\n", chart_path.c_str());
}

// ---- 4. the heads, by what they do ---------------------------------------------------------------

void heads(Experiment& e, const std::string& dir) {
  std::printf("== 4. every head's previous-token score (mean weight on t-1) and induction score (mean weight on\n"
              "the place after the current symbol's first occurrence), %lld sequences\n",
              ll(e.s.final_samples));
  for (int64_t layers : {1, 2}) {
    const DecoderModel& m = *trained(e, layers).model;
    std::printf("%lld layer%s\n  layer head  previous-token  induction\n", ll(layers), layers == 1 ? "" : "s");
    for (const HeadScore& h : head_scores(m, e.task, e.s.final_samples, kEvalSeed))
      std::printf("  %5lld %4lld  %14.3f  %9.3f\n", ll(h.layer), ll(h.head), h.previous_token, h.induction);
  }
  // Every head's matrix on the film's sequence: layers down, heads across.
  const DecoderModel& m = *trained(e, 2).model;
  const Batch b = make_batch({e.film});
  const int64_t T = b.tgt_len, h = m.config().heads;
  std::vector<Var> w;
  {
    NoGradGuard no_grad;
    m.hidden(b.tgt_in, 1, T, b.tgt_lengths, &w);
  }
  std::vector<std::string> tokens = tokens_of(e.task.tgt_vocab(), b.tgt_in);
  for (int64_t t = 0; t < T; ++t) tokens[t] = std::to_string(t) + ": " + tokens[t];
  std::vector<std::vector<HeatmapPanel>> grid(w.size());
  for (size_t l = 0; l < w.size(); ++l)
    for (int64_t k = 0; k < h; ++k) {
      HeatmapPanel p{"layer " + std::to_string(l) + ", head " + std::to_string(k), {}};
      for (int64_t t = 0; t < T; ++t) {
        const real* row = w[l].value().data() + (k * T + t) * T;
        p.weights.emplace_back(row, row + T);
      }
      grid[l].push_back(p);
    }
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/heads_repeat.svg";
  write_text_file(path, svg_heatmap_grid(tokens, tokens, grid,
                                         "the 2-layer model on one repeat sequence: every head's attention",
                                         AxisCaptions{"key (position: token)", "query (position: token)"}));
  std::printf("the sequence: %s\n(every head's matrix: %s)\n\n", e.task.tgt_vocab().decode(b.tgt_in).c_str(),
              path.c_str());
}

// ---- 5. ablation --------------------------------------------------------------------------------

void ablate(Experiment& e) {
  std::printf("== 5. each head zeroed in turn: the loss (nats per symbol) on %lld sequences, repeated copy and\n"
              "from its 2nd symbol\n",
              ll(e.s.final_samples));
  for (int64_t layers : {1, 2}) {
    DecoderModel& m = *trained(e, layers).model;
    const HalvesLoss base = repeat_halves_loss(m, e.task, e.s.final_samples, kEvalSeed);
    std::printf("%lld layer%s nothing zeroed          %.4f  %.4f\n", ll(layers), layers == 1 ? ": " : "s:",
                base.repeated, base.in_context);
    for (const HeadAblation& a : ablate_each_head(m, e.task, e.s.final_samples, kEvalSeed))
      std::printf("  layer %lld head %lld zeroed        %.4f  %.4f\n", ll(a.layer), ll(a.head), a.loss.repeated,
                  a.loss.in_context);
  }
  std::printf("\n");
}

// ---- 6. the phase change ------------------------------------------------------------------------

void phase(Experiment& e, const std::string& dir) {
  std::filesystem::create_directories(dir);
  const std::string chart_path = dir + "/phase_change.svg", film_path = dir + "/induction_film.html";
  check_writable(chart_path);
  check_writable(film_path);
  Run& r = trained(e, 2);
  const real log_v = e.log_v();
  // The layer-1 head with the highest induction score at the end of the run.
  const int64_t last = r.model->num_layers() - 1;
  int64_t best = -1;
  real best_score = -1;
  for (const HeadScore& h : r.points.back().scores)
    if (h.layer == last && h.induction > best_score) {
      best = h.head;
      best_score = h.induction;
    }
  auto score_of = [&](const Point& p) {
    for (const HeadScore& h : p.scores)
      if (h.layer == last && h.head == best) return h.induction;
    return real(0);
  };
  std::printf("== 6. the phase change in the 2-layer run: layer %lld head %lld (the highest induction score at the end),\n"
              "every %lld steps, on %lld sequences: its induction score and the loss from the repeated copy's 2nd symbol\n",
              ll(last), ll(best), ll(e.s.every), ll(e.s.curve_samples));
  int64_t score_step = -1, loss_step = -1;
  for (const Point& p : r.points) {
    if (score_step < 0 && score_of(p) > 0.5) score_step = p.step;
    if (loss_step < 0 && p.loss.in_context < 0.5 * log_v) loss_step = p.step;
  }
  // Every measurement in the first quarter of the run, where the change happens; then every eighth of it.
  const int64_t print_every = std::max<int64_t>(e.s.every, e.s.steps / 8);
  for (const Point& p : r.points)
    if (4 * p.step <= e.s.steps || p.step % print_every == 0 || p.step == e.s.steps)
      std::printf("  step %5lld  induction %.3f  loss %.3f  (%5.1f %% of log V)\n", ll(p.step), score_of(p),
                  p.loss.in_context, 100 * p.loss.in_context / log_v);
  auto said = [](int64_t step) { return step < 0 ? std::string("never") : "at step " + std::to_string(step); };
  std::printf("the induction score first above 0.5: %s; the loss first below half of log V: %s\n",
              said(score_step).c_str(), said(loss_step).c_str());
  // Both curves on one axis: the score in [0, 1] and the loss as a fraction of log V.
  Series score{"layer " + std::to_string(last) + " head " + std::to_string(best) + ": induction score", {}, {}, 1, 0};
  Series loss{"in-context loss / log V", {}, {}, 0, 1};
  // The chart shows the first quarter of the run (at least two measurements), where the change is.
  const int64_t window = std::max(e.s.steps / 4, 2 * e.s.every);
  for (const Point& p : r.points) {
    if (p.step > window) break;
    score.x.push_back(static_cast<real>(p.step));
    score.y.push_back(score_of(p));
    loss.x.push_back(static_cast<real>(p.step));
    loss.y.push_back(p.loss.in_context / log_v);
  }
  std::vector<XMarker> marks;
  if (score_step >= 0 && score_step == loss_step) {
    marks.push_back({static_cast<real>(score_step), "score and loss"});
  } else {
    if (score_step >= 0) marks.push_back({static_cast<real>(score_step), "score"});
    if (loss_step >= 0) marks.push_back({static_cast<real>(loss_step), "loss"});
  }
  write_text_file(chart_path, svg_line_chart({score, loss}, "the phase change, the run's first " + std::to_string(window) + " steps (grey: each curve's first step past 0.5)",
                                             "training step", "score, or loss / log V", marks));
  // The film: that head's attention on the fixed sequence at every measurement.
  const Vocab& v = e.task.tgt_vocab();
  const Batch b = make_batch({e.film});
  Film film;
  film.title = "an induction head forming: layer " + std::to_string(last) + ", head " + std::to_string(best);
  film.caption = "2 attention-only layers, D " + std::to_string(e.s.embed) + ", " + std::to_string(e.s.heads) +
                 " heads, repeat " + std::to_string(e.s.min_len) + "-" + std::to_string(e.s.max_len) + " of " +
                 std::to_string(e.s.vocab) + " symbols; rows: the position reading (labelled with the token it "
                 "predicts), columns: the tokens read; accuracy: second copies predicted exactly from their 2nd symbol";
  film.shows = "self-attention, layer " + std::to_string(last) + ", head " + std::to_string(best);
  film.across = "token read";
  film.down = "position reading (the token it predicts)";
  film.hint = "Row t is the position that predicts the next token (labelled with that token), column j a token it "
              "reads: only j <= t, the mask is causal. Darker cells got more attention. Every frame is teacher "
              "forced on the same sequence, so the rows are the true tokens, not the model's guesses. An induction "
              "head lights up, in the second copy, the diagonal one segment-length-less-one below the main one. "
              "Drag the slider, use the arrow keys on it, or press play.";
  film.source = tokens_of(v, b.tgt_in);
  film.reference = tokens_of(v, b.tgt_out);
  for (const Point& p : r.points)
    film.frames.push_back(FilmFrame{p.step, p.train_loss, p.exact, tokens_of(v, p.output), p.film[best], {}, {}});
  write_text_file(film_path, html_film(film));
  std::printf("(chart: %s; film: %s)\n\n", chart_path.c_str(), film_path.c_str());
}

const std::vector<std::string> kSections = {"causal", "sample", "repeat", "heads", "ablate", "phase"};

}  // namespace

int main(int argc, char** argv) {
  chapter::Args args;
  if (!chapter::read_args(argc, argv, kSections, "tutorial-14",
                          "usage: tutorial-14 [--quick] [--out DIR] [causal|sample|repeat|heads|ablate|phase ...]", args))
    return 2;
  const bool quick = args.quick;
  const std::string dir = !args.dir.empty() ? args.dir : quick ? "build/ch14/quick" : "build/ch14";
  auto wanted = [&](const std::string& name) { return args.wants(name); };
  try {
    Experiment e(quick ? kQuick : kFull);
    if (wanted("causal")) causal();
    if (wanted("sample")) sample(e);
    if (wanted("repeat")) repeat(e, dir);
    if (wanted("heads")) heads(e, dir);
    if (wanted("ablate")) ablate(e);
    if (wanted("phase")) phase(e, dir);
    std::fprintf(stderr, "tutorial-14: %.0f s of CPU in all\n", cpu_seconds());
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "tutorial-14: %s\n", ex.what());
    return 2;
  }
  return 0;
}
