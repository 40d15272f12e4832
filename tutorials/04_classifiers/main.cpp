// Chapter 04: a softmax classifier whose probabilities are importances.
// The task: given 5 distinct symbols from 0..9, point at the position of the largest. A linear
// scorer gives each position one score, looking at that position alone; a softmax over the
// positions turns the scores into a probability distribution -- the same construction attention
// uses. Trained with cross-entropy and Adam (SGD for comparison), saved as a safetensors
// checkpoint, reloaded into a fresh model; a run stopped halfway and resumed from a checkpoint
// with the optimiser's state. `--quick` trains for fewer steps.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <unistd.h>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "io/atomic_file.h"
#include "io/parse.h"
#include "nn/checkpoint.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "nn/loss.h"
#include "nn/module.h"
#include "nn/optim.h"
#include "viz/svg.h"

using namespace heed;

namespace {

constexpr int64_t kVocab = 10;  // symbols 0..9
constexpr int64_t kLength = 5;  // positions per sequence (T)
constexpr int64_t kEmbed = 8;   // E
constexpr int64_t kBatch = 32;  // B

// A batch of sequences and, for each, the position of its largest symbol.
struct Batch {
  int64_t size = 0;             // B
  std::vector<int64_t> tokens;  // (B, T), row-major
  std::vector<int64_t> target;  // (B), each in [0, T)
};

// Draws `n` sequences of kLength distinct symbols (a partial Fisher-Yates shuffle of 0..9).
Batch make_batch(int64_t n, Generator& gen) {
  Batch b;
  b.size = n;
  for (int64_t r = 0; r < n; ++r) {
    std::vector<int64_t> pool(kVocab);
    for (int64_t s = 0; s < kVocab; ++s) pool[s] = s;
    int64_t best = 0;
    for (int64_t t = 0; t < kLength; ++t) {
      std::swap(pool[t], pool[gen.randint(t, kVocab - 1)]);
      b.tokens.push_back(pool[t]);
      if (pool[t] > pool[best]) best = t;
    }
    b.target.push_back(best);
  }
  return b;
}

// Scores each position from its own symbol alone: score_t = w . embed(x_t). The positions only
// meet in the softmax, which makes them compete for one unit of probability.
class PositionScorer : public Module {
 public:
  PositionScorer(int64_t vocab, int64_t embed_dim, Generator& gen)
      : embed(vocab, embed_dim, gen), score(embed_dim, 1, /*bias=*/false, gen) {
    register_module("embed", embed);
    register_module("score", score);
  }

  // tokens (B, T) -> scores (B, T), one per position.
  Var forward(const std::vector<int64_t>& tokens, int64_t B) const {
    Var e = embed.forward(tokens);  // (B*T, E)
    Var s = score.forward(e);       // (B*T, 1)
    return reshape(s, {B, -1});     // (B, T)
  }

