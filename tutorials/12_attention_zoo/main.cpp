// Chapter 12: the attention zoo. Every score function of docs/models.md trained side by side on reverse
// with one small budget; then self-attention and multi-head attention as layers, and the small
// encoder-only tagger that learns the histogram task, with one head's weights as a heatmap.
// Arguments: `--quick` (a tiny budget) and section names (zoo, layers, tagger) to run only those.
// Progress and times (CPU seconds) go to stderr; stdout is deterministic.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "io/atomic_file.h"
#include "models/evaluate.h"
#include "models/self_attention_model.h"
#include "models/seq2seq.h"
#include "models/tasks/tasks.h"
#include "models/train.h"
#include "nn/positions.h"
#include "nn/self_attention.h"
#include "viz/heatmap.h"
#include "viz/svg.h"

using namespace heed;

namespace {

real cpu_seconds() { return static_cast<real>(std::clock()) / CLOCKS_PER_SEC; }

long long ll(int64_t v) { return static_cast<long long>(v); }

// ---- 1. the zoo -------------------------------------------------------------------------------

struct Species {
  const char* model;
  const char* score;
};

const Species kZoo[] = {
    {"plain", "(none: the decoder sees s_0 only)"},
    {"additive", "v^T tanh(W1 h_i + W2 s_{t-1})"},
    {"general", "s_t^T W h_i"},
    {"dot", "s_t^T h_i"},
    {"scaled", "s_t^T h_i / sqrt(H)"},
    {"cosine", "beta cos(s_t, h_i)"},
    {"location", "(W_a s_t)_i, from s_t alone"},
};

void zoo(bool quick) {
  const int64_t steps = quick ? 20 : 300, samples = quick ? 50 : 500;
  ReverseTask task(10, 5, 10);
  std::printf("== 1. the zoo on reverse (V 10, lengths 5..10; E 32, H 64, gru; %lld steps of 32, lr 0.01)\n",
              ll(steps));
  real beta = 0;
  std::printf("%-9s %-35s %7s %7s %7s %7s\n", "model", "score e_ti", "params", "exact", "token", "@ 10");
  for (const Species& s : kZoo) {
    ModelConfig c;
    c.model = s.model;
    c.src_vocab = task.src_vocab().size();
    c.tgt_vocab = task.tgt_vocab().size();
    c.embed = 32;
    c.hidden = 64;
    Generator gen(1);
    Seq2Seq model(c, gen);
    TrainOptions opt;
    opt.steps = steps;
    opt.batch = 32;
    opt.lr = 0.01;
    opt.seed = 1;
    std::vector<real> step_cpu;  // CPU seconds of each step
    real last = cpu_seconds();
    train(model, task, opt, [&](const Progress&) {
      const real now = cpu_seconds();
      step_cpu.push_back(now - last);
      last = now;
    });
    std::sort(step_cpu.begin(), step_cpu.end());
    Accuracy held = evaluate_held_out(model, task, samples, 7);
    Accuracy longer = evaluate_by_length(model, task, {10}, samples / 5, 8)[0];
    std::printf("%-9s %-35s %7lld %7.3f %7.3f %7.3f\n", s.model, s.score, ll(model.num_parameters()), held.exact(),
                held.token(), longer.exact());
    for (const auto& [name, p] : model.named_parameters())
      if (name.find("beta") != std::string::npos) beta = p.value()[0];
    std::fflush(stdout);
    std::fprintf(stderr, "  %-9s %.1f ms/step (median CPU time of the %lld steps)\n", s.model,
                 1000 * step_cpu[step_cpu.size() / 2], ll(steps));
  }
  std::printf("(exact, token: %lld held-out sequences of lengths 5..10; @ 10: exact on %lld of length 10)\n",
              ll(samples), ll(samples / 5));
  std::printf("cosine's beta, 1 at the start, after training: %.2f\n\n", beta);
}

// ---- 2. self-attention as a layer -------------------------------------------------------------

Tensor random_tensor(const Shape& shape, Generator& gen) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<real> v(n);
  for (real& x : v) x = gen.normal();
  return Tensor(shape, v);
}

void print_matrix(const Tensor& t, int64_t offset, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows; ++i) {
    std::printf("   ");
    for (int64_t j = 0; j < cols; ++j) std::printf(" %6.3f", t.data()[offset + i * cols + j]);
    std::printf("\n");
  }
}

