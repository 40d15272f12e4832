#include "models/train.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "autograd/functions.h"
#include "nn/loss.h"

namespace heed {

real scheduled_lr(const TrainOptions& opt, int64_t t) {
  if (opt.schedule == "constant") return opt.lr;
  if (opt.schedule == "warmup") {
    const real s = static_cast<real>(t + 1), w = static_cast<real>(opt.warmup);
    return opt.lr * std::min(s / w, std::sqrt(w / s));
  }
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
  if (c.kind() == ModelKind::kAdditive) elements += 6 * B * S * T * H;
  if (c.kind() == ModelKind::kLocation) elements += 4 * B * T * static_cast<real>(c.max_src_len);
  if (c.kind() == ModelKind::kTransformer) {  // per layer: ~30 saved (B, ., D) tensors, the FF's (B, ., F), the weights
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

std::string num(real x) {
  if (std::isnan(x)) return "nan";  // not "-nan": the sign of a NaN means nothing
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

void validate(const TrainOptions& opt) {
  if (opt.steps < 0) throw Error("train: --steps is " + std::to_string(opt.steps) + ", must be at least 0");
  if (opt.batch < 1) throw Error("train: --batch is " + std::to_string(opt.batch) + ", must be at least 1");
  if (!(opt.lr > 0) || !std::isfinite(opt.lr)) throw Error("train: --lr must be a positive number");
  if (!(opt.clip >= 0) || !std::isfinite(opt.clip)) throw Error("train: --clip must be zero or positive");
  if (opt.schedule != "linear" && opt.schedule != "constant" && opt.schedule != "warmup")
    throw Error("train: unknown schedule '" + opt.schedule + "' (choose linear, constant or warmup)");
  if (opt.schedule == "warmup" && opt.warmup < 1)
    throw Error("train: --warmup is " + std::to_string(opt.warmup) + ", must be at least 1");
  if (!(opt.label_smoothing >= 0 && opt.label_smoothing < 1))
    throw Error("train: --label-smoothing is " + num(opt.label_smoothing) + ", must be in [0, 1)");
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

// Training stops at the first non-finite number, naming the step and the parameter, so that a
// diverging run never goes on to write garbage (and save_checkpoint refuses NaN anyway).
// After backward: the loss, then every gradient.
void check_finite(const Module& model, real loss, int64_t step, real lr) {
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
void check_finite_values(const Module& model, int64_t step, real lr) {
  for (const auto& [name, p] : model.named_parameters()) {
    const Tensor& v = p.value();
    for (int64_t i = 0; i < v.numel(); ++i)
      if (!std::isfinite(v[i]))
        throw Error("train: step " + std::to_string(step) + ": the update left " + name + " holding " + num(v[i]) +
                    " at flat index " + std::to_string(i) + "; lower --lr (now " + num(lr) + ")");
  }
}

// Training mode (dropout on, for the models that have it) for one step, off again after it or
// at an error, so that what runs between steps (a film's snapshot, the
// held-out score) sees the model as eval and predict will.
struct TrainingMode {
  explicit TrainingMode(Model& m) : model(m) { model.set_training(true); }
  ~TrainingMode() { model.set_training(false); }
  Model& model;
};

}  // namespace

Trainer::Trainer(Model& model, const Task& task, const TrainOptions& opt)
    : model_(model), task_(task), opt_(opt), params_(model.parameters()), adam_(params_, opt.lr), data_(opt.seed) {
  validate(opt);
  check_step_memory(model.config(), opt.batch, task.max_len());
  // Dropout's masks come from a stream of their own, so the data stream (and every model without
  // dropout) is untouched.
  model.set_training(false, Generator(~opt.seed).next_u64());
  start_ = std::chrono::steady_clock::now();
}

real update_step(const Module& module, Adam& adam, const std::vector<Var>& params, const Var& loss,
                 const TrainOptions& opt, int64_t t) {
  adam.zero_grad();
  loss.backward();
  check_finite(module, loss.item(), t + 1, scheduled_lr(opt, t));
  // clip 0: no clipping, but the norm is still measured (clip_grad_norm refuses an infinite bound).
  const real norm = clip_grad_norm(params, opt.clip > 0 ? opt.clip : std::numeric_limits<real>::max());
  adam.set_lr(scheduled_lr(opt, t));
  adam.step();
  check_finite_values(module, t + 1, adam.lr());
  return norm;
}

Progress Trainer::step() {
  const int64_t t = step_;
  TrainingMode training(model_);  // dropout on (transformer) until this step returns
  Batch batch = sample_batch(task_, data_, opt_.batch);
  Var logits = reshape(model_.forward(batch), {-1, model_.config().tgt_vocab});  // (B*T, V)
  // Padded targets take no part; --label-smoothing (chapter 13) smooths the others.
  Var loss = opt_.label_smoothing > 0 ? smoothed_cross_entropy(logits, batch.tgt_out, opt_.label_smoothing, Vocab::kPad)
                                      : cross_entropy(logits, batch.tgt_out, Vocab::kPad);
  const real norm = update_step(model_, adam_, params_, loss, opt_, t);
  step_ = t + 1;
  recent_.push_back(loss.item());
  if (static_cast<int64_t>(recent_.size()) > TrainingState::kRecentLosses) recent_.erase(recent_.begin());
  for (int64_t y : batch.tgt_out) target_tokens_ += y != Vocab::kPad;
  Progress p;
  p.step = t + 1;
  p.steps = opt_.steps;
  p.loss = loss.item();
  p.accuracy = token_accuracy(logits.value(), batch.tgt_out);
  p.lr = adam_.lr();
  p.grad_norm = norm;
  p.seconds = std::chrono::duration<real>(std::chrono::steady_clock::now() - start_).count();
  return p;
}

TrainingState Trainer::state() const {
  TrainingState s;
  s.step = step_;
  s.data_generator = data_.state();
  s.adam_steps = adam_.steps();
  s.exp_avg = adam_.exp_avg();
  s.exp_avg_sq = adam_.exp_avg_sq();
  s.recent_losses = recent_;
  s.dropout_generator = model_.dropout_state();
  return s;
}

void Trainer::restore(const TrainingState& s) {
  if (s.step < 0 || s.step > opt_.steps)
    throw Error("train: the saved run reached step " + std::to_string(s.step) + ", outside [0, " +
                std::to_string(opt_.steps) + "] (--steps)");
  if (static_cast<int64_t>(s.recent_losses.size()) > TrainingState::kRecentLosses ||
      static_cast<int64_t>(s.recent_losses.size()) > s.step)
    throw Error("train: the saved run holds " + std::to_string(s.recent_losses.size()) + " recent losses after " +
                std::to_string(s.step) + " steps");
  Generator data = Generator::from_state(s.data_generator);
  std::string dropout_before = model_.dropout_state();
  model_.set_dropout_state(s.dropout_generator);  // checked: present exactly when the model has dropout
  try {
    adam_.load_state(s.adam_steps, s.exp_avg, s.exp_avg_sq);  // checks the moments
  } catch (...) {
    model_.set_dropout_state(dropout_before);  // nothing changed
    throw;
  }
  data_ = data;
  step_ = s.step;
  recent_ = s.recent_losses;
}

TrainResult train(Model& model, const Task& task, const TrainOptions& opt,
                  const std::function<void(const Progress&)>& on_step) {
  Trainer trainer(model, task, opt);
  TrainResult result;
  auto start = std::chrono::steady_clock::now();
  while (!trainer.done()) {
    Progress p = trainer.step();
    result.losses.push_back(p.loss);
    if (on_step) on_step(p);
  }
  result.target_tokens = trainer.target_tokens();
  result.seconds = std::chrono::duration<real>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace heed