  Embedding embed;  // (V, E)
  Linear score;     // (1, E), no bias: adding the same number to every score changes nothing
};

struct Eval {
  real loss = 0, accuracy = 0;
};

// Mean cross-entropy and the fraction of sequences whose highest-scored position is right.
Eval evaluate(const PositionScorer& model, const Batch& data) {
  NoGradGuard no_grad;
  Var scores = model.forward(data.tokens, data.size);  // (B, T)
  Eval e;
  e.loss = cross_entropy(scores, data.target).item();
  int64_t right = 0;
  for (int64_t r = 0; r < data.size; ++r) {
    int64_t best = 0;
    for (int64_t t = 1; t < kLength; ++t)
      if (scores.value().at({r, t}) > scores.value().at({r, best})) best = t;
    right += best == data.target[r];
  }
  e.accuracy = static_cast<real>(right) / static_cast<real>(data.size);
  return e;
}

// One step: forward, loss, gradients, update. Returns the batch's loss. Section 6 multiplies
// the loss by `scale` to show how each optimiser reacts to the size of the gradients.
real train_step(PositionScorer& model, Optimizer& opt, const Batch& batch, real scale = 1) {
  Var scores = model.forward(batch.tokens, batch.size);  // (B, T)
  Var loss = cross_entropy(scores, batch.target);
  opt.zero_grad();
  (loss * scale).backward();
  opt.step();
  return loss.item();
}

void print_row(const char* label, const Tensor& t, int label_width = 22, int precision = 4, int width = 8) {
  std::printf("%-*s", label_width, label);
  for (int64_t i = 0; i < t.numel(); ++i) std::printf(" %*.*f", width, precision, t[i]);
  std::printf("\n");
}

void softmax_demo() {
  std::printf("== 1. softmax: scores -> weights\n");
  Tensor scores({4}, {2.0, 1.0, 0.1, -1.0});
  print_row("scores", scores);
  print_row("softmax(scores)", softmax(scores, 0));
  print_row("softmax(scores + 100)", softmax(add(scores, 100.0), 0));
  print_row("softmax(3 * scores)", softmax(mul(scores, 3.0), 0));
  std::printf("the weights sum to %.4f\n\n", sum(softmax(scores, 0)).item());
}

// A value as text; NaN prints as "nan" whatever its sign bit (which differs between CPUs).
std::string fixed(real v, int width, int precision) {
  char buf[64];
  if (std::isnan(v)) std::snprintf(buf, sizeof buf, "%*s", width, "nan");
  else std::snprintf(buf, sizeof buf, "%*.*f", width, precision, v);
  return buf;
}

void print_loss_and_gradient(const char* label, const Var& loss, const Var& logits) {
  std::printf("%-30s loss %s   gradient", label, fixed(loss.item(), 9, 4).c_str());
  for (int64_t j = 0; j < logits.grad().numel(); ++j) std::printf(" %s", fixed(logits.grad()[j], 7, 4).c_str());
  std::printf("\n");
}

void stability_demo() {
  std::printf("== 2. cross-entropy, by hand and fused (logits 1000, 0, -1000; target 2)\n");
  Tensor x({1, 3}, {1000.0, 0.0, -1000.0});
  std::vector<int64_t> target = {2};

  Var a(x, true);
  Var e = exp(a);
  Var naive = nll(log(e / sum(e, 1, true)), target);
  naive.backward();
  print_loss_and_gradient("exp / sum, then log, then nll", naive, a);

  Var b(x, true);
  Var via_softmax = nll(log(softmax(b, 1)), target);
  via_softmax.backward();
  print_loss_and_gradient("log(softmax), then nll", via_softmax, b);

  Var c(x, true);
  Var via_log_softmax = nll(log_softmax(c, 1), target);
  via_log_softmax.backward();
  print_loss_and_gradient("log_softmax, then nll", via_log_softmax, c);

  Var d(x, true);
  Var fused = cross_entropy(d, target);
  fused.backward();
  print_loss_and_gradient("cross_entropy (fused)", fused, d);
  std::printf("\n");
}

// The score the model gives each symbol 0..9, wherever it stands: all that the model knows.
Tensor symbol_scores(const PositionScorer& model) {
  NoGradGuard no_grad;
  std::vector<int64_t> all(kVocab);
  for (int64_t s = 0; s < kVocab; ++s) all[s] = s;
  return model.forward(all, 1).value();  // (1, V)
}

// The softmax weights of the given test sequences, one sequence per line.
void print_weights(const Tensor& weights, const Batch& test, const std::vector<int64_t>& rows) {
  for (int64_t r : rows) {
    std::printf("symbols");
    for (int64_t t = 0; t < kLength; ++t) std::printf(" %lld", static_cast<long long>(test.tokens[r * kLength + t]));
    std::printf("   weights");
    for (int64_t t = 0; t < kLength; ++t) std::printf(" %5.3f", weights.at({r, t}));
    std::printf("\n");
  }
}

// Trains a model from init seed 1 on batches from seed 2 with the loss multiplied by `scale`;
// returns the test loss after `steps` steps.
real scaled_run(bool adam, real lr, real momentum, real scale, int64_t steps, const Batch& test) {
  Generator init_gen(1), batch_gen(2);
  PositionScorer model(kVocab, kEmbed, init_gen);
  std::unique_ptr<Optimizer> opt;
  if (adam) opt = std::make_unique<Adam>(model.parameters(), lr);
  else opt = std::make_unique<SGD>(model.parameters(), lr, momentum);
  for (int64_t step = 1; step <= steps; ++step) train_step(model, *opt, make_batch(kBatch, batch_gen), scale);
  return evaluate(model, test).loss;
}

void optimiser_demo(int64_t steps, const Batch& test) {
  std::printf("== 6. SGD and Adam when the loss is multiplied by a constant (test loss after %lld steps)\n",
              static_cast<long long>(steps));
  const real scales[] = {0.01, 1, 32};
  std::printf("%-28s %10s %10s %10s\n", "", "loss x0.01", "loss x1", "loss x32");
  struct Row {
    const char* name;
    bool adam;
    real lr, momentum;
  };
  const Row rows[] = {{"SGD  lr 0.1", false, 0.1, 0},
                      {"SGD  lr 0.1, momentum 0.9", false, 0.1, 0.9},
                      {"Adam lr 0.01", true, 0.01, 0}};
  for (const Row& row : rows) {
    std::printf("%-28s", row.name);
    for (real scale : scales) {
      real loss = scaled_run(row.adam, row.lr, row.momentum, scale, steps, test);
      if (std::isfinite(loss) && loss < 1000) std::printf(" %10.4f", loss);
      else std::printf(" %10s", "diverged");
    }
    std::printf("\n");
  }
  std::printf("\n");
}

// The JSON header with one top-level entry per line (in the file it is a single line) and
// without its padding.
void print_header(const std::string& json) {
  std::string line;
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (in_string) {
      line += c;
      if (c == '\\') line += json[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == ' ') continue;  // the padding (the header has no other spaces outside strings)
    if ((c == '}' || c == ']') && --depth == 0) {
      std::printf("  %s\n", line.c_str());
      line.clear();
    }
    line += c;
    if (c == '"') in_string = true;
    if ((c == '{' || c == '[') && depth++ == 0) {
      std::printf("%s\n", line.c_str());
      line.clear();
    }
    if (c == ',' && depth == 1) {
      std::printf("  %s\n", line.c_str());
      line.clear();
    }
  }
  std::printf("%s\n", line.c_str());
}

// Removes a file when the scope ends, even when an exception leaves it.
struct RemoveOnExit {
  std::filesystem::path path;
  ~RemoveOnExit() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
};

// Saves `model`, reads the file's layout by hand, loads it into a fresh model and compares.
// Returns true when the reloaded model's predictions are bit-identical.
bool checkpoint_demo(const PositionScorer& model, const Batch& test) {
  std::printf("== 7. a checkpoint: save, look inside, load into a fresh model\n");
  RemoveOnExit file{std::filesystem::temp_directory_path() /
                    ("heed-tutorial-04-" + std::to_string(getpid()) + ".safetensors")};
  const std::string path = file.path.string();
  save_checkpoint(model, path,
                  {{"model", "PositionScorer"}, {"vocab", std::to_string(kVocab)}, {"embed", std::to_string(kEmbed)}});

  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint64_t n = 0;  // bytes 0..7: the header's length, little-endian
  for (int k = 7; k >= 0; --k) n = (n << 8) | static_cast<unsigned char>(bytes[k]);
  std::string header = bytes.substr(8, n);
  uint64_t data = bytes.size() - 8 - n;
  std::printf("%zu bytes = 8 (header length N = %llu) + %llu (JSON header) + %llu (data)\n", bytes.size(),
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(data));
  print_header(header);

  // The first 8 bytes of data: embed.weight[0, 0] as a little-endian F64 (in the float build,
  // make float, heed writes F32: the first 4 bytes).
  using Bits = std::conditional_t<sizeof(real) == 8, uint64_t, uint32_t>;
  Bits bits = 0;
  for (int k = sizeof(real) - 1; k >= 0; --k) bits = (bits << 8) | static_cast<unsigned char>(bytes[8 + n + k]);
  std::printf("data bytes 0..%d as an %s: %.17g\nembed.weight[0, 0]:        %.17g\n\n", int(sizeof(real)) - 1,
              sizeof(real) == 8 ? "F64" : "F32", static_cast<double>(std::bit_cast<real>(bits)),
              static_cast<double>(model.embed.weight.value()[0]));

  std::map<std::string, std::string> meta = read_checkpoint_metadata(path);
  Generator other_gen(99);
  PositionScorer fresh(parse_int64(meta.at("vocab"), "vocab"), parse_int64(meta.at("embed"), "embed"), other_gen);
  std::printf("fresh model (seed 99), before loading: test accuracy %.3f\n", evaluate(fresh, test).accuracy);
  load_checkpoint(fresh, path);
  std::printf("fresh model, after loading:            test accuracy %.3f\n", evaluate(fresh, test).accuracy);

  NoGradGuard no_grad;
  Tensor saved = softmax(model.forward(test.tokens, test.size), 1).value();  // (B, T)
  Tensor loaded = softmax(fresh.forward(test.tokens, test.size), 1).value();
  bool same = equal(saved, loaded);
  std::printf("the %lld softmax weights of the test set, saved vs reloaded model: %s\n",
              static_cast<long long>(saved.numel()), same ? "bit-identical" : "DIFFERENT");
  return same;
}

// Section 8: a run stopped halfway, saved with its optimiser's and data generator's state beside
// the weights, and continued by a fresh model, optimiser and generator built from the file alone,
// ends bit-identical to the run that never stopped; continued from the weights alone, it does not.
bool resume_demo(int64_t steps) {
  std::printf("\n== 8. stopping a run and resuming it\n");
  const int64_t half = steps / 2;
  // One run of Adam (lr 0.01) from `from` to `to` steps, on batches drawn from `data`.
  auto run_steps = [](PositionScorer& m, Adam& adam, Generator& data, int64_t from, int64_t to) {
    for (int64_t step = from + 1; step <= to; ++step) train_step(m, adam, make_batch(kBatch, data));
  };
  Generator init_a(1), data_a(2);
  PositionScorer whole(kVocab, kEmbed, init_a);
  Adam adam_a(whole.parameters(), 0.01);
  run_steps(whole, adam_a, data_a, 0, steps);

  // The same run, stopped at `half`: its file holds the weights and what the next step needs.
  Generator init_b(1), data_b(2);
  PositionScorer first(kVocab, kEmbed, init_b);
  Adam adam_b(first.parameters(), 0.01);
  run_steps(first, adam_b, data_b, 0, half);
  std::vector<NamedTensor> state;
  auto names = first.named_parameters();
  for (size_t i = 0; i < names.size(); ++i) {
    state.push_back({kTrainingPrefix + "exp_avg." + names[i].first, adam_b.exp_avg()[i]});
    state.push_back({kTrainingPrefix + "exp_avg_sq." + names[i].first, adam_b.exp_avg_sq()[i]});
  }
  RemoveOnExit file{std::filesystem::temp_directory_path() /
                    ("heed-tutorial-04-resume-" + std::to_string(getpid()) + ".safetensors")};
  const std::string path = file.path.string();
  save_checkpoint(first, path,
                  {{"training.adam_steps", std::to_string(adam_b.steps())}, {"training.data", data_b.state()}},
                  state);
  const auto with_state = std::filesystem::file_size(path);
  save_checkpoint(first, path.substr(0, path.size() - 12) + "-weights.safetensors");
  RemoveOnExit weights_file{path.substr(0, path.size() - 12) + "-weights.safetensors"};
  const auto weights_only = std::filesystem::file_size(weights_file.path);

  // As a new process would: everything from the file, nothing from the run that stopped.
  Generator init_c(99);
  PositionScorer resumed(kVocab, kEmbed, init_c);
  std::vector<NamedTensor> loaded;
  std::map<std::string, std::string> meta = load_checkpoint(resumed, path, &loaded);
  std::map<std::string, Tensor> by_name;
  for (const NamedTensor& t : loaded) by_name[t.name] = t.value;
  std::vector<Tensor> exp_avg, exp_avg_sq;  // one per parameter, in the parameters' order
  for (const auto& [name, p] : resumed.named_parameters()) {
    exp_avg.push_back(by_name.at(kTrainingPrefix + "exp_avg." + name));
    exp_avg_sq.push_back(by_name.at(kTrainingPrefix + "exp_avg_sq." + name));
  }
  Adam adam_c(resumed.parameters(), 0.01);
  adam_c.load_state(parse_int64(meta.at("training.adam_steps"), "training.adam_steps"), exp_avg, exp_avg_sq);
  Generator data_c = Generator::from_state(meta.at("training.data"));
  run_steps(resumed, adam_c, data_c, half, steps);

  // From the weights alone: a fresh Adam (no moments, step count 0), the same batches.
  Generator init_d(99), data_d = Generator::from_state(meta.at("training.data"));
  PositionScorer weights_alone(kVocab, kEmbed, init_d);
  load_checkpoint(weights_alone, weights_file.path.string());
  Adam adam_d(weights_alone.parameters(), 0.01);
  run_steps(weights_alone, adam_d, data_d, half, steps);

  auto largest_difference = [&](const PositionScorer& m) {
    real d = 0;
    auto a = whole.parameters(), b = m.parameters();
    for (size_t i = 0; i < a.size(); ++i)
      for (int64_t k = 0; k < a[i].value().numel(); ++k) d = std::max(d, std::abs(a[i].value()[k] - b[i].value()[k]));
    return d;
  };
  std::printf("stopped at step %lld of %lld; the file: %lld bytes (the weights alone: %lld)\n",
              static_cast<long long>(half), static_cast<long long>(steps), static_cast<long long>(with_state),
              static_cast<long long>(weights_only));
  for (const NamedTensor& t : loaded) std::printf("  %-34s %s\n", t.name.c_str(), shape_str(t.value.shape()).c_str());
  const real resumed_diff = largest_difference(resumed);
  std::printf("resumed with Adam's state: largest weight difference from the unstopped run %g (%s)\n", resumed_diff,
              resumed_diff == 0 ? "bit-identical" : "DIFFERENT");
  std::printf("resumed from the weights alone:  largest weight difference %.3g\n", largest_difference(weights_alone));
  return resumed_diff == 0;
}

// The two layers of the model, built by hand and checked: Linear's y = x W^T + b and its three
// gradients, and Embedding's row lookup, whose gradient adds rows back (twice for a repeated id).
void print_matrix(const char* label, const Tensor& t) {
  const int64_t rows = t.shape()[0], cols = t.shape()[1];
  for (int64_t r = 0; r < rows; ++r) {
    std::printf("  %-22s", r == 0 ? label : "");
    for (int64_t c = 0; c < cols; ++c) std::printf(" %8.3f", t[r * cols + c]);
    std::printf("\n");
  }
}

void print_check(const GradcheckReport& r) {
  std::printf("gradcheck %s: %s (%lld elements; max abs error %s)\n", r.name.c_str(), r.ok ? "passed" : "FAILED",
              static_cast<long long>(r.elements), r.max_abs_err < 1e-9 ? "below 1e-9" : "1e-9 or more");
}

void layers() {
  std::printf("== layers: Linear and Embedding, by hand and gradchecked\n");
  Generator gen(7);
  Linear lin(3, 2, /*bias=*/true, gen);  // weight (2, 3), bias (2)
  Tensor x({2, 3}, {1.0, -2.0, 0.5, 0.0, 1.0, 3.0});  // (N 2, in 3)
  print_matrix("x (N 2, in 3)", x);
  print_matrix("W (out 2, in 3)", lin.weight.value());
  print_matrix("b (out 2)", reshape(lin.bias.value(), {1, 2}));
  Tensor by_hand = Tensor::zeros({2, 2});  // y[n, o] = sum_i x[n, i] W[o, i] + b[o]
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t o = 0; o < 2; ++o) {
      real acc = lin.bias.value()[o];
      for (int64_t i = 0; i < 3; ++i) acc += x[n * 3 + i] * lin.weight.value()[o * 3 + i];
      by_hand[n * 2 + o] = acc;
    }
  print_matrix("x W^T + b, by hand", by_hand);
  Tensor y = lin.forward(Var(x)).value();
  std::printf("  Linear::forward gives the same (to within 1e-12): %s\n",
              allclose(y, by_hand, 0, 1e-12) ? "yes" : "NO");
  GradcheckOptions options;
  options.name = "Linear, d/d x, W and b";
  print_check(gradcheck([](const std::vector<Var>& v) { return linear(v[0], v[1], v[2]); },
                        {x, lin.weight.value(), lin.bias.value()}, options));

