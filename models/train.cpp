#include "models/train.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "autograd/functions.h"
#include "nn/loss.h"
#include "nn/optim.h"

namespace heed {

real scheduled_lr(const TrainOptions& opt, int64_t t) {
  if (opt.schedule == "constant") return opt.lr;
  return opt.lr * std::max(real(0), 1 - static_cast<real>(t) / static_cast<real>(opt.steps));
}

real step_memory_bytes(const ModelConfig& c, int64_t batch, int64_t max_len) {
  // In doubles: about 20 saved values and gradients per (sequence, step) for every feature of
  // a cell step, plus the attention tensors of every (decoder step, source position) pair --
  // (B, S, A) per step for additive, a few (B, S) per step for the others.
  const real B = static_cast<real>(batch), S = static_cast<real>(max_len) + 1, T = S;
  const real G = c.cell == "lstm" ? 4 : c.cell == "gru" ? 3 : 1;
  const real H = static_cast<real>(c.hidden), E = static_cast<real>(c.embed);
  const real D = c.bidirectional ? 2 * H : H, V = static_cast<real>(c.tgt_vocab);
  real elements = 20 * B * (S + T) * (G * H + D + E + V) + 8 * B * S * T;
  if (c.model == "additive") elements += 6 * B * S * T * H;
  if (c.model == "location") elements += 4 * B * T * static_cast<real>(c.max_src_len);
  if (c.model == "transformer") {  // per layer: ~30 saved (B, ., D) tensors, the FF's (B, ., F), the weights
    const real N = static_cast<real>(c.layers), h = static_cast<real>(c.heads), F = static_cast<real>(c.ff);
    elements = 20 * B * T * V + N * (2 * 30 * B * (S + T) * E + 2 * 6 * B * (S + T) * F +
                                     2 * 8 * h * B * (S * S + T * T + T * S));
  }
  return elements * static_cast<real>(sizeof(real));
}

void check_step_memory(const ModelConfig& config, int64_t batch, int64_t max_len) {
  real bytes = step_memory_bytes(config, batch, max_len);
  if (bytes > kMaxStepMemory) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "train: a step of %lld sequences of up to %lld tokens with hidden %lld would need about %.0f GiB "
                  "(limit %.0f GiB); use a smaller batch, hidden size or length",
                  static_cast<long long>(batch), static_cast<long long>(max_len), static_cast<long long>(config.hidden),
                  bytes / (1 << 30), kMaxStepMemory / (1 << 30));
    throw Error(buf);
  }
}

