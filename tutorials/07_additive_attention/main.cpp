// Chapter 07: Bahdanau's additive attention. One decoder step of an untrained tiny model worked
// out by hand (encoder states, W1 h_i, W2 s, the tanh, the scores, the masked softmax, the
// context, the cell's input [emb; c] and the output layer's [s; c]) and checked against
// Seq2Seq::step; then the additive model trained on reverse next to the plain model of chapter 06
// with the same budget, accuracy by length, and the attention matrix of one source.
// Sections: one-step, train (default: both). `--quick`: a tiny training budget.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "io/atomic_file.h"
#include "models/evaluate.h"
#include "models/seq2seq.h"
#include "models/tasks/tasks.h"
#include "models/train.h"
#include "models/tasks/vocab.h"
#include "nn/rnn_cell.h"
#include "tutorials/chapter.h"
#include "viz/diagram.h"
#include "viz/heatmap.h"
#include "viz/svg.h"

using namespace heed;

namespace {

using chapter::matvec;
using chapter::print_vec;
using chapter::row;
using chapter::Vec;

real max_diff(const Vec& a, const Vec& b) {
  real d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

// ---------------------------------------------------------------------------------------------
// 1. One decoder step by hand.

void one_step() {
  ModelConfig c;
  c.model = "additive";
  c.src_vocab = c.tgt_vocab = 13;
  c.embed = 2;
  c.hidden = 3;  // the attention size A is H as well
  c.max_src_len = 8;
  Generator gen(7);
  Seq2Seq model(c, gen);
  std::map<std::string, Var> p;
  for (const auto& [name, v] : model.named_parameters()) p[name] = v;

  // Two reverse examples: symbols 3 1 4 1 and 5 9 2 (symbol k is id k + 3).
  Batch batch = make_batch({{{6, 4, 7, 4}, {4, 7, 4, 6}}, {{8, 12, 5}, {5, 12, 8}}});
  const int64_t b = 1, S = batch.src_len, H = c.hidden, L = batch.lengths[b];
  std::printf("== 1. one decoder step of additive attention, by hand (E 2, H 3, A 3; untrained)\n");
  std::printf("batch of 2 sources, S %lld: \"3 1 4 1\" and \"5 9 2\"; we follow the second, padded at i 4\n\n",
              static_cast<long long>(S));

  NoGradGuard no_grad;
  DecoderState st = model.start(batch);  // runs the encoder and prepare(): W1 h_i for every i
  const Tensor& W1 = p["attention.W1.weight"].value();  // (A, H)
  const Tensor& W2 = p["attention.W2.weight"].value();  // (A, H)
  const Vec v = p["attention.v.weight"].value().to_vector();  // (1, A)
  const char* tokens[] = {"5", "9", "2", "<pad>"};

  std::printf("the encoder states h_i and their projections W1 h_i (computed once per batch)\n");
  std::vector<Vec> h(S), w1h(S);
  real keys_diff = 0;
  for (int64_t i = 0; i < S; ++i) {
    h[i] = row(st.values.value(), b * S + i, H);
    w1h[i] = matvec(W1, h[i]);
    keys_diff = std::max(keys_diff, max_diff(w1h[i], row(st.keys.value(), b * S + i, H)));
    char label[64];
    std::snprintf(label, sizeof label, "  h_%lld  (%s)", static_cast<long long>(i + 1), tokens[i]);
    print_vec(label, h[i]);
  }
  for (int64_t i = 0; i < S; ++i) {
    char label[64];
    std::snprintf(label, sizeof label, "  W1 h_%lld", static_cast<long long>(i + 1));
    print_vec(label, w1h[i]);
  }
  const Vec s0 = row(st.s.h.value(), b, H);
  std::printf("\nthe decoder's state before step 1: s_0 = h_%lld, the encoder's last real state\n",
              static_cast<long long>(L));
  print_vec("  s_0", s0);
  const Vec w2s = matvec(W2, s0);
  print_vec("  W2 s_0", w2s);
  print_vec("  v", v);

  std::printf("\nfor every position i: tanh(W1 h_i + W2 s_0), then the score e_i = v . tanh(...)\n");
  Vec e(S, 0);
  for (int64_t i = 0; i < S; ++i) {
    Vec t(H);
    for (int64_t a = 0; a < H; ++a) {
      t[a] = std::tanh(w1h[i][a] + w2s[a]);
      e[i] += v[a] * t[a];
    }
    char label[64];
    std::snprintf(label, sizeof label, "  i %lld  tanh(W1 h_i + W2 s_0)", static_cast<long long>(i + 1));
    std::printf("%-30s (%6.3f, %6.3f, %6.3f)   e_%lld = %6.3f\n", label, t[0], t[1], t[2],
                static_cast<long long>(i + 1), e[i]);
  }

  // Softmax over every position, then over the real ones only.
  Vec all(S), masked(S, 0);
  real top = *std::max_element(e.begin(), e.end()), total = 0;
  for (int64_t i = 0; i < S; ++i) total += all[i] = std::exp(e[i] - top);
  for (real& a : all) a /= total;
  top = *std::max_element(e.begin(), e.begin() + L);
  total = 0;
  for (int64_t i = 0; i < L; ++i) total += masked[i] = std::exp(e[i] - top);
  for (int64_t i = 0; i < L; ++i) masked[i] /= total;
  std::printf("\nthe weights: a softmax of the scores\n");
  print_vec("  over all 4 positions", all);
  print_vec("  over the 3 real ones (mask)", masked);
  std::printf("  the padded position's weight is exactly 0: %s\n", masked[3] == 0 ? "yes" : "NO");

  Vec ctx(H, 0);
  for (int64_t i = 0; i < S; ++i)
    for (int64_t k = 0; k < H; ++k) ctx[k] += masked[i] * h[i][k];
  std::printf("\nthe context: the weighted sum of the encoder states\n");
  print_vec("  c_1 = sum_i a_i h_i", ctx);

  // The decoder cell reads [emb(<bos>); c_1]: chapter 05's GRU cell with the decoder's weights.
  Vec x = row(p["tgt_embed.weight"].value(), Vocab::kBos, c.embed);
  x.insert(x.end(), ctx.begin(), ctx.end());
  GRUCell cell(c.embed + H, H, gen);
  cell.weight_ih.value() = p["decoder.weight_ih"].value();
  cell.weight_hh.value() = p["decoder.weight_hh"].value();
  cell.bias_ih.value() = p["decoder.bias_ih"].value();
  cell.bias_hh.value() = p["decoder.bias_hh"].value();
  Vec s1 = cell.step(Var(Tensor({1, c.embed + H}, x)), State{Var(Tensor({1, H}, s0)), {}}).h.value().to_vector();
  std::printf("\nthe decoder cell reads the previous token's embedding and the context\n");
  print_vec("  [emb(<bos>); c_1]", x);
  print_vec("  s_1 = gru([emb; c_1], s_0)", s1);

  // The output layer reads [s_1; c_1].
  Vec o = s1;
  o.insert(o.end(), ctx.begin(), ctx.end());
  Vec logits = matvec(p["out.weight"].value(), o);
  for (int64_t k = 0; k < c.tgt_vocab; ++k) logits[k] += p["out.bias"].value()[k];
  const int64_t best = std::max_element(logits.begin(), logits.end()) - logits.begin();
  std::printf("\nthe output layer reads the new state and the context\n");
  print_vec("  [s_1; c_1]", o);
  std::printf("  W_out [s_1; c_1] + b: 13 logits, the largest for the symbol %s\n", Vocab::symbols(10).token(best).c_str());

  // The library's step, from the same state.
  StepOutput lib = model.step({Vocab::kBos, Vocab::kBos}, st);
  real d = std::max({keys_diff, max_diff(masked, row(lib.weights.value(), b, S)), max_diff(s1, row(st.s.h.value(), b, H)),
                     max_diff(o, row(lib.out.value(), b, 2 * H)),
                     max_diff(logits, row(model.logits(lib.out).value(), b, c.tgt_vocab))});
  std::printf("\nSeq2Seq::step gives the same keys, weights, s_1, [s_1; c_1] and logits (to within 1e-12): %s\n",
              d < 1e-12 ? "yes" : "NO");
}

// ---------------------------------------------------------------------------------------------
// 2-4. Training additive and plain on reverse.

constexpr int64_t kSymbols = 10;
constexpr int64_t kMinLen = 5, kMaxLen = 10;  // heed train's defaults
constexpr uint64_t kSeed = 1;                 // as `heed train --seed 1`

struct Budget {
  int64_t steps, every, samples;
  std::vector<int64_t> lengths;
};

Budget budget(bool quick) {
  if (quick) return {40, 10, 20, {5, 10, 12}};
  return {1000, 100, 200, {5, 6, 7, 8, 9, 10, 11, 12, 13, 14}};
}

// The configuration `heed train --model M` builds for a symbol task.
ModelConfig config(const std::string& model, const Task& task) {
  ModelConfig c;
  c.model = model;
  c.src_vocab = task.src_vocab().size();
  c.tgt_vocab = task.tgt_vocab().size();
  c.embed = 32;
  c.hidden = 64;
  c.max_src_len = std::max<int64_t>(64, 2 * task.max_len());
  return c;
}

struct Trained {
  std::vector<real> losses, accuracy;  // per step
  Accuracy held_out;
};

// Trains as `heed train --model M --seed 1` does. Progress, with times, goes to stderr.
Trained train_model(Seq2Seq& model, const Task& task, const Budget& bud) {
  TrainOptions opt;  // Adam, lr 3e-3 decayed linearly to 0, gradient-norm clip 1
  opt.steps = bud.steps;
  opt.batch = 32;
  opt.seed = kSeed + 1000003;  // the data stream, apart from the weights' seed
  Trained t;
  train(model, task, opt, [&](const Progress& p) {
    t.losses.push_back(p.loss);
    t.accuracy.push_back(p.accuracy);
    if (p.step % bud.every == 0)
      std::fprintf(stderr, "tutorial-07: %s, step %lld of %lld, %.0f s\n", model.config().model.c_str(),
                   static_cast<long long>(p.step), static_cast<long long>(p.steps), p.seconds);
  });
  t.held_out = evaluate_held_out(model, task, 500, kSeed + 7777777);
  return t;
}

real window_mean(const std::vector<real>& v, int64_t end, int64_t n) {
  real s = 0;
  for (int64_t i = end - n; i < end; ++i) s += v[i];
  return s / static_cast<real>(n);
}

void training_table(const Trained& a, const Trained& p, const Budget& bud) {
  std::printf("%6s  %15s  %15s\n", "", "additive", "plain");
  std::printf("%6s  %7s %7s  %7s %7s\n", "step", "loss", "acc", "loss", "acc");
  std::printf("%6d  %7.4f %7.3f  %7.4f %7.3f\n", 1, a.losses[0], a.accuracy[0], p.losses[0], p.accuracy[0]);
  for (int64_t s = bud.every; s <= bud.steps; s += bud.every)
    std::printf("%6lld  %7.4f %7.3f  %7.4f %7.3f\n", static_cast<long long>(s), window_mean(a.losses, s, bud.every),
                window_mean(a.accuracy, s, bud.every), window_mean(p.losses, s, bud.every),
                window_mean(p.accuracy, s, bud.every));
  std::printf("(loss and teacher-forced token accuracy: the mean over the %lld steps up to each row)\n",
              static_cast<long long>(bud.every));
}

void by_length(const Seq2Seq& additive, const Seq2Seq& plain, const Task& task, const Budget& bud) {
  std::printf("== 3. accuracy by source length (greedy, %lld sequences per length; trained on %lld..%lld)\n",
              static_cast<long long>(bud.samples), static_cast<long long>(kMinLen), static_cast<long long>(kMaxLen));
  std::vector<Accuracy> a = evaluate_by_length(additive, task, bud.lengths, bud.samples, kSeed);
  std::vector<Accuracy> p = evaluate_by_length(plain, task, bud.lengths, bud.samples, kSeed);
  std::printf("%6s  %13s  %13s\n", "", "additive", "plain");
  std::printf("%6s  %6s %6s  %6s %6s\n", "length", "exact", "token", "exact", "token");
  for (size_t i = 0; i < bud.lengths.size(); ++i) {
    if (bud.lengths[i] > kMaxLen && (i == 0 || bud.lengths[i - 1] <= kMaxLen))
      std::printf("  -- longer than any training sequence --\n");
    std::printf("%6lld  %6.3f %6.3f  %6.3f %6.3f\n", static_cast<long long>(bud.lengths[i]), a[i].exact(),
                a[i].token(), p[i].exact(), p[i].token());
  }
  std::printf("\n");
}

// Where each output step's largest weight falls, relative to the mirrored source position
// L - 1 - t, over sources of one length (steps 1..L; the <eos> step has no mirror).
void alignment(const Seq2Seq& model, const Task& task, int64_t L, int64_t n) {
  Generator gen(4242);
  std::vector<Example> examples;
  for (int64_t i = 0; i < n; ++i) examples.push_back(task.sample(gen, L));
  Batch batch = make_batch(examples);
  Decoded d = model.greedy(batch, L + 1);
  int64_t on = 0, right = 0, left = 0, total = 0;
  real band = 0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t t = 0; t < L; ++t) {
      const std::vector<real>& w = d.attention[b][t];
      const int64_t mirror = L - 1 - t;
      const int64_t top = std::max_element(w.begin(), w.end()) - w.begin();
      on += top == mirror;
      right += top == mirror + 1;
      left += top == mirror - 1;
      band += w[mirror] + (mirror + 1 < L ? w[mirror + 1] : 0);
      ++total;
    }
  auto pct = [&](int64_t k) { return 100 * static_cast<real>(k) / static_cast<real>(total); };
  std::printf("over %lld sources of length %lld, the largest weight of the %lld output steps falls\n",
              static_cast<long long>(n), static_cast<long long>(L), static_cast<long long>(total));
  const int64_t elsewhere = total - on - right - left;
  // Counts, which add up to the total; the percentages are rounded and need not add to 100.
  std::printf("  on the mirrored position L+1-t %4lld (%.1f %%)   one to its right %4lld (%.1f %%)\n",
              static_cast<long long>(on), pct(on), static_cast<long long>(right), pct(right));
  std::printf("  one to its left %4lld (%.1f %%)   elsewhere %4lld (%.1f %%)\n", static_cast<long long>(left),
              pct(left), static_cast<long long>(elsewhere), pct(elsewhere));
  std::printf("  mean weight on the mirrored position and its right neighbour together: %.3f\n",
              band / static_cast<real>(total));
}

void heatmap(const Seq2Seq& model, const Task& task) {
  std::printf("== 4. where the additive model looks: one source of length 8\n");
  const std::vector<int64_t> src = {6, 4, 7, 4, 8, 12, 5, 9};  // 3 1 4 1 5 9 2 6
  Batch batch = make_batch({{src, task.target(src)}});
  Decoded d = model.greedy(batch, static_cast<int64_t>(src.size()) + 1);
  const Vocab& v = task.tgt_vocab();
  std::vector<std::string> source, output;
  for (int64_t id : src) source.push_back(v.token(id));
  for (int64_t id : d.tokens[0]) output.push_back(v.token(id));
  std::printf("%s", terminal_heatmap(source, output, d.attention[0], false).c_str());
  alignment(model, task, kMaxLen, 200);
}

void training(bool quick) {
  const Budget bud = budget(quick);
  ReverseTask task(kSymbols, kMinLen, kMaxLen);
  Generator additive_gen(kSeed), plain_gen(kSeed);
  Seq2Seq additive(config("additive", task), additive_gen);
  Seq2Seq plain(config("plain", task), plain_gen);
  std::printf("== 2. training additive and plain on reverse (E 32, H 64, lengths %lld..%lld, %lld steps of 32)\n",
              static_cast<long long>(kMinLen), static_cast<long long>(kMaxLen), static_cast<long long>(bud.steps));
  std::printf("parameters: additive %lld, plain %lld\n", static_cast<long long>(additive.num_parameters()),
              static_cast<long long>(plain.num_parameters()));
  std::fflush(stdout);
  Trained a = train_model(additive, task, bud);
  Trained p = train_model(plain, task, bud);
  training_table(a, p, bud);
  std::printf("held-out (500 sequences, lengths %lld..%lld): additive exact %.3f token %.3f, "
              "plain exact %.3f token %.3f\n\n",
              static_cast<long long>(kMinLen), static_cast<long long>(kMaxLen), a.held_out.exact(),
              a.held_out.token(), p.held_out.exact(), p.held_out.token());
  by_length(additive, plain, task, bud);
  heatmap(additive, task);
}

// The figure of section 1: the same step as a diagram, its numbers computed by the library
// (the keys, the scores with s_0, the masked softmax, the context, the new state).
void figures(const std::string& dir) {
  ModelConfig c;
  c.model = "additive";
  c.src_vocab = c.tgt_vocab = 13;
  c.embed = 2;
  c.hidden = 3;
  c.max_src_len = 8;
  Generator gen(7);
  Seq2Seq model(c, gen);
  Batch batch = make_batch({{{6, 4, 7, 4}, {4, 7, 4, 6}}, {{8, 12, 5}, {5, 12, 8}}});
  NoGradGuard no_grad;
  DecoderState st = model.start(batch);
  const Tensor scores = model.attention_score()->score(st.s.h, st.keys).value();  // (2, S), with s_0
  const StepOutput o = model.step({Vocab::kBos, Vocab::kBos}, st);
  const int64_t b = 1, S = batch.src_len;
  auto fmt = [](const char* f, real v) {
    char out[64];
    std::snprintf(out, sizeof out, f, v);
    return std::string(out);
  };
  Diagram d;
  d.title = "one step of additive attention: the second source, 5 9 2, at the first output step";
  d.caption = "k_i = W1 h_i once per batch, q = W2 s_0 once per step, e_i = v . tanh(k_i + q); a = softmax of the real "
              "positions' scores; numbers from tutorial-07";
  const char* tokens[] = {"5", "9", "2", "<pad>"};
  std::vector<int> h, k, e, a;
  for (int64_t i = 0; i < S; ++i) {
    const std::string n = std::to_string(i + 1);
    const std::string fill = i < 3 ? "#ffffff" : "#f2f2f2";
    h.push_back(d.add({"h_" + n + "\n(" + tokens[i] + ")", static_cast<real>(i), 0, i < 3 ? "#eef4fb" : "#f2f2f2", true}));
    k.push_back(d.add({"k_" + n + " = W1 h_" + n + "\n(key)", static_cast<real>(i), 1, fill}));
    e.push_back(d.add({"e_" + n + fmt(" = %.3f", scores[b * S + i]) + "\nv.tanh(k_" + n + "+q)",
                       static_cast<real>(i), 2, fill}));
    a.push_back(d.add({"a_" + n + fmt(" = %.3f", o.weights.value()[b * S + i]), static_cast<real>(i), 3, fill}));
  }
  int s0 = d.add({"s_0 = h_3\n(decoder state)", 4.6, 0, "#fff4e0", true});
  int q = d.add({"q = W2 s_0\n(query)", 4.6, 1, "#fff4e0"});
  int ctx = d.add({"c_1 = sum_i a_i h_i", 1.5, 4, "#e8f5e9"});
  int s1 = d.add({"s_1 = gru([emb(<bos>); c_1], s_0)", 3.2, 5, "#fff4e0"});
  int out = d.add({"logits = W_out [s_1; c_1] + b", 1.5, 6});
  d.arrow(s0, q, "W2");
  for (int64_t i = 0; i < S; ++i) {
    d.arrow(h[i], k[i], i == 0 ? "W1" : "");
    d.arrow(k[i], e[i]);
    d.arrow(q, e[i], "", true);
    d.arrow(e[i], a[i], i == 0 ? "softmax" : "");
    if (i < 3) d.arrow(a[i], ctx);
  }
  d.arrow(ctx, s1);
  d.arrow(s0, s1, "", true);
  d.arrow(s1, out);
  d.arrow(ctx, out);
  const std::string path = dir + "/attention_step.svg";
  write_text_file(path, svg_diagram(d));
  std::printf("wrote %s\n", path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  heed::tune_allocator();  // keep freed tensors with the process (tensor/tensor.h)
  if (argc > 1 && std::strcmp(argv[1], "figures") == 0) {  // figures [DIR]
    try {
      figures(argc > 2 ? argv[2] : "build/ch07");
      return 0;
    } catch (const Error& e) {
      std::fprintf(stderr, "tutorial-07: %s\n", e.what());
      return 2;
    }
  }
  bool quick = false, want_one_step = false, want_train = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "one-step") == 0) {
      want_one_step = true;
    } else if (std::strcmp(argv[i], "train") == 0) {
      want_train = true;
    } else {
      std::fprintf(stderr, "tutorial-07: unknown argument '%s' (--quick, one-step, train)\n", argv[i]);
      return 2;
    }
  }
  if (!want_one_step && !want_train) want_one_step = want_train = true;
  try {
    if (want_one_step) one_step();
    if (want_one_step && want_train) std::printf("\n");
    if (want_train) training(quick);
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "tutorial-07: %s\n", e.what());
    return 2;
  }
}