  Embedding emb(5, 3, gen, /*padding_idx=*/0);  // weight (V 5, E 3); row 0 is padding
  const std::vector<int64_t> ids = {1, 3, 1, 0};
  std::printf("\nEmbedding(V 5, E 3), padding id 0; ids 1 3 1 0 pick rows 1, 3, 1 and 0\n");
  print_matrix("weight (V 5, E 3)", emb.weight.value());
  print_matrix("forward(ids) (N 4, E 3)", emb.forward(ids).value());
  Var w(emb.weight.value(), true);
  Tensor upstream({4, 3}, {1, 1, 1, 10, 10, 10, 100, 100, 100, 5, 5, 5});  // d loss / d out
  sum(embedding(w, ids, 0) * Var(upstream)).backward();
  print_matrix("d weight (rows added)", w.grad());
  std::printf("  row 1 gets 1 + 100, from its two uses; row 3 gets 10; the padding row 0 nothing\n");
  // With a padding id, the padding row's gradient is 0 on purpose (it must stay the zero vector), so
  // the check runs without one: there every row's gradient must be the true derivative.
  options.name = "embedding, d/d weight (ids 1 3 1 0, no padding id)";
  print_check(gradcheck([&](const std::vector<Var>& v) { return embedding(v[0], ids, -1); }, {emb.weight.value()},
                        options));
}