// Self-attention on three positions of D 2, with small weights chosen by hand, computed step by
// step (Q, K, V, the scores, the softmax, the weighted sum) and then by SelfAttention itself.
void qkv() {
  std::printf("== 2a. self-attention by hand: 3 positions, D 2, one head, no biases\n");
  Generator gen(1);
  SelfAttention layer(2, gen, /*bias=*/false);
  const Tensor x({1, 3, 2}, {1, 0, 0, 1, 1, 1});  // (B 1, S 3, D 2)
  layer.q_proj.weight.value() = Tensor({2, 2}, {1, 1, 0, 1});
  layer.k_proj.weight.value() = Tensor({2, 2}, {1, 0, 1, 1});
  layer.v_proj.weight.value() = Tensor({2, 2}, {1, 0, 0, 2});
  layer.out_proj.weight.value() = Tensor({2, 2}, {1, 0, 0, 1});  // W_o = I: the output is the mix itself
  auto rows = [](const char* name, const Tensor& t) {
    const int64_t S = t.shape()[t.dim() - 2], C = t.shape()[t.dim() - 1];
    for (int64_t i = 0; i < S; ++i) {
      std::printf("  %-24s", i == 0 ? name : "");
      for (int64_t j = 0; j < C; ++j) std::printf(" %7.3f", t[i * C + j]);
      std::printf("\n");
    }
  };
  auto project = [&](const Tensor& w) {  // x W^T: (3, 2)
    Tensor y = Tensor::zeros({3, 2});
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t o = 0; o < 2; ++o)
        for (int64_t d = 0; d < 2; ++d) y[i * 2 + o] += x[i * 2 + d] * w[o * 2 + d];
    return y;
  };
  rows("x (one row per position)", x);
  rows("W_q", layer.q_proj.weight.value());
  rows("W_k", layer.k_proj.weight.value());
  rows("W_v", layer.v_proj.weight.value());
  const Tensor Q = project(layer.q_proj.weight.value()), K = project(layer.k_proj.weight.value()),
               V = project(layer.v_proj.weight.value());
  rows("Q = x W_q^T", Q);
  rows("K = x W_k^T", K);
  rows("V = x W_v^T", V);
  Tensor scores = Tensor::zeros({3, 3}), weights = Tensor::zeros({3, 3}), out = Tensor::zeros({3, 2});
  for (int64_t i = 0; i < 3; ++i) {
    real top = -1e300, total = 0;
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t d = 0; d < 2; ++d) scores[i * 3 + j] += Q[i * 2 + d] * K[j * 2 + d];
      scores[i * 3 + j] /= std::sqrt(2.0);
      top = std::max(top, scores[i * 3 + j]);
    }
    for (int64_t j = 0; j < 3; ++j) total += weights[i * 3 + j] = std::exp(scores[i * 3 + j] - top);
    for (int64_t j = 0; j < 3; ++j) weights[i * 3 + j] /= total;
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t d = 0; d < 2; ++d) out[i * 2 + d] += weights[i * 3 + j] * V[j * 2 + d];
  }
  std::printf("  the scores and weights: query i down, key j across\n");
  rows("Q K^T / sqrt(2)", scores);
  rows("softmax of each row", weights);
  rows("sum_j w_ij V_j", out);
  AttentionOutput o = layer.forward(Var(x), Tensor({1, 3}, {1, 1, 1}));
  std::printf("  SelfAttention::forward gives the same weights and output (to within 1e-12): %s\n\n",
              allclose(reshape(o.weights.value(), {3, 3}), weights, 0, 1e-12) &&
                      allclose(reshape(o.output.value(), {3, 2}), out, 0, 1e-12)
                  ? "yes"
                  : "NO");
}

// The chapter's figure: the weights of the worked example of section 2a as a heatmap.
void figures(const std::string& dir) {
  Generator gen(1);
  SelfAttention layer(2, gen, /*bias=*/false);
  layer.q_proj.weight.value() = Tensor({2, 2}, {1, 1, 0, 1});
  layer.k_proj.weight.value() = Tensor({2, 2}, {1, 0, 1, 1});
  layer.v_proj.weight.value() = Tensor({2, 2}, {1, 0, 0, 2});
  layer.out_proj.weight.value() = Tensor({2, 2}, {1, 0, 0, 1});
  const Tensor x({1, 3, 2}, {1, 0, 0, 1, 1, 1});
  NoGradGuard no_grad;
  const Tensor w = layer.forward(Var(x), Tensor({1, 3}, {1, 1, 1})).weights.value();  // (1, 3, 3)
  std::vector<std::vector<real>> rows(3, std::vector<real>(3));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 3; ++j) rows[i][j] = w[i * 3 + j];
  const std::string path = dir + "/self_attention_weights.svg";
  write_text_file(path, svg_heatmap({"key 1 (1, 0)", "key 2 (0, 1)", "key 3 (1, 1)"},
                                    {"query 1", "query 2", "query 3"}, rows,
                                    "self-attention by hand: softmax(Q K^T / sqrt(2)), section 2a", {"key", "query"}));
  std::printf("wrote %s\n", path.c_str());
}

