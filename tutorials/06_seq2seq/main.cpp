// Chapter 06: the plain encoder-decoder. One batch of the reverse task as arrays, the model's
// parameters and its context vector, teacher forcing and greedy decoding written out by hand,
// then training on copy and on reverse, accuracy by source length (past the training lengths
// too), accuracy by output position, and a few predictions. `--quick`: a tiny budget.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "io/atomic_file.h"
#include "models/evaluate.h"
#include "models/seq2seq.h"
#include "models/tasks/tasks.h"
#include "models/train.h"
#include "models/tasks/vocab.h"
#include "viz/diagram.h"
#include "viz/svg.h"

using namespace heed;

namespace {

constexpr int64_t kSymbols = 10;              // V: symbols 0..9, ids 3..12
constexpr int64_t kMinLen = 3, kMaxLen = 10;  // training lengths
constexpr uint64_t kSeed = 1;                 // as `heed train --seed 1`

struct Budget {
  int64_t steps, every, samples, positions_samples;
  std::vector<int64_t> lengths;
};

Budget budget(bool quick) {
  if (quick) return {40, 10, 20, 20, {3, 6, 10, 13, 16}};
  return {1000, 100, 200, 500, {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};
}

// The configuration `heed train --model plain` builds for a symbol task.
ModelConfig plain_config(const Task& task) {
  ModelConfig c;
  c.model = "plain";
  c.cell = "gru";
  c.src_vocab = task.src_vocab().size();
  c.tgt_vocab = task.tgt_vocab().size();
  c.embed = 32;
  c.hidden = 64;
  c.max_src_len = std::max<int64_t>(64, 2 * task.max_len());
  return c;
}

// Row r of a row-major (rows, cols) array of ids.
void print_row(const std::vector<int64_t>& ids, int64_t cols, int64_t r) {
  for (int64_t j = 0; j < cols; ++j) std::printf(" %2lld", static_cast<long long>(ids[r * cols + j]));
}

Batch batch_demo(const Task& task) {
  std::printf("== 1. the reverse task and one batch (V %lld symbols, lengths %lld..%lld)\n",
              static_cast<long long>(kSymbols), static_cast<long long>(kMinLen), static_cast<long long>(kMaxLen));
  Generator gen(6);
  std::vector<Example> examples;
  for (int i = 0; i < 3; ++i) examples.push_back(task.sample(gen));
  const Vocab& v = task.src_vocab();
  for (const Example& e : examples)
    std::printf("  %-22s -> %s\n", v.decode(e.src).c_str(), v.decode(e.tgt).c_str());
  Batch b = make_batch(examples);
  std::printf("as ids (0 <pad>, 1 <bos>, 2 <eos>, symbol k is id k + 3):\n");
  std::printf("  src (B %lld, S %lld) and lengths\n", static_cast<long long>(b.batch),
              static_cast<long long>(b.src_len));
  for (int64_t r = 0; r < b.batch; ++r) {
    std::printf("   ");
    print_row(b.src, b.src_len, r);
    std::printf("    %lld\n", static_cast<long long>(b.lengths[r]));
  }
  std::printf("  tgt_in (B %lld, T %lld) and tgt_out (B %lld, T %lld)\n", static_cast<long long>(b.batch),
              static_cast<long long>(b.tgt_len), static_cast<long long>(b.batch), static_cast<long long>(b.tgt_len));
  for (int64_t r = 0; r < b.batch; ++r) {
    std::printf("   ");
    print_row(b.tgt_in, b.tgt_len, r);
    std::printf("    ");
    print_row(b.tgt_out, b.tgt_len, r);
    std::printf("\n");
  }
  std::printf("\n");
  return b;
}

// Greedy decoding written out with the model's pieces: the encoder (start), one decoder step
// at a time, and the output layer. Each step feeds back the token the model just chose.
std::vector<std::vector<int64_t>> greedy_by_hand(const Seq2Seq& model, const Batch& batch, int64_t steps) {
  NoGradGuard no_grad;
  DecoderState st = model.start(batch);  // encodes the source; st.s is the context vector
  std::vector<int64_t> prev(batch.batch, Vocab::kBos);
  std::vector<std::vector<int64_t>> out(batch.batch);
  for (int64_t t = 0; t < steps; ++t) {
    Var logits = model.logits(model.step(prev, st).out);  // (B, V)
    Tensor best = argmax(logits.value(), 1);              // (B)
    for (int64_t b = 0; b < batch.batch; ++b) {
      prev[b] = static_cast<int64_t>(best[b]);  // the model's own choice is the next input
      out[b].push_back(prev[b]);
    }
  }
  return out;
}

void model_demo(const Task& task, const Batch& batch) {
  std::printf("== 2. the plain model (gru cells, E 32, H 64)\n");
  Generator gen(kSeed);
  Seq2Seq model(plain_config(task), gen);
  for (const auto& [name, p] : model.named_parameters())
    std::printf("  %-24s %s\n", name.c_str(), shape_str(p.shape()).c_str());
  std::printf("  %lld numbers\n", static_cast<long long>(model.num_parameters()));

  NoGradGuard no_grad;
  DecoderState st = model.start(batch);
  const int64_t H = model.config().hidden, S = batch.src_len;
  bool same = true;
  for (int64_t b = 0; b < batch.batch; ++b) {
    const int64_t last = batch.lengths[b] - 1;
    for (int64_t k = 0; k < H; ++k)
      same = same && st.s.h.value()[b * H + k] == st.values.value()[(b * S + last) * H + k];
  }
  std::printf("context vector %s: the encoder state at positions", shape_str(st.s.h.shape()).c_str());
  for (int64_t b = 0; b < batch.batch; ++b) std::printf(" %lld", static_cast<long long>(batch.lengths[b] - 1));
  std::printf(" of states %s: %s\n\n", shape_str(st.values.shape()).c_str(), same ? "bit-identical" : "DIFFERENT");

  std::printf("== 3. untrained: the teacher-forced loss, and greedy decoding\n");
  std::printf("loss on this batch %.4f (a uniform guess over %lld tokens costs log %lld = %.4f)\n",
              model.loss(batch).item(), static_cast<long long>(task.tgt_vocab().size()),
              static_cast<long long>(task.tgt_vocab().size()), std::log(static_cast<real>(task.tgt_vocab().size())));
  std::vector<std::vector<int64_t>> mine = greedy_by_hand(model, batch, batch.tgt_len);
  Decoded lib = model.greedy(batch, batch.tgt_len);
  std::vector<int64_t> src(batch.src_len);
  for (int64_t b = 0; b < batch.batch; ++b) {
    src.assign(batch.src.begin() + b * S, batch.src.begin() + b * S + batch.lengths[b]);
    std::printf("  %-22s -> %s\n", task.src_vocab().decode(src).c_str(), task.tgt_vocab().decode(mine[b]).c_str());
  }
  std::printf("greedy_by_hand and Seq2Seq::greedy choose the same tokens: %s\n\n", mine == lib.tokens ? "yes" : "NO");
}

struct Trained {
  std::vector<real> losses, accuracy;  // per step
  Accuracy held_out;
};

// Trains as `heed train --model plain --seed 1` does. Progress, with times, goes to stderr.
Trained train_plain(Seq2Seq& model, const Task& task, int64_t steps, int64_t every) {
  TrainOptions opt;  // Adam, lr 3e-3 decayed linearly to 0, gradient-norm clip 1
  opt.steps = steps;
  opt.batch = 32;
  opt.seed = kSeed + 1000003;  // the data stream, apart from the weights' seed
  Trained t;
  train(model, task, opt, [&](const Progress& p) {
    t.losses.push_back(p.loss);
    t.accuracy.push_back(p.accuracy);
    if (p.step % every == 0)
      std::fprintf(stderr, "tutorial-06: %s, step %lld of %lld, %.0f s\n", task.name().c_str(),
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

// Token accuracy under teacher forcing: each step sees the right previous token.
real teacher_forced_token_accuracy(const Seq2Seq& model, const Batch& batch) {
  NoGradGuard no_grad;
  Tensor logits = model.forward(batch).value();  // (B, T, V)
  Tensor best = argmax(logits, 2);               // (B, T)
  int64_t right = 0, total = 0;
  for (int64_t b = 0; b < batch.batch; ++b)
    for (int64_t t = 0; t + 1 < batch.tgt_lengths[b]; ++t) {  // the L symbols, not the EOS
      right += static_cast<int64_t>(best[b * batch.tgt_len + t]) == batch.tgt_out[b * batch.tgt_len + t];
      ++total;
    }
  return static_cast<real>(right) / static_cast<real>(total);
}

// n sources of one length, drawn as evaluate_by_length draws them from Generator(seed).
Batch fixed_length_batch(const Task& task, int64_t length, int64_t n, uint64_t seed) {
  Generator gen(seed);
  std::vector<Example> examples;
  for (int64_t i = 0; i < n; ++i) examples.push_back(task.sample(gen, length));
  return make_batch(examples);
}

void by_length(const Seq2Seq& copy, const CopyTask& copy_task, const Seq2Seq& reverse, const ReverseTask& reverse_task,
               const Budget& bud) {
  std::printf("== 5. accuracy by source length (greedy, %lld sequences per length; trained on %lld..%lld)\n",
              static_cast<long long>(bud.samples), static_cast<long long>(kMinLen), static_cast<long long>(kMaxLen));
  std::vector<Accuracy> c = evaluate_by_length(copy, copy_task, bud.lengths, bud.samples, kSeed);
  std::vector<Accuracy> r = evaluate_by_length(reverse, reverse_task, bud.lengths, bud.samples, kSeed);
  std::printf("%6s  %20s  %20s\n", "", "copy", "reverse");
  std::printf("%6s  %6s %6s %6s  %6s %6s %6s\n", "length", "exact", "token", "tf", "exact", "token", "tf");
  for (size_t i = 0; i < bud.lengths.size(); ++i) {
    const int64_t L = bud.lengths[i];
    if (L == kMaxLen + 1 || (L > kMaxLen && i > 0 && bud.lengths[i - 1] <= kMaxLen))
      std::printf("  -- longer than any training sequence --\n");
    Batch cb = fixed_length_batch(copy_task, L, bud.samples, kSeed + static_cast<uint64_t>(L));
    Batch rb = fixed_length_batch(reverse_task, L, bud.samples, kSeed + static_cast<uint64_t>(L));
    std::printf("%6lld  %6.3f %6.3f %6.3f  %6.3f %6.3f %6.3f\n", static_cast<long long>(L), c[i].exact(), c[i].token(),
                teacher_forced_token_accuracy(copy, cb), r[i].exact(), r[i].token(),
                teacher_forced_token_accuracy(reverse, rb));
  }
  std::printf("(tf: token accuracy of the same sequences under teacher forcing)\n\n");
}

// Greedy token accuracy at each output position for sources of one length.
std::vector<real> by_position(const Seq2Seq& model, const Task& task, int64_t L, int64_t n) {
  Batch batch = fixed_length_batch(task, L, n, 4242);
  Decoded d = model.greedy(batch, L + 1);
  std::vector<real> acc(L, 0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t t = 0; t < L; ++t)
      acc[t] += (d.tokens[b][t] == batch.tgt_out[b * batch.tgt_len + t]) / static_cast<real>(n);
  return acc;
}

void positions(const Seq2Seq& copy, const Task& copy_task, const Seq2Seq& reverse, const Task& reverse_task,
               const Budget& bud) {
  const int64_t L = kMaxLen;
  std::printf("== 6. token accuracy by output position (source length %lld, %lld sequences)\n",
              static_cast<long long>(L), static_cast<long long>(bud.positions_samples));
  std::printf("%-18s", "output position");
  for (int64_t t = 1; t <= L; ++t) std::printf(" %5lld", static_cast<long long>(t));
  std::printf("\n%-18s", "copy: source pos");
  for (int64_t t = 1; t <= L; ++t) std::printf(" %5lld", static_cast<long long>(t));
  std::printf("\n%-18s", "  accuracy");
  for (real a : by_position(copy, copy_task, L, bud.positions_samples)) std::printf(" %5.2f", a);
  std::printf("\n%-18s", "reverse: src pos");
  for (int64_t t = 1; t <= L; ++t) std::printf(" %5lld", static_cast<long long>(L + 1 - t));
  std::printf("\n%-18s", "  accuracy");
  for (real a : by_position(reverse, reverse_task, L, bud.positions_samples)) std::printf(" %5.2f", a);
  std::printf("\n\n");
}

void predictions(const Seq2Seq& model, const Task& task) {
  std::printf("== 7. greedy predictions of the reverse model (x marks a wrong symbol)\n");
  Generator gen(31);
  const Vocab& v = task.tgt_vocab();
  for (int64_t L : {5, 8, 10, 13}) {
    Example e = task.sample(gen, L);
    Batch b = make_batch({e});
    Decoded d = model.greedy(b, L + 1);
    std::vector<int64_t> want = b.tgt_out;  // y1..yL EOS
    std::printf("  source %s\n  target %s\n  output %s\n", v.decode(e.src).c_str(), v.decode(want).c_str(),
                v.decode(d.tokens[0]).c_str());
    std::string marks = "        ";  // under "  output"
    for (int64_t t = 0; t <= L; ++t)
      marks += " " + std::string(v.token(d.tokens[0][t]).size(), d.tokens[0][t] == want[t] ? ' ' : 'x');
    while (marks.back() == ' ') marks.pop_back();
    std::printf("%s\n", marks.size() > 8 ? marks.c_str() : "         (exact)");
  }
}

int run(bool quick) {
  const Budget bud = budget(quick);
  CopyTask copy_task(kSymbols, kMinLen, kMaxLen);
  ReverseTask reverse_task(kSymbols, kMinLen, kMaxLen);

  Batch batch = batch_demo(reverse_task);
  model_demo(reverse_task, batch);

  std::printf("== 4. training plain on copy, then on reverse (%lld steps of 32 sequences each)\n",
              static_cast<long long>(bud.steps));
  Generator copy_gen(kSeed), reverse_gen(kSeed);
  Seq2Seq copy(plain_config(copy_task), copy_gen);
  Seq2Seq reverse(plain_config(reverse_task), reverse_gen);
  std::fflush(stdout);
  Trained c = train_plain(copy, copy_task, bud.steps, bud.every);
  Trained r = train_plain(reverse, reverse_task, bud.steps, bud.every);
  std::printf("%6s  %15s  %15s\n", "", "copy", "reverse");
  std::printf("%6s  %7s %7s  %7s %7s\n", "step", "loss", "acc", "loss", "acc");
  std::printf("%6d  %7.4f %7.3f  %7.4f %7.3f\n", 1, c.losses[0], c.accuracy[0], r.losses[0], r.accuracy[0]);
  for (int64_t s = bud.every; s <= bud.steps; s += bud.every)
    std::printf("%6lld  %7.4f %7.3f  %7.4f %7.3f\n", static_cast<long long>(s), window_mean(c.losses, s, bud.every),
                window_mean(c.accuracy, s, bud.every), window_mean(r.losses, s, bud.every),
                window_mean(r.accuracy, s, bud.every));
  std::printf("(loss and teacher-forced token accuracy: the mean over the %lld steps up to each row)\n",
              static_cast<long long>(bud.every));
  std::printf("held-out (%lld sequences, lengths %lld..%lld): "
              "copy exact %.3f token %.3f, reverse exact %.3f token %.3f\n\n",
              static_cast<long long>(c.held_out.n), static_cast<long long>(kMinLen), static_cast<long long>(kMaxLen),
              c.held_out.exact(), c.held_out.token(), r.held_out.exact(), r.held_out.token());

  by_length(copy, copy_task, reverse, reverse_task, bud);
  positions(copy, copy_task, reverse, reverse_task, bud);
  predictions(reverse, reverse_task);
  return 0;
}

}  // namespace

// The chapter's figure: the plain encoder-decoder on one reverse example, built from the batch
// make_batch makes of it (the decoder's inputs are <bos> and the target shifted right).
void figures(const std::string& dir) {
  ReverseTask task(10, 3, 10);
  const Vocab& v = task.tgt_vocab();
  const std::vector<int64_t> src = {6, 4, 7};  // 3 1 4
  Batch batch = make_batch({{src, task.target(src)}});
  Diagram d;
  d.title = "the plain encoder-decoder: everything passes through one vector";
  d.caption = "teacher forcing: the decoder reads <bos> and the right answer so far; greedy decoding reads its own";
  int prev = -1;
  for (size_t i = 0; i < src.size(); ++i) {
    int x = d.add({v.token(src[i]), static_cast<real>(i), 2, "#eef4fb", true});
    int h = d.add({"h_" + std::to_string(i + 1) + "\nencoder gru", static_cast<real>(i), 1});
    d.arrow(x, h);
    if (prev >= 0) d.arrow(prev, h);
    prev = h;
  }
  int ctx = d.add({"s_0 = h_3\nthe context vector\n(H numbers)", 3.3, 0.4, "#fff4e0"});
  d.arrow(prev, ctx);
  prev = ctx;
  for (int64_t t = 0; t < batch.tgt_len; ++t) {
    const real col = 4.6 + static_cast<real>(t);
    int in = d.add({v.token(batch.tgt_in[t]), col, 2, "#eef4fb", true});
    int s = d.add({"s_" + std::to_string(t + 1) + "\ndecoder gru", col, 1});
    int out = d.add({v.token(batch.tgt_out[t]), col, 0, "#e8f5e9", true});
    d.arrow(in, s);
    d.arrow(prev, s);
    d.arrow(s, out, "W_out");
    prev = s;
  }
  const std::string path = dir + "/encoder_decoder.svg";
  write_text_file(path, svg_diagram(d));
  std::printf("wrote %s\n", path.c_str());
}

int main(int argc, char** argv) {
  heed::tune_allocator();  // keep freed tensors with the process (tensor/tensor.h)
  if (argc > 1 && std::string(argv[1]) == "figures") {  // figures [DIR]
    figures(argc > 2 ? argv[2] : "build/ch06");
    return 0;
  }
  try {
    return run(argc > 1 && std::string(argv[1]) == "--quick");
  } catch (const Error& e) {
    std::fprintf(stderr, "tutorial-06: %s\n", e.what());
    return 2;
  }
}
