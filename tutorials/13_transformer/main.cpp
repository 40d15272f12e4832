// Chapter 13: attention is all you need. The Transformer built from heed's pieces, then set
// beside the additive (Bahdanau) GRU model of chapters 07-11 on the same tasks and budgets.
// Sections: qkv (one attention step by hand), causal (the decoder cannot see ahead), reverse
// (accuracy by length, trained 5-30, scored to 40), speed (steps to 99 % and the cost of a step as
// the length grows), translate (the toy German->English task and the seed sentence's
// cross-attention per layer and head, and every head's matrix as one grid), recipe (the paper's
// warm-up, label smoothing and shared output embedding, each against the defaults, on reverse and
// translate). Arguments: --quick (a tiny budget), --out DIR (pictures, build/ch13), and section
// names to run only those; `figures [DIR]` draws the quick figure (one encoder and one decoder
// layer) alone. stdout is deterministic; CPU times go to
// stderr (`speed` prints its measured step times there).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "io/atomic_file.h"
#include "models/evaluate.h"
#include "models/seq2seq.h"
#include "models/transformer.h"
#include "models/tasks/tasks.h"
#include "models/train.h"
#include "models/tasks/translate.h"
#include "nn/optim.h"
#include "nn/transformer_layers.h"
#include "tutorials/chapter.h"
#include "viz/diagram.h"
#include "viz/svg.h"

using namespace heed;

