// Chapter 08: Luong's multiplicative scores. The general score s^T W h, its special case the dot
// product s^T h, and Vaswani's scaled dot product, on one query by hand and by the library; why
// the scale 1/sqrt(H) (the variance of a dot product grows with H and saturates the softmax);
// one step of Luong's decoder (attend with s_t, attentional state h~ = tanh(W_c [c; s])); then
// plain, additive, general, dot, scaled and general with input feeding trained on reverse with the
// same budget, compared.
// Sections: scores, scaling, luong, train (default: all). `--quick`: a tiny training budget.
// The CPU time per training step goes to stderr: it depends on the machine.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "io/atomic_file.h"
#include "models/evaluate.h"
#include "models/seq2seq.h"
#include "models/tasks/tasks.h"
#include "models/train.h"
#include "models/tasks/vocab.h"
#include "nn/attention.h"
#include "nn/rnn_cell.h"
#include "tutorials/chapter.h"
#include "viz/diagram.h"
#include "viz/svg.h"

using namespace heed;

namespace {

using chapter::matvec;
using chapter::print_vec;
using chapter::row;
using chapter::Vec;

real dot(const Vec& a, const Vec& b) {
  real s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

Vec softmax(const Vec& e) {
  Vec a(e.size());
  const real top = *std::max_element(e.begin(), e.end());
  real total = 0;
  for (size_t i = 0; i < e.size(); ++i) total += a[i] = std::exp(e[i] - top);
  for (real& x : a) x /= total;
  return a;
}

real max_diff(const Vec& a, const Vec& b) {
  real d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

// ---------------------------------------------------------------------------------------------
// 1. The three scores on one query.

void scores() {
  const int64_t H = 4, S = 3;
  Generator gen(8);
  Tensor query = Tensor::uniform({1, H}, -1, 1, gen);    // s: (B 1, H)
  Tensor keys = Tensor::uniform({1, S, H}, -1, 1, gen);  // h_1..h_3: (B 1, S, H)
  GeneralScore general(H, H, gen);
  DotScore dot_score(false), scaled_score(true);
  const Vec s = row(query, 0, H);
  std::printf("== 1. three multiplicative scores: one query s, three keys h_i (H %lld)\n", static_cast<long long>(H));
  print_vec("  s", s);
  std::vector<Vec> h(S);
  for (int64_t i = 0; i < S; ++i) {
    h[i] = row(keys, i, H);
    char label[32];
    std::snprintf(label, sizeof label, "  h_%lld", static_cast<long long>(i + 1));
    print_vec(label, h[i]);
  }

  // By hand: general e_i = s . (W h_i); dot e_i = s . h_i; scaled e_i = s . h_i / sqrt(H).
  Vec eg(S), ed(S), es(S);
  for (int64_t i = 0; i < S; ++i) {
    eg[i] = dot(s, matvec(general.W.weight.value(), h[i]));
    ed[i] = dot(s, h[i]);
    es[i] = ed[i] / std::sqrt(static_cast<real>(H));
  }
  std::printf("\n%-26s %7s %7s %7s    %s\n", "", "e_1", "e_2", "e_3", "softmax: the weights");
  auto line = [](const char* name, const Vec& e) {
    Vec a = softmax(e);
    std::printf("%-26s %7.3f %7.3f %7.3f    %.3f %.3f %.3f\n", name, e[0], e[1], e[2], a[0], a[1], a[2]);
  };
  line("general  s . (W h_i)", eg);
  line("dot      s . h_i", ed);
  line("scaled   s . h_i / sqrt(4)", es);

  NoGradGuard no_grad;
  Var q(query), k(keys);
  real d = std::max({max_diff(eg, general.score(q, general.prepare(k)).value().to_vector()),
                     max_diff(ed, dot_score.score(q, dot_score.prepare(k)).value().to_vector()),
                     max_diff(es, scaled_score.score(q, scaled_score.prepare(k)).value().to_vector())});
  std::printf("GeneralScore and DotScore (plain, scaled) give the same scores (to within 1e-12): %s\n",
              d < 1e-12 ? "yes" : "NO");
  Tensor& W = general.W.weight.value();  // (H, H): make it the identity
  W.fill(0);
  for (int64_t i = 0; i < H; ++i) W[i * H + i] = 1;
  Tensor with_identity = general.score(q, general.prepare(k)).value();
  std::printf("GeneralScore with W = I gives bit for bit DotScore's scores: %s\n",
              with_identity.to_vector() == dot_score.score(q, k).value().to_vector() ? "yes" : "NO");
}

// ---------------------------------------------------------------------------------------------
// 2. Why scale: the spread of dot products grows with H.

void scaling() {
  const int64_t N = 2000, S = 10;
  std::printf("== 2. why scale: dot products of random vectors with N(0, 1) components\n");
  std::printf("%d queries, each against %lld keys; a = softmax over the %lld scores\n", static_cast<int>(N),
              static_cast<long long>(S), static_cast<long long>(S));
  std::printf("%6s  %18s  %18s  %18s\n", "", "variance of s . h", "mean largest a", "mean 1 - sum a^2");
  std::printf("%6s  %8s %9s  %8s %9s  %8s %9s\n", "H", "dot", "scaled", "dot", "scaled", "dot", "scaled");
  Generator gen(2);
  for (int64_t H : {4, 16, 64, 256, 1024}) {
    real sum = 0, sum2 = 0, sum_s = 0, sum2_s = 0, top = 0, top_s = 0, flow = 0, flow_s = 0;
    for (int64_t n = 0; n < N; ++n) {
      Tensor q = Tensor::normal({H}, 0, 1, gen), keys = Tensor::normal({S, H}, 0, 1, gen);
      Vec e(S), es(S);
      for (int64_t i = 0; i < S; ++i) {
        real x = 0;
        for (int64_t j = 0; j < H; ++j) x += q[j] * keys[i * H + j];
        e[i] = x;
        es[i] = x / std::sqrt(static_cast<real>(H));
        sum += x;
        sum2 += x * x;
        sum_s += es[i];
        sum2_s += es[i] * es[i];
      }
      Vec a = softmax(e), as = softmax(es);
      top += *std::max_element(a.begin(), a.end());
      top_s += *std::max_element(as.begin(), as.end());
      flow += 1 - dot(a, a);
      flow_s += 1 - dot(as, as);
    }
    const real M = static_cast<real>(N * S);
    std::printf("%6lld  %8.1f %9.3f  %8.3f %9.3f  %8.3f %9.3f\n", static_cast<long long>(H),
                sum2 / M - (sum / M) * (sum / M), sum2_s / M - (sum_s / M) * (sum_s / M), top / N, top_s / N,
                flow / N, flow_s / N);
  }
  std::printf("(1 - sum a^2 is the trace of the softmax's Jacobian: near 0, almost no gradient reaches the scores)\n");

  // The same statistics inside heed's dot model: GRU states are not N(0, 1) vectors.
  ReverseTask task(10, 5, 10);
  ModelConfig c;
  c.model = "dot";
  Generator model_gen(1), data(5);
  Seq2Seq model(c, model_gen);  // E 32, H 64, untrained
  Batch batch = sample_batch(task, data, 32);
  NoGradGuard no_grad;
  DecoderState st = model.start(batch);
  model.step(std::vector<int64_t>(32, Vocab::kBos), st);  // s_1, the first query of a Luong decoder
  const int64_t H = c.hidden, T = batch.src_len;
  real hv = 0, ev = 0, em = 0;
  int64_t n = 0;
  for (int64_t b = 0; b < batch.batch; ++b)
    for (int64_t i = 0; i < batch.lengths[b]; ++i) {
      real e = 0;
      for (int64_t k = 0; k < H; ++k) {
        const real h = st.values.value()[(b * T + i) * H + k];
        hv += h * h;
        e += st.s.h.value()[b * H + k] * h;
      }
      em += e;
      ev += e * e;
      ++n;
    }
  em /= static_cast<real>(n);
  std::printf("inside heed's untrained dot model (H 64, 32 reverse sources): the encoder states' components\n"
              "have mean square %.3f, and the scores s_1 . h_i variance %.3f, not 64\n",
              hv / static_cast<real>(n * H), ev / static_cast<real>(n) - em * em);
}

// ---------------------------------------------------------------------------------------------
// 3. One step of Luong's decoder by hand.

void luong() {
  ModelConfig c;
  c.model = "general";
  c.src_vocab = c.tgt_vocab = 13;
  c.embed = 2;
  c.hidden = 3;
  c.max_src_len = 8;
  Generator gen(7);
  Seq2Seq model(c, gen);
  std::map<std::string, Var> p;
  for (const auto& [name, v] : model.named_parameters()) p[name] = v;
  Batch batch = make_batch({{{8, 12, 5}, {5, 12, 8}}});  // the source 5 9 2
  const int64_t S = batch.src_len, H = c.hidden;
  std::printf("== 3. one step of Luong's decoder (general score), by hand (E 2, H 3; untrained)\n");
  std::printf("the source \"5 9 2\"; the encoder's states h_1 .. h_3 as in chapter 07\n\n");

  NoGradGuard no_grad;
  DecoderState st = model.start(batch);
  std::vector<Vec> h(S);
  for (int64_t i = 0; i < S; ++i) h[i] = row(st.values.value(), i, H);
  const Vec s0 = row(st.s.h.value(), 0, H);

  // First the cell, on the embedding alone: s_1 = gru(emb(<bos>), s_0).
  const Vec x = row(p["tgt_embed.weight"].value(), Vocab::kBos, c.embed);
  GRUCell cell(c.embed, H, gen);
  cell.weight_ih.value() = p["decoder.weight_ih"].value();
  cell.weight_hh.value() = p["decoder.weight_hh"].value();
  cell.bias_ih.value() = p["decoder.bias_ih"].value();
  cell.bias_hh.value() = p["decoder.bias_hh"].value();
  const Vec s1 = cell.step(Var(Tensor({1, c.embed}, x)), State{Var(Tensor({1, H}, s0)), {}}).h.value().to_vector();
  std::printf("first the cell, which reads only the previous token\n");
  print_vec("  s_0 = h_3", s0);
  print_vec("  emb(<bos>)", x);
  print_vec("  s_1 = gru(emb, s_0)", s1);

  // Then attention, with the new state s_1.
  const Tensor& W = p["attention.W.weight"].value();  // (H, H)
  Vec e(S);
  for (int64_t i = 0; i < S; ++i) e[i] = dot(s1, matvec(W, h[i]));
  const Vec a = softmax(e);
  Vec ctx(H, 0);
  for (int64_t i = 0; i < S; ++i)
    for (int64_t k = 0; k < H; ++k) ctx[k] += a[i] * h[i][k];
  std::printf("\nthen attention, scored with the new state s_1\n");
  print_vec("  e_i = s_1 . (W h_i)", e);
  print_vec("  a = softmax(e)", a);
  print_vec("  c_1 = sum_i a_i h_i", ctx);

  // The attentional state h~_1 = tanh(W_c [c_1; s_1]), and the logits from it.
  Vec cs = ctx;
  cs.insert(cs.end(), s1.begin(), s1.end());
  Vec ht = matvec(p["combine.weight"].value(), cs);
  for (real& v : ht) v = std::tanh(v);
  Vec logits = matvec(p["out.weight"].value(), ht);
  for (int64_t k = 0; k < c.tgt_vocab; ++k) logits[k] += p["out.bias"].value()[k];
  const int64_t best = std::max_element(logits.begin(), logits.end()) - logits.begin();
  std::printf("\nlast, the attentional state, which is all the output layer reads\n");
  print_vec("  [c_1; s_1]", cs);
  print_vec("  h~_1 = tanh(W_c [c_1; s_1])", ht);
  std::printf("  W_out h~_1 + b: 13 logits, the largest for the symbol %s\n", Vocab::symbols(10).token(best).c_str());

  StepOutput lib = model.step({Vocab::kBos}, st);
  real d = std::max({max_diff(s1, st.s.h.value().to_vector()), max_diff(a, lib.weights.value().to_vector()),
                     max_diff(ht, lib.out.value().to_vector()), max_diff(logits, model.logits(lib.out).value().to_vector())});
  std::printf("\nSeq2Seq::step gives the same s_1, weights, h~_1 and logits (to within 1e-12): %s\n",
              d < 1e-12 ? "yes" : "NO");
  std::printf("the next step starts from s_1 itself: h~_1 goes to the output layer only\n");
}

// ---------------------------------------------------------------------------------------------
// 4. The five models, trained alike.

constexpr int64_t kSymbols = 10;
constexpr int64_t kMinLen = 5, kMaxLen = 10;
constexpr uint64_t kSeed = 1;  // as `heed train --seed 1`
// "general+if" is general with Luong's input feeding (section 3.3 of the paper).
const char* kModels[] = {"plain", "additive", "general", "dot", "scaled", "general+if"};

struct Result {
  std::string model;
  int64_t params = 0;
  std::vector<real> losses;
  Accuracy held_out;
  std::vector<Accuracy> by_length;
  real peak = 0;       // mean largest attention weight at length 10
  real cpu_ms = 0;     // CPU time per training step
};

ModelConfig config(const std::string& model, const Task& task) {
  ModelConfig c;
  c.input_feeding = model.size() > 3 && model.compare(model.size() - 3, 3, "+if") == 0;
  c.model = c.input_feeding ? model.substr(0, model.size() - 3) : model;
  c.src_vocab = task.src_vocab().size();
  c.tgt_vocab = task.tgt_vocab().size();
  c.embed = 32;
  c.hidden = 64;
  c.max_src_len = std::max<int64_t>(64, 2 * task.max_len());
  return c;
}

// The mean, over the output steps of n sources of length L, of the largest attention weight.
real mean_peak(const Seq2Seq& model, const Task& task, int64_t L, int64_t n) {
  Generator gen(4242);
  std::vector<Example> examples;
  for (int64_t i = 0; i < n; ++i) examples.push_back(task.sample(gen, L));
  Decoded d = model.greedy(make_batch(examples), L + 1);
  real total = 0;
  for (const auto& rows : d.attention)
    for (const auto& w : rows) total += *std::max_element(w.begin(), w.end());
  return total / static_cast<real>(n * (L + 1));
}

Result run_model(const std::string& name, const Task& task, int64_t steps, int64_t samples,
                 const std::vector<int64_t>& lengths) {
  Generator gen(kSeed);
  Seq2Seq model(config(name, task), gen);
  Result r;
  r.model = name;
  r.params = model.num_parameters();
  TrainOptions opt;
  opt.steps = steps;
  opt.batch = 32;
  opt.seed = kSeed + 1000003;
  const std::clock_t t0 = std::clock();
  r.losses = train(model, task, opt, [&](const Progress& p) {
               if (p.step % 100 == 0 || p.step == p.steps)
                 std::fprintf(stderr, "tutorial-08: %s, step %lld of %lld, %.0f s\n", name.c_str(),
                              static_cast<long long>(p.step), static_cast<long long>(p.steps), p.seconds);
             }).losses;
  r.cpu_ms = 1000 * static_cast<real>(std::clock() - t0) / CLOCKS_PER_SEC / static_cast<real>(steps);
  r.held_out = evaluate_held_out(model, task, 500, kSeed + 7777777);
  r.by_length = evaluate_by_length(model, task, lengths, samples, kSeed);
  if (name != "plain") r.peak = mean_peak(model, task, kMaxLen, 200);
  return r;
}

real window_mean(const std::vector<real>& v, int64_t end, int64_t n) {
  real s = 0;
  for (int64_t i = end - n; i < end; ++i) s += v[i];
  return s / static_cast<real>(n);
}

void training(bool quick) {
  const int64_t steps = quick ? 40 : 1000, samples = quick ? 20 : 200;
  const std::vector<int64_t> lengths = quick ? std::vector<int64_t>{5, 10, 12} : std::vector<int64_t>{5, 6, 7, 8, 9, 10, 11, 12, 14};
  ReverseTask task(kSymbols, kMinLen, kMaxLen);
  std::printf("== 4. six decoders on reverse (E 32, H 64, lengths %lld..%lld, %lld steps of 32, same seeds)\n",
              static_cast<long long>(kMinLen), static_cast<long long>(kMaxLen), static_cast<long long>(steps));
  std::fflush(stdout);
  std::vector<Result> results;
  for (const char* m : kModels) results.push_back(run_model(m, task, steps, samples, lengths));

  // Loss checkpoints: the mean of the `window` steps up to each.
  const int64_t window = quick ? 10 : 100;
  const std::vector<int64_t> marks = quick ? std::vector<int64_t>{10, 20, 40} : std::vector<int64_t>{100, 200, 300, 500, 1000};
  std::printf("%-20s %s\n", "", "mean training loss up to step");
  std::printf("%-11s %7s ", "model", "params");
  for (int64_t s : marks) std::printf(" %6lld", static_cast<long long>(s));
  std::printf("  %6s %6s %6s\n", "exact", "token", "peak");
  for (const Result& r : results) {
    std::printf("%-11s %7lld ", r.model.c_str(), static_cast<long long>(r.params));
    for (int64_t s : marks) std::printf(" %6.3f", window_mean(r.losses, s, window));
    std::printf("  %6.3f %6.3f ", r.held_out.exact(), r.held_out.token());
    if (r.model == "plain")
      std::printf("%6s\n", "-");
    else
      std::printf("%6.3f\n", r.peak);
  }
  std::printf("(loss: the mean of the %lld training steps up to the column's step)\n", static_cast<long long>(window));
  std::printf("(general+if: general with input feeding, the cell also reading h~_{t-1})\n");
  std::printf("(exact, token: greedy decoding of 500 held-out sources of lengths %lld..%lld)\n"
              "(peak: the mean largest attention weight of an output step, on 200 sources of length %lld)\n\n",
              static_cast<long long>(kMinLen), static_cast<long long>(kMaxLen), static_cast<long long>(kMaxLen));

  std::printf("exact accuracy by source length (%lld sources per length)\n", static_cast<long long>(samples));
  std::printf("%-11s", "length");
  for (int64_t L : lengths) std::printf(" %6lld", static_cast<long long>(L));
  std::printf("\n");
  for (const Result& r : results) {
    std::printf("%-11s", r.model.c_str());
    for (const Accuracy& a : r.by_length) std::printf(" %6.3f", a.exact());
    std::printf("\n");
  }
  std::printf("(trained on %lld..%lld; longer sources were never seen)\n", static_cast<long long>(kMinLen),
              static_cast<long long>(kMaxLen));

  std::fprintf(stderr, "\ntutorial-08: CPU time per training step (clock(); varies with the machine and its load)\n");
  for (const Result& r : results) std::fprintf(stderr, "  %-11s %6.1f ms\n", r.model.c_str(), r.cpu_ms);
}

struct Section {
  const char* name;
  void (*run)();
};

bool g_quick = false;
void training_section() { training(g_quick); }

const Section kSections[] = {{"scores", scores}, {"scaling", scaling}, {"luong", luong}, {"train", training_section}};

}  // namespace

// The chapter's figure: section 3's step of Luong's decoder as a diagram, its numbers computed by
// the library: the cell first, then attention with the new state s_1, then h~_1.
void figures(const std::string& dir) {
  ModelConfig c;
  c.model = "general";
  c.src_vocab = c.tgt_vocab = 13;
  c.embed = 2;
  c.hidden = 3;
  c.max_src_len = 8;
  Generator gen(7);
  Seq2Seq model(c, gen);
  Batch batch = make_batch({{{8, 12, 5}, {5, 12, 8}}});  // the source 5 9 2
  NoGradGuard no_grad;
  DecoderState st = model.start(batch);
  const StepOutput o = model.step({Vocab::kBos}, st);  // st.s is s_1 now
  const Tensor scores = model.attention_score()->score(st.s.h, st.keys).value();  // (1, S), with s_1
  auto fmt = [](const std::string& name, real v) {
    char out[64];
    std::snprintf(out, sizeof out, " = %.3f", v);
    return name + out;
  };
  Diagram d;
  d.title = "one step of Luong's decoder (general score): the cell first, then attention";
  d.caption = "e_i = s_1 . (W h_i), scored with the new state; numbers from tutorial-08";
  const char* tokens[] = {"5", "9", "2"};
  int s0 = d.add({"s_0 = h_3", 3.4, 0, "#fff4e0", true});
  int bos = d.add({"emb(<bos>)", 4.6, 0, "#eef4fb", true});
  int s1 = d.add({"s_1 = gru(emb, s_0)", 4.0, 1, "#fff4e0"});
  d.arrow(s0, s1);
  d.arrow(bos, s1);
  int ctx = d.add({"c_1 = sum_i a_i h_i", 1.0, 4, "#e8f5e9"});
  for (int64_t i = 0; i < batch.src_len; ++i) {
    int h = d.add({"h_" + std::to_string(i + 1) + "\n(" + tokens[i] + ")", static_cast<real>(i), 1, "#eef4fb", true});
    int e = d.add({fmt("e_" + std::to_string(i + 1), scores[i]), static_cast<real>(i), 2});
    int a = d.add({fmt("a_" + std::to_string(i + 1), o.weights.value()[i]), static_cast<real>(i), 3});
    d.arrow(h, e);
    d.arrow(s1, e, "", true);
    d.arrow(e, a, i == 0 ? "softmax" : "");
    d.arrow(a, ctx);
  }
  int ht = d.add({"h~_1 = tanh(W_c [c_1; s_1])", 2.6, 5, "#fff4e0"});
  int out = d.add({"logits = W_out h~_1 + b", 2.6, 6});
  d.arrow(ctx, ht);
  d.arrow(s1, ht, "", true);
  d.arrow(ht, out);
  const std::string path = dir + "/luong_step.svg";
  write_text_file(path, svg_diagram(d));
  std::printf("wrote %s\n", path.c_str());
}

int main(int argc, char** argv) {
  heed::tune_allocator();  // keep freed tensors with the process (tensor/tensor.h)
  if (argc > 1 && std::strcmp(argv[1], "figures") == 0) {  // figures [DIR]
    figures(argc > 2 ? argv[2] : "build/ch08");
    return 0;
  }
  std::vector<const Section*> chosen;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      g_quick = true;
      continue;
    }
    const Section* found = nullptr;
    for (const Section& s : kSections)
      if (argv[i] == std::string(s.name)) found = &s;
    if (!found) {
      std::fprintf(stderr, "tutorial-08: unknown argument '%s' (--quick, scores, scaling, luong, train)\n", argv[i]);
      return 2;
    }
    chosen.push_back(found);
  }
  if (chosen.empty())
    for (const Section& s : kSections) chosen.push_back(&s);
  try {
    for (size_t i = 0; i < chosen.size(); ++i) {
      if (i) std::printf("\n");
      chosen[i]->run();
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "tutorial-08: %s\n", e.what());
    return 2;
  }
}
