#include "models/self_attention_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>

#include "autograd/functions.h"
#include "models/train.h"
#include "nn/encoder.h"
#include "nn/loss.h"
#include "nn/optim.h"

namespace heed {

HistogramTask::HistogramTask(int64_t V, int64_t min_len, int64_t max_len) : copy_(V, min_len, max_len) {}

std::vector<int64_t> HistogramTask::labels(const std::vector<int64_t>& src) const {
  std::map<int64_t, int64_t> count;
  for (int64_t id : src) ++count[id];
  std::vector<int64_t> out;
  for (int64_t id : src) out.push_back(count[id]);
  return out;
}

TagBatch HistogramTask::make_batch(const std::vector<std::vector<int64_t>>& sources) const {
  if (sources.empty()) throw Error("histogram: a batch needs at least one sequence");
  TagBatch b;
  b.batch = static_cast<int64_t>(sources.size());
  for (const auto& s : sources) {
    if (s.empty()) throw Error("histogram: empty sequence in a batch");
    b.len = std::max(b.len, static_cast<int64_t>(s.size()));
  }
  b.ids.assign(b.batch * b.len, Vocab::kPad);
  b.labels.assign(b.batch * b.len, TagBatch::kIgnore);
  for (int64_t i = 0; i < b.batch; ++i) {
    const auto& s = sources[i];
    std::vector<int64_t> y = labels(s);
    std::copy(s.begin(), s.end(), b.ids.begin() + i * b.len);
    std::copy(y.begin(), y.end(), b.labels.begin() + i * b.len);
    b.lengths.push_back(static_cast<int64_t>(s.size()));
  }
  return b;
}

TagBatch HistogramTask::sample_batch(Generator& gen, int64_t batch) const {
  if (batch < 1) throw Error("histogram: batch " + std::to_string(batch) + " must be at least 1");
  std::vector<std::vector<int64_t>> sources;
  for (int64_t i = 0; i < batch; ++i) sources.push_back(sample(gen));
  return make_batch(sources);
}

void TaggerConfig::validate() const {
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw Error("SelfAttentionTagger: " + what);
  };
  need(vocab > Vocab::kNumSpecials, "vocab " + std::to_string(vocab) + " must exceed the 3 specials");
  need(classes >= 2, "classes " + std::to_string(classes) + " must be at least 2");
  need(embed >= 1 && heads >= 1 && embed % heads == 0,
       "embed " + std::to_string(embed) + " must be a positive multiple of heads " + std::to_string(heads));
  need(ffn >= 1, "ffn " + std::to_string(ffn) + " must be at least 1");
  need(max_len >= 1, "max_len " + std::to_string(max_len) + " must be at least 1");
  need(positions == "none" || positions == "sinusoidal" || positions == "learned",
       "unknown positions '" + positions + "' (choose none, sinusoidal or learned)");
}

namespace {

const TaggerConfig& validated(const TaggerConfig& c) {
  c.validate();
  return c;
}

}  // namespace

SelfAttentionTagger::SelfAttentionTagger(const TaggerConfig& config, Generator& gen)
    : config_(validated(config)),
      embed_(config.vocab, config.embed, gen, Vocab::kPad),
      learned_(config.positions == "learned" ? std::make_unique<PositionEmbedding>(config.max_len, config.embed, gen)
                                             : nullptr),
      attention_(config.embed, config.heads, gen),
      ffn_in_(config.embed, config.ffn, true, gen),
      ffn_out_(config.ffn, config.embed, true, gen),
      out_(config.embed, config.classes, true, gen) {
  register_module("embed", embed_);
  if (learned_) register_module("positions", *learned_);
  register_module("attention", attention_);
  register_module("ffn_in", ffn_in_);
  register_module("ffn_out", ffn_out_);
  register_module("out", out_);
}

TaggerOutput SelfAttentionTagger::forward(const TagBatch& batch) const {
  const int64_t B = batch.batch, L = batch.len, E = config_.embed, off = config_.bos ? 1 : 0, S = L + off;
  if (B < 1 || L < 1 || static_cast<int64_t>(batch.ids.size()) != B * L ||
      static_cast<int64_t>(batch.lengths.size()) != B)
    throw Error("SelfAttentionTagger: batch of " + std::to_string(B) + " x " + std::to_string(L) + " holds " +
                std::to_string(batch.ids.size()) + " ids and " + std::to_string(batch.lengths.size()) + " lengths");
  if (learned_ && S > learned_->max_len())
    throw Error("SelfAttentionTagger: input of " + std::to_string(S) + " positions exceeds max_len " +
                std::to_string(learned_->max_len()));
  std::vector<int64_t> ids(B * S, Vocab::kPad), lengths;  // (B, S) with the BOS in front
  for (int64_t b = 0; b < B; ++b) {
    if (off) ids[b * S] = Vocab::kBos;
    std::copy(batch.ids.begin() + b * L, batch.ids.begin() + (b + 1) * L, ids.begin() + b * S + off);
    lengths.push_back(batch.lengths[b] + off);
  }
  Tensor padding = length_mask(lengths, S, "SelfAttentionTagger");                 // (B, S)
  Var x = reshape(embed_.forward(ids), {B, S, E});                                 // (B, S, E)
  if (config_.positions == "sinusoidal") x = x + Var(sinusoidal_positions(S, E));  // + (S, E), broadcast
  if (learned_) x = x + learned_->forward(S);
  AttentionOutput a = attention_.forward(x, padding);
  Var h = x + a.output;                                       // residual
  h = h + ffn_out_.forward(relu(ffn_in_.forward(h)));         // residual feed-forward
  Var logits = out_.forward(h);                               // (B, S, C)
  return {off ? slice(logits, 1, 1, S) : logits, a.weights};  // drop the BOS row
}