namespace {

real cpu_seconds() { return static_cast<real>(std::clock()) / CLOCKS_PER_SEC; }
long long ll(int64_t v) { return static_cast<long long>(v); }

void print_matrix(const char* name, const Tensor& t, int64_t rows, int64_t cols) {
  std::printf("%s\n", name);
  for (int64_t r = 0; r < rows; ++r) {
    std::printf("  ");
    for (int64_t c = 0; c < cols; ++c) std::printf(" %7.4f", t[r * cols + c]);
    std::printf("\n");
  }
}

// ---- 1. Q, K, V by hand ------------------------------------------------------------------------

void qkv() {
  std::printf("== 1. one attention step by hand: 3 tokens, D 2, one head\n");
  Generator gen(1);
  TransformerAttention att(2, 1, gen);
  // W_q scales, W_k swaps the two features, W_v is the identity; no biases; out_proj = identity.
  att.in_proj_weight.value() = Tensor({6, 2}, {2, 0, 0, 2, 0, 1, 1, 0, 1, 0, 0, 1});
  att.in_proj_bias.value().fill(0);
  att.out_proj.weight.value() = Tensor({2, 2}, {1, 0, 0, 1});
  att.out_proj.bias.value().fill(0);
  Tensor x({1, 3, 2}, {1, 0, 0, 1, 1, 1});
  print_matrix("x (3 tokens x 2 features)", x, 3, 2);
  print_matrix("Q = x W_q^T   (W_q = [[2, 0], [0, 2]])", Tensor({3, 2}, {2, 0, 0, 2, 2, 2}), 3, 2);
  print_matrix("K = x W_k^T   (W_k = [[0, 1], [1, 0]])", Tensor({3, 2}, {0, 1, 1, 0, 1, 1}), 3, 2);
  print_matrix("V = x W_v^T   (W_v = I)", Tensor({3, 2}, {1, 0, 0, 1, 1, 1}), 3, 2);
  Tensor scores({3, 3}, {0, 2, 2, 2, 0, 2, 2, 2, 4});
  for (real& s : scores.values()) s /= std::sqrt(2.0);
  print_matrix("scores = Q K^T / sqrt(2)", scores, 3, 3);
  AttentionOutput a = att.forward(Var(x), Var(x), Tensor::ones({1, 3, 3}));
  print_matrix("weights = softmax of each row (heed's TransformerAttention)", a.weights.value(), 3, 3);
  print_matrix("output = weights V (then W_o = I)", a.output.value(), 3, 2);
  std::printf("\n");
}

// ---- 2. the causal decoder ---------------------------------------------------------------------

void causal() {
  std::printf("== 2. the decoder's causal mask: a later token cannot change an earlier output\n");
  Generator gen(2);
  const int64_t D = 8, T = 5;
  TransformerDecoder dec(2, LayerSizes{D, 2, 16, false}, gen);
  Var memory(Tensor::normal({1, 4, D}, 0, 1, gen));
  Tensor y = Tensor::normal({1, T, D}, 0, 1, gen);
  Tensor self = key_mask(Tensor::ones({1, T}), T, true), cross = key_mask(Tensor::ones({1, 4}), T, false);
  std::vector<Var> self_w;
  Tensor out = dec.forward(Var(y), self, memory, cross, {}, &self_w).value();
  print_matrix("layer 0, head 0: self-attention weights (query row, key column)", self_w[0].value(), T, T);
  for (int64_t changed = 0; changed < T; ++changed) {
    Tensor y2 = y;
    for (int64_t d = 0; d < D; ++d) y2[changed * D + d] += 1;
    Tensor out2 = dec.forward(Var(y2), self, memory, cross).value();
    std::printf("change input %lld: largest change of output", ll(changed));
    for (int64_t t = 0; t < T; ++t) {
      real m = 0;
      for (int64_t d = 0; d < D; ++d) m = std::max(m, std::fabs(out2[t * D + d] - out[t * D + d]));
      std::printf(" %lld: %.3g", ll(t), m);
    }
    std::printf("\n");
  }
  std::printf("\n");
}

// ---- the two models ----------------------------------------------------------------------------

constexpr uint64_t kSeed = 1, kDataSeed = kSeed + 1000003;  // as heed train --seed 1

ModelConfig config(const Task& task, const std::string& model) {
  ModelConfig c;
  c.model = model;
  c.src_vocab = task.src_vocab().size();
  c.tgt_vocab = task.tgt_vocab().size();
  c.embed = 32;
  c.hidden = 64;
  c.max_src_len = std::max<int64_t>(64, 2 * task.max_len());
  // The transformer keeps heed train's defaults: d 32 (embed), 2 + 2 layers, 4 heads, ff 128,
  // post-norm, sinusoidal positions: about as many parameters as the additive model's E 32, H 64.
  return c;
}

const char* const kModels[] = {"additive", "transformer"};

// Trains from the kSeed weights on the kDataSeed stream; returns the CPU seconds taken.
real train_model(Model& model, const Task& task, int64_t steps, const char* what) {
  TrainOptions opt;
  opt.steps = steps;
  opt.batch = 32;
  opt.seed = kDataSeed;
  const real start = cpu_seconds();
  train(model, task, opt, [&](const Progress& p) {
    if (p.step % 200 == 0)
      std::fprintf(stderr, "tutorial-13: %s %s step %lld of %lld, %.0f s of CPU\n", what, model.config().model.c_str(),
                   ll(p.step), ll(p.steps), cpu_seconds() - start);
  });
  return cpu_seconds() - start;
}

// ---- 3. reverse, by length ---------------------------------------------------------------------

// For the sequences of one length: how often the most-attended source position of output step t
// (t < L; last layer, heads averaged) is L-1-t, the symbol being copied.
real aligned_fraction(const Model& model, const Task& task, int64_t L, int64_t n) {
  Generator gen(4242 + static_cast<uint64_t>(L));
  std::vector<Example> ex;
  for (int64_t i = 0; i < n; ++i) ex.push_back(task.sample(gen, L));
  Decoded d = model.greedy(make_batch(ex), L + 1);
  int64_t right = 0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t t = 0; t < L; ++t) {
      const std::vector<real>& w = d.attention[b][t];
      right += std::max_element(w.begin(), w.end()) - w.begin() == L - 1 - t;
    }
  return static_cast<real>(right) / static_cast<real>(n * L);
}