void layers() {
  std::printf("== 2. self-attention as a layer (D 8, one sequence of 5 positions, the last one padding)\n");
  Generator gen(12);
  MultiHeadAttention mha(8, 2, gen);
  Generator same(12);
  SelfAttention single(8, same);
  Generator one_head(12);
  MultiHeadAttention mha1(8, 1, one_head);
  std::printf("  MultiHeadAttention(8, 2): %lld parameters:", ll(mha.num_parameters()));
  for (const auto& [name, p] : mha.named_parameters()) {
    std::printf(" %s", name.c_str());
    (void)p;
  }
  std::printf("\n");

  Generator data(5);
  const Tensor x = random_tensor({1, 5, 8}, data);  // (B, S, D)
  const Tensor padding({1, 5}, {1, 1, 1, 1, 0});
  AttentionOutput o = mha.forward(Var(x), padding);
  const Tensor& w = o.weights.value();  // (B, h, S, S)
  std::printf("  x [1, 5, 8] -> output %s, weights %s\n", shape_str(o.output.value().shape()).c_str(),
              shape_str(w.shape()).c_str());
  std::printf("  head 0's weights (query i down, key j across):\n");
  print_matrix(w, 0, 5, 5);
  std::printf("  head 1's weights:\n");
  print_matrix(w, 25, 5, 5);

  // Permuting the positions permutes the output: the layer sees a set, not a sequence.
  const std::vector<int64_t> perm = {3, 0, 2, 1, 4};
  std::vector<real> px(40);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t d = 0; d < 8; ++d) px[i * 8 + d] = x.data()[perm[i] * 8 + d];
  Tensor y = o.output.value(), py = mha.forward(Var(Tensor({1, 5, 8}, px)), padding).output.value();
  real diff = 0;
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t d = 0; d < 8; ++d) diff = std::max(diff, std::abs(py.data()[i * 8 + d] - y.data()[perm[i] * 8 + d]));
  std::printf("  positions permuted 3 0 2 1: output rows permuted the same way, largest difference %.1e\n", diff);
  const Tensor sx = x;
  bool same_result = equal(single.forward(Var(sx), padding).output.value(),
                           mha1.forward(Var(sx), padding).output.value());
  std::printf("  SelfAttention(8) and MultiHeadAttention(8, 1) from the same seed: bit-identical %s\n",
              same_result ? "yes" : "no");
  const Tensor causal = self_attention_mask(padding, true);
  std::printf("  self_attention_mask(padding, causal = true), (1, 5, 5):\n");
  for (int64_t i = 0; i < 5; ++i) {
    std::printf("   ");
    for (int64_t j = 0; j < 5; ++j) std::printf(" %.0f", causal.data()[i * 5 + j]);
    std::printf("\n");
  }
  const Tensor P = sinusoidal_positions(4, 6);
  std::printf("  sinusoidal_positions(4, 6): position p down, columns sin, cos at 3 frequencies\n");
  print_matrix(P, 0, 4, 6);
  std::printf("\n");
}

// ---- 3. the histogram tagger ------------------------------------------------------------------

