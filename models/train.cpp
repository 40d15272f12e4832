#include "models/train.h"

#include <chrono>
#include <cmath>

#include "autograd/functions.h"
#include "nn/loss.h"
#include "nn/optim.h"

namespace heed {

real scheduled_lr(const TrainOptions& opt, int64_t t) {
  if (opt.schedule == "constant") return opt.lr;
  return opt.lr * std::max(real(0), 1 - static_cast<real>(t) / static_cast<real>(opt.steps));
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

void check_finite(const Seq2Seq& model, real loss, int64_t step) {
  if (!std::isfinite(loss))
    throw Error("train: step " + std::to_string(step) + ": the loss is " + std::to_string(loss) +
                " (not finite); lower --lr or check the data");
  for (const auto& [name, p] : model.named_parameters())
    for (real g : p.grad().values())
      if (!std::isfinite(g))
        throw Error("train: step " + std::to_string(step) + ": the gradient of " + name +
                    " is not finite; lower --lr");
}

}  // namespace

TrainResult train(Seq2Seq& model, const Task& task, const TrainOptions& opt,
                  const std::function<void(const Progress&)>& on_step) {
  validate(opt);
  auto params = model.parameters();
  Adam adam(params, opt.lr);
  Generator data(opt.seed);
  TrainResult result;
  auto start = std::chrono::steady_clock::now();
  for (int64_t t = 0; t < opt.steps; ++t) {
    Batch batch = sample_batch(task, data, opt.batch);
    Var logits = reshape(model.forward(batch), {-1, model.config().tgt_vocab});  // (B*T, V)
    Var loss = cross_entropy(logits, batch.tgt_out, Vocab::kPad);
    adam.zero_grad();
    loss.backward();
    check_finite(model, loss.item(), t + 1);
    real norm = clip_grad_norm(params, opt.clip > 0 ? opt.clip : INFINITY);
    adam.set_lr(scheduled_lr(opt, t));
    adam.step();
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