// The chapter's figure: the softmax weights over the positions of the first test sequences,
// after the same 400 steps of training as run(), from the same seeds.
void figures(const std::string& dir) {
  Generator data_gen(4);
  Batch test = make_batch(1000, data_gen);
  Generator init_gen(1);
  PositionScorer model(kVocab, kEmbed, init_gen);
  Adam adam(model.parameters(), 0.01);
  Generator batch_gen(2);
  for (int64_t step = 1; step <= 400; ++step) train_step(model, adam, make_batch(kBatch, batch_gen));
  NoGradGuard no_grad;
  Tensor weights = softmax(model.forward(test.tokens, test.size), 1).value();  // (B, T)
  std::vector<std::vector<real>> rows;
  std::vector<std::string> labels;
  for (int64_t r = 0; r < 6; ++r) {
    std::string label;
    for (int64_t t = 0; t < kLength; ++t) label += (t ? " " : "") + std::to_string(test.tokens[r * kLength + t]);
    labels.push_back(label);
    rows.emplace_back(weights.data() + r * kLength, weights.data() + (r + 1) * kLength);
  }
  const std::string path = dir + "/position_weights.svg";
  write_text_file(path, svg_heatmap({"position 0", "position 1", "position 2", "position 3", "position 4"}, labels,
                                    rows, "softmax weights over the positions, after training (test sequences)",
                                    {"position", "test sequence"}));
  std::printf("wrote %s\n", path.c_str());
}