Var SelfAttentionTagger::loss(const TagBatch& batch) const {
  Var logits = reshape(forward(batch).logits, {-1, config_.classes});  // (B L, C)
  return cross_entropy(logits, batch.labels, TagBatch::kIgnore);
}

namespace {

// Argmax of each row whose label is not ignored; kIgnore elsewhere. logits (N, C).
std::vector<int64_t> argmax_rows(const Tensor& logits, const std::vector<int64_t>& labels) {
  const int64_t C = logits.shape()[1];
  std::vector<int64_t> out(labels.size(), TagBatch::kIgnore);
  for (size_t r = 0; r < labels.size(); ++r) {
    if (labels[r] == TagBatch::kIgnore) continue;
    const real* row = logits.data() + r * C;
    out[r] = std::max_element(row, row + C) - row;
  }
  return out;
}

}  // namespace

std::vector<int64_t> SelfAttentionTagger::predict(const TagBatch& batch) const {
  NoGradGuard no_grad;
  Tensor logits = forward(batch).logits.value();
  logits.reshape_inplace({batch.batch * batch.len, config_.classes});  // (B L, C)
  std::vector<int64_t> real_positions(batch.batch * batch.len, TagBatch::kIgnore);
  for (int64_t b = 0; b < batch.batch; ++b)
    for (int64_t t = 0; t < batch.lengths[b]; ++t) real_positions[b * batch.len + t] = 0;
  return argmax_rows(logits, real_positions);
}

TaggerTrainResult train_tagger(SelfAttentionTagger& model, const HistogramTask& task, const TaggerTrainOptions& opt,
                               const std::function<void(const TaggerProgress&)>& on_step) {
  if (opt.steps < 1 || opt.batch < 1 || !(opt.lr > 0) || !(opt.clip >= 0))
    throw Error("train_tagger: steps " + std::to_string(opt.steps) + " and batch " + std::to_string(opt.batch) +
                " must be at least 1, lr positive and clip >= 0");
  if (task.num_classes() > model.config().classes || task.vocab().size() > model.config().vocab)
    throw Error("train_tagger: the task needs " + std::to_string(task.num_classes()) + " classes and " +
                std::to_string(task.vocab().size()) + " token ids, the model has " +
                std::to_string(model.config().classes) + " and " + std::to_string(model.config().vocab));
  std::vector<Var> params = model.parameters();
  Adam adam(params, opt.lr);
  Generator data(opt.seed);
  TrainOptions update;  // what update_step reads: the clip and the linear decay of lr over the run
  update.steps = opt.steps;
  update.lr = opt.lr;
  update.schedule = "linear";
  update.clip = opt.clip;
  TaggerTrainResult result;
  auto start = std::chrono::steady_clock::now();
  for (int64_t t = 0; t < opt.steps; ++t) {
    TagBatch batch = task.sample_batch(data, opt.batch);
    Var logits = reshape(model.forward(batch).logits, {-1, model.config().classes});  // (B L, C)
    Var loss = cross_entropy(logits, batch.labels, TagBatch::kIgnore);
    update_step(model, adam, params, loss, update, t);  // every model's step ends so (models/train.h)
    result.losses.push_back(loss.item());
    if (on_step) {
      std::vector<int64_t> guess = argmax_rows(logits.value(), batch.labels);
      int64_t right = 0, total = 0;
      for (size_t r = 0; r < guess.size(); ++r)
        if (batch.labels[r] != TagBatch::kIgnore) right += guess[r] == batch.labels[r], ++total;
      on_step({t + 1, opt.steps, loss.item(), static_cast<real>(right) / static_cast<real>(total)});
    }
  }
  result.seconds = std::chrono::duration<real>(std::chrono::steady_clock::now() - start).count();
  return result;
}

void score_tag_batch(const SelfAttentionTagger& model, const TagBatch& batch, TagAccuracy& acc) {
  std::vector<int64_t> guess = model.predict(batch);
  for (int64_t b = 0; b < batch.batch; ++b) {
    bool all = true;
    for (int64_t t = 0; t < batch.lengths[b]; ++t) {
      bool ok = guess[b * batch.len + t] == batch.labels[b * batch.len + t];
      acc.right += ok;
      all = all && ok;
    }
    acc.positions += batch.lengths[b];
    acc.exact_right += all;
    ++acc.sequences;
  }
}

TagAccuracy evaluate_tagger(const SelfAttentionTagger& model, const HistogramTask& task, int64_t samples,
                            uint64_t seed) {
  Generator gen(seed);
  TagAccuracy acc;
  for (int64_t done = 0; done < samples; done += 64)
    score_tag_batch(model, task.sample_batch(gen, std::min<int64_t>(64, samples - done)), acc);
  return acc;
}

}  // namespace heed