void reverse(bool quick, const std::string& dir) {
  const int64_t steps = quick ? 30 : 1500, samples = quick ? 10 : 100;
  // The chart is written after minutes of training: a destination that cannot take it (a missing
  // or read-only folder, a folder in the file's place) is found out now, not then.
  const std::string chart_path = dir + "/accuracy_by_length.svg";
  std::filesystem::create_directories(dir);
  check_writable(chart_path);
  ReverseTask task(10, 5, 30);
  std::printf("== 3. reverse, trained on lengths 5-30, scored to 40 (%lld steps of 32, lr 3e-3 decayed)\n", ll(steps));
  const std::vector<int64_t> lengths = {5, 10, 15, 20, 25, 30, 35, 40};
  std::vector<Series> chart;
  std::vector<std::unique_ptr<Model>> models;
  for (const char* name : kModels) {
    Generator gen(kSeed);
    models.push_back(make_model(config(task, name), gen));
    Model& m = *models.back();
    train_model(m, task, steps, "reverse");
    std::vector<Accuracy> acc = evaluate_by_length(m, task, lengths, samples, 777);
    std::printf("%-11s %6lld params  exact by length:", name, ll(m.num_parameters()));
    Series s{name, {}, {}};
    for (const Accuracy& a : acc) {
      std::printf(" %lld: %.2f", ll(a.length), a.exact());
      s.x.push_back(static_cast<real>(a.length));
      s.y.push_back(a.exact());
    }
    std::printf("\n");
    chart.push_back(s);
  }
  std::printf("where the most-attended source position is the one being copied (last layer, heads averaged\n"
              "for the transformer), by length:\n");
  for (size_t i = 0; i < models.size(); ++i) {
    std::printf("%-11s", kModels[i]);
    for (int64_t L : lengths) std::printf(" %lld: %.2f", ll(L), aligned_fraction(*models[i], task, L, quick ? 5 : 50));
    std::printf("\n");
  }
  write_text_file(chart_path, svg_line_chart(chart, "reverse: trained on 5-30, exact by length", "source length", "exact",
                                             {{static_cast<real>(task.max_len()), "trained up to " + std::to_string(task.max_len())}}));
  std::printf("(chart: %s)\n\n", chart_path.c_str());
}

// ---- 4. speed ----------------------------------------------------------------------------------

// Matrix-product FLOPs (2 m n k) of one teacher-forced forward pass, batch 32, source length L,
// target L + 1, V = 13: the products that dominate (as heed bench counts them).
real flops(const ModelConfig& c, int64_t L) {
  const real B = 32, S = static_cast<real>(L), T = S + 1, V = 13, E = c.embed, H = c.hidden;
  if (c.model == "transformer") {
    const real D = c.embed, F = c.ff, N = c.layers;
    real enc = 2 * B * S * 4 * D * D + 4 * B * S * S * D + 4 * B * S * D * F;
    real dec = 2 * B * T * 4 * D * D + 4 * B * T * T * D + 2 * B * T * 2 * D * D + 2 * B * S * 2 * D * D +
               4 * B * T * S * D + 4 * B * T * D * F;
    return N * (enc + dec) + 2 * B * T * D * V;
  }
  real f = 2 * B * S * 3 * H * (E + H) + 2 * B * T * 3 * H * (E + H + H);  // GRU encoder, decoder
  return f + 2 * B * S * H * H + 2 * B * T * H * H + 2 * B * T * S * H + 2 * B * T * S * H +
         2 * B * T * 2 * H * V;  // W1 keys, W2 query, v, context, out
}