namespace {

void validate(const TrainOptions& opt) {
  if (opt.steps < 1) throw Error("train: --steps is " + std::to_string(opt.steps) + ", must be at least 1");
  if (opt.batch < 1) throw Error("train: --batch is " + std::to_string(opt.batch) + ", must be at least 1");
  if (!(opt.lr > 0) || !std::isfinite(opt.lr)) throw Error("train: --lr must be a positive number");
  if (!(opt.clip >= 0) || !std::isfinite(opt.clip)) throw Error("train: --clip must be zero or positive");
  if (opt.schedule != "linear" && opt.schedule != "constant")
    throw Error("train: unknown schedule '" + opt.schedule + "' (choose linear or constant)");
}

// Fraction of non-PAD targets whose argmax logit is right. logits (B*T, V).
real token_accuracy(const Tensor& logits, const std::vector<int64_t>& targets) {
  const int64_t V = logits.shape()[1];
  int64_t right = 0, total = 0;
  for (size_t r = 0; r < targets.size(); ++r) {
    if (targets[r] == Vocab::kPad) continue;
    const real* row = logits.data() + r * V;
    int64_t best = 0;
    for (int64_t v = 1; v < V; ++v)
      if (row[v] > row[best]) best = v;
    right += best == targets[r];
    ++total;
  }
  return total ? static_cast<real>(right) / total : 0;
}

std::string num(real x) {
  if (std::isnan(x)) return "nan";  // not "-nan": the sign of a NaN means nothing
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// Training stops at the first non-finite number, naming the step and the parameter, so that a
// diverging run never goes on to write garbage (and save_checkpoint refuses NaN anyway).
// After backward: the loss, then every gradient.
void check_finite(const Seq2Seq& model, real loss, int64_t step, real lr) {
  const std::string at = "train: step " + std::to_string(step) + ": ";
  const std::string advice = "; lower --lr (now " + num(lr) + ") or check the data";
  if (!std::isfinite(loss)) {
    // Name the parameter furthest out: where a diverging run has gone.
    std::string where;
    real largest = -1;  // NaN once one is found: then nothing replaces it
    for (const auto& [name, p] : model.named_parameters())
      for (real v : p.value().values())
        if (!std::isnan(largest) && !(std::abs(v) <= largest)) {  // a NaN v is taken too
          largest = std::abs(v);
          where = name;
        }
    throw Error(at + "the loss is " + num(loss) + " (not finite); the largest parameter value is " + num(largest) +
                ", in " + where + advice);
  }
  for (const auto& [name, p] : model.named_parameters()) {
    const Tensor& g = p.grad();
    for (int64_t i = 0; i < g.numel(); ++i)
      if (!std::isfinite(g[i]))
        throw Error(at + "the gradient of " + name + " is " + num(g[i]) + " at flat index " + std::to_string(i) + advice);
  }
}

// After the update: every parameter.
void check_finite_values(const Seq2Seq& model, int64_t step, real lr) {
  for (const auto& [name, p] : model.named_parameters()) {
    const Tensor& v = p.value();
    for (int64_t i = 0; i < v.numel(); ++i)
      if (!std::isfinite(v[i]))
        throw Error("train: step " + std::to_string(step) + ": the update left " + name + " holding " + num(v[i]) +
                    " at flat index " + std::to_string(i) + "; lower --lr (now " + num(lr) + ")");
  }
}

// Training mode (dropout on, for the models that have it) for the length of a run, off again at
// its end or at an error.
struct TrainingMode {
  TrainingMode(Seq2Seq& m, uint64_t seed) : model(m) { model.set_training(true, seed); }
  ~TrainingMode() { model.set_training(false); }
  Seq2Seq& model;
};

}  // namespace

TrainResult train(Seq2Seq& model, const Task& task, const TrainOptions& opt,
                  const std::function<void(const Progress&)>& on_step) {
  validate(opt);
  check_step_memory(model.config(), opt.batch, task.max_len());
  auto params = model.parameters();
  Adam adam(params, opt.lr);
  Generator data(opt.seed);
  // Dropout's masks come from a stream of their own, so the data stream (and every model without
  // dropout) is untouched.
  TrainingMode training(model, Generator(~opt.seed).next_u64());
  TrainResult result;
  auto start = std::chrono::steady_clock::now();
  for (int64_t t = 0; t < opt.steps; ++t) {
    Batch batch = sample_batch(task, data, opt.batch);
    Var logits = reshape(model.forward(batch), {-1, model.config().tgt_vocab});  // (B*T, V)
    Var loss = cross_entropy(logits, batch.tgt_out, Vocab::kPad);
    adam.zero_grad();
    loss.backward();
    check_finite(model, loss.item(), t + 1, scheduled_lr(opt, t));
    // clip 0: no clipping, but the norm is still measured (clip_grad_norm refuses an infinite bound).
    real norm = clip_grad_norm(params, opt.clip > 0 ? opt.clip : std::numeric_limits<real>::max());
    adam.set_lr(scheduled_lr(opt, t));
    adam.step();
    check_finite_values(model, t + 1, adam.lr());
    result.losses.push_back(loss.item());
    for (int64_t y : batch.tgt_out) result.target_tokens += y != Vocab::kPad;
    if (on_step) {
      Progress p;
      p.step = t + 1;
      p.steps = opt.steps;
      p.loss = loss.item();
      p.accuracy = token_accuracy(logits.value(), batch.tgt_out);
      p.lr = adam.lr();
      p.grad_norm = norm;
      p.seconds = std::chrono::duration<real>(std::chrono::steady_clock::now() - start).count();
      on_step(p);
    }
  }
  result.seconds = std::chrono::duration<real>(std::chrono::steady_clock::now() - start).count();
  return result;
}

void score_batch(const Seq2Seq& model, const Batch& batch, Accuracy& acc) {
  const int64_t T = batch.tgt_len;
  Decoded d = model.greedy(batch, T);
  for (int64_t b = 0; b < batch.batch; ++b) {
    const int64_t L = batch.tgt_lengths[b] - 1;  // symbols; position L holds EOS
    bool exact = true;
    for (int64_t t = 0; t <= L; ++t) {
      bool right = d.tokens[b][t] == batch.tgt_out[b * T + t];
      exact = exact && right;
      if (t < L) {
        acc.tokens_right += right;
        ++acc.tokens;
      }
    }
    acc.exact_right += exact;
    ++acc.n;
  }
}

std::vector<Accuracy> evaluate_by_length(const Seq2Seq& model, const Task& task, const std::vector<int64_t>& lengths,
                                         int64_t samples, uint64_t seed) {
  if (samples < 1) throw Error("evaluate: --samples must be at least 1");
  std::vector<Accuracy> out;
  for (int64_t L : lengths) {
    Generator gen(seed + static_cast<uint64_t>(L));  // the same sequences for every model
    Accuracy acc;
    acc.length = L;
    for (int64_t done = 0; done < samples;) {
      int64_t n = std::min<int64_t>(100, samples - done);
      std::vector<Example> examples;
      for (int64_t i = 0; i < n; ++i) examples.push_back(task.sample(gen, L));
      score_batch(model, make_batch(examples), acc);
      done += n;
    }
    out.push_back(acc);
  }
  return out;
}

Accuracy evaluate_held_out(const Seq2Seq& model, const Task& task, int64_t samples, uint64_t seed) {
  if (samples < 1) throw Error("evaluate: --samples must be at least 1");
  Generator gen(seed);
  Accuracy acc;
  for (int64_t done = 0; done < samples;) {
    int64_t n = std::min<int64_t>(100, samples - done);
    std::vector<Example> examples;
    for (int64_t i = 0; i < n; ++i) examples.push_back(task.sample_held_out(gen));
    score_batch(model, make_batch(examples), acc);
    done += n;
  }
  return acc;
}

}  // namespace heed