int run(bool quick) {
  const int64_t steps = quick ? 100 : 400;
  const int64_t every = quick ? 25 : 50;

  softmax_demo();
  stability_demo();

  Generator data_gen(4);
  Batch test = make_batch(1000, data_gen);
  std::printf("== 3. the task: point at the largest of %lld distinct symbols 0..9\n",
              static_cast<long long>(kLength));
  for (int64_t r = 0; r < 3; ++r) {
    std::printf("sequence");
    for (int64_t t = 0; t < kLength; ++t) std::printf(" %lld", static_cast<long long>(test.tokens[r * kLength + t]));
    std::printf("  ->  position %lld\n", static_cast<long long>(test.target[r]));
  }
  Generator init_gen(1);
  PositionScorer model(kVocab, kEmbed, init_gen);
  std::printf("parameters:");
  for (const auto& [name, v] : model.named_parameters())
    std::printf(" %s %s", name.c_str(), shape_str(v.shape()).c_str());
  std::printf(" (%lld numbers)\n\n", static_cast<long long>(model.num_parameters()));
  Tensor scores_before = symbol_scores(model);

  std::printf("== 4. training with Adam (lr 0.01, batch %lld)\n", static_cast<long long>(kBatch));
  std::printf("%6s %11s %10s %9s\n", "step", "batch loss", "test loss", "test acc");
  Eval start = evaluate(model, test);
  std::printf("%6d %11s %10.4f %9.3f\n", 0, "", start.loss, start.accuracy);
  Adam adam(model.parameters(), 0.01);
  Generator batch_gen(2);
  for (int64_t step = 1; step <= steps; ++step) {
    real loss = train_step(model, adam, make_batch(kBatch, batch_gen));
    if (step % every == 0) {
      Eval e = evaluate(model, test);
      std::printf("%6lld %11.4f %10.4f %9.3f\n", static_cast<long long>(step), loss, e.loss, e.accuracy);
    }
  }

  std::printf("\n== 5. what the model learned\n");
  std::printf("%-15s", "symbol");
  for (int64_t s = 0; s < kVocab; ++s) std::printf(" %6lld", static_cast<long long>(s));
  std::printf("\n");
  print_row("score before", scores_before, 15, 2, 6);
  print_row("score after", symbol_scores(model), 15, 2, 6);
  Tensor weights;  // (B, T)
  {
    NoGradGuard no_grad;
    weights = softmax(model.forward(test.tokens, test.size), 1).value();
  }
  // The test sequence whose largest weight is smallest. The model scores a symbol wherever it
  // stands, so two sequences of the same symbols in another order tie exactly in exact arithmetic,
  // and only rounding would choose between them: a sequence must be smaller by more than rounding
  // (1e-9) to displace the first one found.
  int64_t least_sure = 0;
  real least_top = 1;
  for (int64_t r = 0; r < test.size; ++r) {
    real top = max(slice(weights, 0, r, r + 1)).item();
    if (top < least_top - real(1e-9)) least_top = top, least_sure = r;
  }
  std::printf("\nsoftmax weights over the positions: the three sequences above, then the one\n"
              "test sequence (of %lld) where the largest weight is smallest\n",
              static_cast<long long>(test.size));
  print_weights(weights, test, {0, 1, 2, least_sure});
  std::printf("\n");

  optimiser_demo(steps, test);
  bool reloaded = checkpoint_demo(model, test);
  bool resumed = resume_demo(steps);
  return reloaded && resumed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  heed::tune_allocator();  // keep freed tensors with the process (tensor/tensor.h)
  try {
    if (argc > 1 && std::string(argv[1]) == "figures") {  // figures [DIR]
      figures(argc > 2 ? argv[2] : "build/ch04");
      return 0;
    }
    if (argc > 1 && std::string(argv[1]) == "layers") {
      layers();
      return 0;
    }
    return run(argc > 1 && std::string(argv[1]) == "--quick");
  } catch (const Error& e) {
    std::fprintf(stderr, "tutorial-04: %s\n", e.what());
    return 2;
  }
}