void speed(bool quick) {
  const int64_t steps = quick ? 40 : 1000, every = quick ? 20 : 50;
  ReverseTask task(10, 5, 10);
  std::printf("== 4. reverse 5-10, %lld steps of 32 (lr 3e-3 decayed linearly): held-out exact (200 sequences)\n"
              "every %lld steps, and the first step at 99 %%\n",
              ll(steps), ll(every));
  for (const char* name : kModels) {
    Generator gen(kSeed);
    std::unique_ptr<Model> built = make_model(config(task, name), gen);
    Model& m = *built;
    TrainOptions opt;
    opt.steps = steps;
    opt.batch = 32;
    opt.seed = kDataSeed;
    real trained = 0, last = cpu_seconds();
    int64_t reached = -1;
    std::printf("%-11s", name);
    train(m, task, opt, [&](const Progress& p) {
      if (p.step % every != 0) return;
      trained += cpu_seconds() - last;
      const real exact = evaluate_held_out(m, task, 200, 99).exact();
      last = cpu_seconds();
      if (p.step % (2 * every) == 0) std::printf(" %.2f", exact);
      if (exact >= 0.99 && reached < 0) {
        reached = p.step;
        std::fprintf(stderr, "tutorial-13: %s reached 0.99 after %lld steps, %.1f s of CPU\n", name, ll(reached),
                     trained);
      }
    });
    if (reached > 0)
      std::printf("  -> 99 %% at step %lld\n", ll(reached));
    else
      std::printf("  -> not 99 %% within %lld steps\n", ll(steps));
  }
  std::printf("one training step (batch 32) as the length L grows: matrix-product GFLOP (forward, analytic)\n"
              "and the cell steps that must run one after another (the measured CPU ms go to stderr)\n");
  const std::vector<int64_t> lengths = quick ? std::vector<int64_t>{5, 10} : std::vector<int64_t>{10, 20, 40, 80};
  for (const char* name : kModels) {
    std::printf("%-11s", name);
    std::fprintf(stderr, "tutorial-13: CPU ms per step, %-11s", name);
    for (int64_t L : lengths) {
      ReverseTask fixed(10, L, L);
      Generator gen(kSeed);
      ModelConfig c = config(fixed, name);
      std::unique_ptr<Model> built = make_model(c, gen);
      Model& m = *built;
      Adam adam(m.parameters(), 1e-3);
      Generator data(1);
      Batch batch = sample_batch(fixed, data, 32);
      std::vector<real> ms;
      for (int i = 0; i < 6; ++i) {
        const real t0 = cpu_seconds();
        Var loss = m.loss(batch);
        adam.zero_grad();
        loss.backward();
        adam.step();
        if (i > 0) ms.push_back(1000 * (cpu_seconds() - t0));
      }
      std::sort(ms.begin(), ms.end());
      std::fprintf(stderr, "  %lld: %6.1f", ll(L), ms[ms.size() / 2]);
      // Sequential steps: the RNN reads L source positions and writes L + 1 outputs one by one; the
      // transformer's teacher-forced step is 2 N layers, each over all positions at once.
      const int64_t sequential = c.model == "transformer" ? 2 * c.layers : 2 * L + 1;
      std::printf("  L %lld: %6.3f GFLOP, %3lld sequential", ll(L), flops(c, L) / 1e9, ll(sequential));
    }
    std::printf("\n");
    std::fprintf(stderr, "\n");
  }
  std::printf("\n");
}

// ---- 5. translate ------------------------------------------------------------------------------