void tagger(bool quick) {
  const int64_t steps = quick ? 20 : 400, samples = quick ? 100 : 1000;
  HistogramTask task(5, 5, 10);
  TaggerConfig c;
  c.vocab = task.vocab().size();
  c.classes = task.num_classes();
  c.embed = 32;
  c.heads = 4;
  c.ffn = 64;
  c.bos = true;
  std::printf("== 3. the histogram task and a self-attention tagger (V 5, lengths 5..10)\n");
  {
    Generator g(3);
    for (int i = 0; i < 3; ++i) {
      std::vector<int64_t> src = task.sample(g);
      std::vector<int64_t> lab = task.labels(src);
      std::string l;
      for (int64_t k : lab) l += (l.empty() ? "" : " ") + std::to_string(k);
      std::printf("  %-20s -> %s\n", task.vocab().decode(src).c_str(), l.c_str());
    }
  }
  Generator gen(1);
  SelfAttentionTagger model(c, gen);
  std::printf("tagger: E 32, 4 heads, F 64, a BOS in front, no positions: %lld parameters\n",
              ll(model.num_parameters()));
  TaggerTrainOptions opt;
  opt.steps = steps;
  opt.batch = 32;
  opt.lr = 1e-2;
  opt.seed = 1;
  std::printf("%6s %8s %8s\n", "step", "loss", "acc");
  const int64_t every = steps / 4;
  real sum_loss = 0, sum_acc = 0;
  const real t0 = cpu_seconds();
  train_tagger(model, task, opt, [&](const TaggerProgress& p) {
    sum_loss += p.loss;
    sum_acc += p.accuracy;
    if (p.step % every == 0) {
      std::printf("%6lld %8.4f %8.3f\n", ll(p.step), sum_loss / every, sum_acc / every);
      sum_loss = sum_acc = 0;
    }
  });
  std::fprintf(stderr, "  tagger: %.1f s CPU for %lld steps\n", cpu_seconds() - t0, ll(steps));
  std::printf("(loss and token accuracy: the mean over the %lld steps up to each row)\n", ll(every));
  TagAccuracy acc = evaluate_tagger(model, task, samples, 99);
  std::printf("held-out (%lld sequences): token %.3f, exact %.3f\n", ll(samples), acc.token(), acc.exact());
  {  // the same budget without the BOS
    TaggerConfig nc = c;
    nc.bos = false;
    Generator ngen(1);
    SelfAttentionTagger no_bos(nc, ngen);
    train_tagger(no_bos, task, opt);
    TagAccuracy nacc = evaluate_tagger(no_bos, task, samples, 99);
    std::printf("the same without the BOS:       token %.3f, exact %.3f\n\n", nacc.token(), nacc.exact());
  }

  // One example, the head that looks most at the positions holding the query's own symbol.
  const Vocab& v = task.vocab();
  TagBatch b = task.make_batch({v.encode("2 0 3 2 4 0 2 1")});
  TaggerOutput out = model.forward(b);
  std::vector<int64_t> pred = model.predict(b);
  const Tensor& w = out.weights.value();  // (1, h, S', S'), BOS at index 0
  const int64_t Sp = b.len + 1;
  int64_t best = 0;
  real best_mass = -1;
  for (int64_t h = 0; h < c.heads; ++h) {
    real mass = 0;
    for (int64_t i = 1; i < Sp; ++i)
      for (int64_t j = 1; j < Sp; ++j)
        if (b.ids[i - 1] == b.ids[j - 1]) mass += w.data()[(h * Sp + i) * Sp + j];
    if (mass > best_mass) best_mass = mass, best = h;
  }
  std::vector<std::string> keys = {"<bos>"}, queries;
  std::vector<std::vector<real>> rows;
  std::string labels, predicted;
  std::vector<int64_t> lab = task.labels(b.ids);
  for (int64_t j = 0; j < b.len; ++j) {
    keys.push_back(v.token(b.ids[j]));
    queries.push_back(v.token(b.ids[j]));
    labels += " " + std::to_string(lab[j]);
    predicted += " " + std::to_string(pred[j]);
  }
  for (int64_t i = 1; i < Sp; ++i)
    rows.emplace_back(w.data() + (best * Sp + i) * Sp, w.data() + (best * Sp + i + 1) * Sp);
  std::printf("== 4. where one head looks: 2 0 3 2 4 0 2 1, counts%s, predicted%s\n", labels.c_str(),
              predicted.c_str());
  std::printf("head %lld of %lld: %.0f%% of its weight on positions holding the query's symbol, the most of any head\n",
              ll(best), ll(c.heads), 100 * best_mass / b.len);
  std::string map = terminal_heatmap(keys, queries, rows, false);
  if (!map.empty() && map.back() != '\n') map += '\n';
  std::printf("%s", map.c_str());
}

int run(bool quick, const std::vector<std::string>& only) {
  auto wanted = [&](const char* s) { return only.empty() || std::find(only.begin(), only.end(), s) != only.end(); };
  if (wanted("zoo")) zoo(quick);
  if (wanted("qkv")) qkv();
  if (wanted("layers")) layers();
  if (wanted("tagger")) tagger(quick);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  heed::tune_allocator();  // keep freed tensors with the process (tensor/tensor.h)
  if (argc > 1 && std::string(argv[1]) == "figures") {  // figures [DIR]
    figures(argc > 2 ? argv[2] : "build/ch12");
    return 0;
  }
  try {
    bool quick = false;
    std::vector<std::string> only;
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--quick") quick = true;
      else if (a == "zoo" || a == "qkv" || a == "layers" || a == "tagger") only.push_back(a);
      else {
        std::fprintf(stderr, "tutorial-12: unknown argument %s (use --quick, zoo, qkv, layers or tagger)\n", a.c_str());
        return 2;
      }
    }
    return run(quick, only);
  } catch (const Error& e) {
    std::fprintf(stderr, "tutorial-12: %s\n", e.what());
    return 1;
  }
}