void translate(bool quick, const std::string& dir) {
  const int64_t steps = quick ? 30 : 1500;
  const TranslateTask task;
  std::printf("== 5. the toy German->English task (%lld steps of 32 pairs)\n", ll(steps));
  for (const char* name : kModels) {
    Generator gen(kSeed);
    std::unique_ptr<Model> built = make_model(config(task, name), gen);
    Model& m = *built;
    train_model(m, task, steps, "translate");
    Accuracy held = evaluate_held_out(m, task, quick ? 20 : 500, 5);
    std::printf("%-11s %6lld params  held-out exact %.3f, token %.3f\n", name, ll(m.num_parameters()), held.exact(),
                held.token());
    if (std::string(name) != "transformer") continue;
    // The seed sentence, teacher forced with its reference translation: where "ate" looks.
    const Vocab &sv = task.src_vocab(), &tv = task.tgt_vocab();
    std::vector<int64_t> src = sv.encode(TranslateTask::kSeedSource);
    std::vector<int64_t> tgt = task.target(src);
    Batch b = make_batch({Example{src, tgt}});
    TransformerAttentionMaps maps;
    {
      NoGradGuard no_grad;
      const auto& t = dynamic_cast<const TransformerSeq2Seq&>(m);
      t.core().decode(t.tgt_embed(), b, t.core().encode(t.src_embed(), b), &maps);
    }
    int64_t ate = -1;
    for (size_t t = 0; t < tgt.size(); ++t)
      if (tv.decode({tgt[t]}) == "ate") ate = static_cast<int64_t>(t) + 1;  // decoder input BOS y1 ..: y_t at t
    // The output step that predicts "ate" reads the decoder input one before it.
    const int64_t q = ate - 1, S = static_cast<int64_t>(src.size()), T = b.tgt_len, h = m.config().heads;
    std::printf("%s\n  -> %s\n", TranslateTask::kSeedSource, tv.decode(tgt).c_str());
    std::printf("cross-attention of the step that outputs \"ate\", per layer and head: the most-attended German\n"
                "word and the weight on \"gegessen\"\n");
    int64_t gegessen = -1;
    for (int64_t i = 0; i < S; ++i)
      if (sv.decode({src[i]}) == "gegessen") gegessen = i;
    for (size_t l = 0; l < maps.cross.size(); ++l)
      for (int64_t k = 0; k < h; ++k) {
        const real* w = maps.cross[l].data() + ((k * T) + q) * S;  // (1, h, T, S)
        int64_t best = std::max_element(w, w + S) - w;
        std::printf("  layer %zu head %lld: %-9s %.2f   on gegessen %.2f\n", l, ll(k), sv.decode({src[best]}).c_str(),
                    w[best], w[gegessen]);
      }
    // Every head's whole matrix, layers down and heads across: the picture heed predict --head all
    // --svg draws for a saved model (there for the decoded output, here for the reference).
    std::vector<std::string> source_words, output_words;
    for (int64_t id : src) source_words.push_back(sv.token(id));
    for (int64_t id : b.tgt_out) output_words.push_back(tv.token(id));
    std::vector<std::vector<HeatmapPanel>> grid(maps.cross.size());
    for (size_t l = 0; l < maps.cross.size(); ++l)
      for (int64_t k = 0; k < h; ++k) {
        HeatmapPanel p{"layer " + std::to_string(l) + ", head " + std::to_string(k), {}};
        for (int64_t t = 0; t < T; ++t) {
          const real* w = maps.cross[l].data() + ((k * T) + t) * S;  // (1, h, T, S)
          p.weights.emplace_back(w, w + S);
        }
        grid[l].push_back(p);
      }
    std::filesystem::create_directories(dir);
    const std::string grid_path = dir + "/heads_translate.svg";
    write_text_file(grid_path, svg_heatmap_grid(source_words, output_words, grid,
                                                "translate: the transformer's cross-attention, every layer and head"));
    std::printf("(every head's matrix: %s)\n", grid_path.c_str());
  }
  std::printf("\n");
}

// ---- 6. the paper's training recipe --------------------------------------------------------------

// One change at a time against the defaults (lr 3e-3 decayed linearly, cross-entropy, an output
// layer of its own), then the three together: the paper's warm-up (section 5.3), label smoothing
// (5.4) and the output layer tied to the target embedding (3.4).
struct Recipe {
  const char* name;
  bool warmup, smoothing, share;
};
const Recipe kRecipes[] = {{"default", false, false, false},
                           {"warmup 200", true, false, false},
                           {"smoothing 0.1", false, true, false},
                           {"shared embeddings", false, false, true},
                           {"all three", true, true, true}};

// Trains chapter 13's transformer with `recipe` for `steps`, printing the held-out exact (and
// token) accuracy of `samples` sequences every `every` steps.
void recipe_run(const Task& task, const Recipe& recipe, int64_t steps, int64_t every, int64_t samples) {
  ModelConfig c = config(task, "transformer");
  c.share_embeddings = recipe.share;
  Generator gen(kSeed);
  std::unique_ptr<Model> built = make_model(c, gen);
  Model& m = *built;
  TrainOptions opt;  // heed train's defaults, and its --warmup and the paper's eps
  opt.steps = steps;
  opt.batch = 32;
  opt.seed = kDataSeed;
  if (recipe.warmup) opt.schedule = "warmup";
  if (recipe.smoothing) opt.label_smoothing = 0.1;
  std::printf("  %-18s %6lld ", recipe.name, ll(m.num_parameters()));
  const real start = cpu_seconds();
  train(m, task, opt, [&](const Progress& p) {
    if (p.step % every != 0) return;
    const Accuracy a = evaluate_held_out(m, task, samples, 5);
    std::printf("  %.3f %.3f", a.exact(), a.token());
  });
  std::printf("\n");
  std::fprintf(stderr, "tutorial-13: recipe %s %s: %.1f s of CPU\n", task.name().c_str(), recipe.name,
               cpu_seconds() - start);
}

// "  recipe   params  step 200     step 400 ...": a column of two numbers per evaluation.
void print_header(int64_t steps, int64_t every) {
  char head[64];
  std::snprintf(head, sizeof head, "  %-18s params ", "recipe");
  std::string line = head;
  for (int64_t s = every; s <= steps; s += every) {
    std::snprintf(head, sizeof head, "  %-11s", ("step " + std::to_string(s)).c_str());
    line += head;
  }
  while (line.back() == ' ') line.pop_back();
  std::printf("%s\n", line.c_str());
}

void recipe(bool quick) {
  std::printf("== 6. the paper's training recipe, one change at a time: the transformer of sections 3-5\n"
              "(D 32, 2+2 layers, 4 heads, ff 128), batches of 32, the same weights' and data's seeds;\n"
              "held-out accuracy along the run, each column exact then token\n");
  const int64_t rev_steps = quick ? 20 : 600, rev_every = quick ? 10 : 200, rev_samples = quick ? 10 : 200;
  const int64_t tr_steps = quick ? 20 : 900, tr_every = quick ? 10 : 300, tr_samples = quick ? 10 : 500;
  // The two schedules side by side (scheduled_lr, models/train.h): the step numbers are 1-based.
  const std::vector<int64_t> at = {1, 50, 100, 200, 400, 600, 900};
  std::printf("learning rate at step       ");
  for (int64_t s : at) std::printf(" %8lld", ll(s));
  std::printf("\n");
  for (const auto& [task, steps] : {std::pair<const char*, int64_t>{"reverse", rev_steps}, {"translate", tr_steps}}) {
    TrainOptions opt;
    opt.steps = steps;
    std::printf("  linear, %-10s %3lld    ", task, ll(steps));
    for (int64_t s : at)
      if (s <= steps) std::printf(" %8.2e", scheduled_lr(opt, s - 1));
      else std::printf(" %8s", "-");
    std::printf("\n");
  }
  TrainOptions warm;
  warm.schedule = "warmup";
  std::printf("  warmup %lld, either run    ", ll(warm.warmup));
  for (int64_t s : at) std::printf(" %8.2e", scheduled_lr(warm, s - 1));
  std::printf("\n");
  const ReverseTask rev(10, 5, 10);
  std::printf("reverse 5-10, %lld steps (%lld held-out sequences)\n", ll(rev_steps), ll(rev_samples));
  print_header(rev_steps, rev_every);
  for (const Recipe& r : kRecipes) recipe_run(rev, r, rev_steps, rev_every, rev_samples);
  const TranslateTask tr;
  std::printf("translate, %lld steps (%lld held-out pairs)\n", ll(tr_steps), ll(tr_samples));
  print_header(tr_steps, tr_every);
  for (const Recipe& r : kRecipes) recipe_run(tr, r, tr_steps, tr_every, tr_samples);
  std::printf("\n");
}

const std::vector<std::string> kSections = {"qkv", "causal", "reverse", "speed", "translate", "recipe"};

}  // namespace

// ---- figures: one encoder layer and one decoder layer ------------------------------------------

// The layers of nn/transformer_layers.h as boxes, input at the bottom as in the paper's Figure 1:
// each sublayer (attention, feed-forward) sits to the right of the residual path, which goes
// straight up past it into "add & LayerNorm". Post-norm, heed's default and the paper's.
void figures(const std::string& dir) {
  Diagram d;
  d.title = "one encoder layer and one decoder layer (post-norm), each repeated N times (--layers)";
  d.caption = "N layers, then a final LayerNorm per stack; --norm-first puts each LayerNorm before its sublayer instead";
  const std::string in = "#eef4fb", sub = "#fff4e0", norm = "#f2f2f2", out = "#e8f5e9";
  // Encoder: spine at column 0, sublayers at column 1.45.
  int x = d.add({"source tokens (S)\nembedding * sqrt(D)\n+ positions", 0, 7.4, in, true});
  int e_att = d.add({"multi-head self-attention\nQ = K = V = x\npadded keys masked", 1.45, 6.4, sub});
  int e_n1 = d.add({"add & LayerNorm\nnorm1(x + attention)", 0, 5.4, norm});
  int e_ff = d.add({"feed-forward\nlinear2(relu(linear1))\nD -> ff -> D", 1.45, 4.4, sub});
  int e_n2 = d.add({"add & LayerNorm\nnorm2(. + ff)", 0, 3.4, norm});
  int memory = d.add({"memory (S x D)\nafter N layers\nand encoder.norm", 0, 2.2, out, true});
  d.arrow(x, e_att);
  d.arrow(x, e_n1, "residual", true);
  d.arrow(e_att, e_n1);
  d.arrow(e_n1, e_ff);
  d.arrow(e_n1, e_n2, "residual", true);
  d.arrow(e_ff, e_n2);
  d.arrow(e_n2, memory, "x N");
  // Decoder: spine at column 4.75, sublayers at column 3.2 (to its left, where the memory comes in).
  int y = d.add({"<bos> y_1 .. y_T-1 (T)\nembedding * sqrt(D)\n+ positions", 4.75, 7.4, in, true});
  int d_self = d.add({"masked multi-head\nself-attention\nstep t reads steps <= t", 3.2, 6.4, sub});
  int d_n1 = d.add({"add & LayerNorm\nnorm1", 4.75, 5.4, norm});
  int d_cross = d.add({"multi-head cross-attention\nQ from the decoder\nK = V = memory", 3.2, 4.4, sub});
  int d_n2 = d.add({"add & LayerNorm\nnorm2", 4.75, 3.4, norm});
  int d_ff = d.add({"feed-forward\nD -> ff -> D", 3.2, 2.4, sub});
  int d_n3 = d.add({"add & LayerNorm\nnorm3", 4.75, 1.4, norm});
  int logits = d.add({"after N layers, decoder.norm\nthen out: logits (T x V)", 4.75, 0.2, out, true});
  d.arrow(y, d_self);
  d.arrow(y, d_n1, "residual", true);
  d.arrow(d_self, d_n1);
  d.arrow(d_n1, d_cross);
  d.arrow(memory, d_cross, "memory");
  d.arrow(d_n1, d_n2, "residual", true);
  d.arrow(d_cross, d_n2);
  d.arrow(d_n2, d_ff);
  d.arrow(d_n2, d_n3, "residual", true);
  d.arrow(d_ff, d_n3);
  d.arrow(d_n3, logits, "x N");
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/transformer_layers.svg";
  write_text_file(path, svg_diagram(d));
  std::printf("wrote %s\n", path.c_str());
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "figures") {  // figures [DIR]
    try {
      figures(argc > 2 ? argv[2] : "build/ch13");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tutorial-13: %s\n", e.what());
      return 2;
    }
    return 0;
  }
  chapter::Args args;
  if (!chapter::read_args(argc, argv, kSections, "tutorial-13",
                          "usage: tutorial-13 [--quick] [--out DIR] [qkv|causal|reverse|speed|translate|recipe ...] | "
                          "figures [DIR]",
                          args))
    return 2;
  const bool quick = args.quick;
  const std::string dir = args.dir.empty() ? "build/ch13" : args.dir;
  auto wanted = [&](const std::string& name) { return args.wants(name); };
  try {
    if (wanted("qkv")) qkv();
    if (wanted("causal")) causal();
    if (wanted("reverse")) reverse(quick, dir);
    if (wanted("speed")) speed(quick);
    if (wanted("translate")) translate(quick, dir);
    if (wanted("recipe")) recipe(quick);
    std::fprintf(stderr, "tutorial-13: %.0f s of CPU in all\n", cpu_seconds());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tutorial-13: %s\n", e.what());
    return 2;
  }
  return 0;
}
