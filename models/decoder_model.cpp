#include "models/decoder_model.h"

#include <algorithm>
#include <string>

#include "autograd/functions.h"
#include "models/tasks/vocab.h"
#include "nn/encoder.h"
#include "tensor/math.h"

namespace heed {

namespace {

// config itself; heed::Error for another kind's.
const ModelConfig& decoder_only(const ModelConfig& c) {
  if (!c.is_decoder())
    throw Error("decoder: model '" + c.model + "' is not the decoder-only model; make_model builds each kind");
  return c;
}

}  // namespace

// The weights are drawn in this order: embed, pos, out, then the layers in turn (the
// transformer's order: embeddings and output layer first).
DecoderModel::DecoderModel(const ModelConfig& config, Generator& gen)
    : Model(decoder_only(config)),
      embed_(config.tgt_vocab, config.embed, gen, Vocab::kPad),
      pos_(config.positions == "learned" ? std::make_unique<PositionEmbedding>(config.max_src_len, config.embed, gen)
                                         : nullptr),
      out_(config.embed, config.tgt_vocab, true, gen),
      dropout_gen_(0) {
  for (int64_t i = 0; i < config.layers; ++i) {
    if (config.attention_only)
      attention_.add(config.embed, config.heads, gen);
    else
      blocks_.add(LayerSizes{config.embed, config.heads, config.ff, config.norm_first}, gen);
  }
  if (!config.attention_only) norm_ = std::make_unique<LayerNorm>(config.embed);
  register_module("embed", embed_);
  if (pos_) register_module("pos", *pos_);
  if (config.attention_only)
    register_module("layers", attention_);
  else
    register_module("layers", blocks_);
  if (norm_) register_module("norm", *norm_);
  if (config.share_embeddings) {
    // Tied: out_ drew its weight above, so every other weight is the untied model's; that draw is
    // dropped for the table, and the gradients of both uses add up in it.
    out_.weight = embed_.weight;
    out_bias_ = std::make_unique<BiasOnly>(out_.bias);
    register_module("out", *out_bias_);
  } else {
    register_module("out", out_);
  }
}

Var DecoderModel::embed(const std::vector<int64_t>& ids, int64_t B, int64_t L, int64_t offset, Hooks* hooks) const {
  return dropout().apply(embed_with_positions("decoder", embed_, pos_.get(), ids, B, L, offset, 1, hooks));  // no sqrt(D): see the header
}

Var DecoderModel::layer(size_t i, const Var& x0, const Tensor& mask, Var* weights, Hooks* hooks) const {
  const Dropout drop = dropout();
  const std::string prefix = hooks ? "blocks." + std::to_string(i) + "." : std::string();
  if (!config_.attention_only) return blocks_[i].forward(x0, mask, drop, weights, hooks, prefix);
  // The residual stream plus what this layer's heads write into it (Elhage et al.'s x + sum_h h(x)).
  Var x = hook(hooks, prefix, "hook_resid_pre", x0);
  AttentionOutput a = attention_[i].forward(x, x, mask, drop, hooks, prefix + "attn.");
  if (weights) *weights = a.weights;
  return hook(hooks, prefix, "hook_resid_post", x + hook(hooks, prefix, "hook_attn_out", drop.apply(a.output)));
}

Var DecoderModel::hidden(const std::vector<int64_t>& ids, int64_t B, int64_t T, const std::vector<int64_t>& lengths,
                         std::vector<Var>* weights, Hooks* hooks) const {
  if (static_cast<int64_t>(ids.size()) != B * T || static_cast<int64_t>(lengths.size()) != B)
    throw Error("decoder: " + std::to_string(ids.size()) + " ids and " + std::to_string(lengths.size()) +
                " lengths do not make a batch of " + std::to_string(B) + " rows of " + std::to_string(T));
  Var h = embed(ids, B, T, 0, hooks);                                      // (B, T, D)
  Tensor mask = key_mask(length_mask(lengths, T, "decoder"), T, true);    // (B, T, T): causal, real keys
  for (size_t i = 0; i < static_cast<size_t>(config_.layers); ++i) {
    Var w;
    h = layer(i, h, mask, weights ? &w : nullptr, hooks);
    if (weights) weights->push_back(w);
  }
  return norm_ ? hook(hooks, "", "ln_final.hook_normalized", norm_->forward(h)) : h;
}

AttentionMaps DecoderModel::attention_maps(const std::vector<int64_t>&, const std::vector<int64_t>& output) const {
  if (output.empty()) throw Error("decoder: attention_maps needs an output");
  std::vector<int64_t> ids = {Vocab::kBos};  // the positions read: <bos> y_1 .. y_{T-1}
  ids.insert(ids.end(), output.begin(), output.end() - 1);
  const int64_t T = static_cast<int64_t>(ids.size());
  std::vector<Var> weights;
  NoGradGuard no_grad;
  hidden(ids, 1, T, {T}, &weights);
  AttentionMaps maps;
  for (const Var& w : weights) maps.self.push_back(w.value());
  return maps;
}

// The targets alone (no source is read): per layer the causal self-attention's projections,
// scores and weighted sums, and the feed-forward (none when attention-only); then the output layer.
real DecoderModel::forward_flops(int64_t batch, int64_t src_len, int64_t vocab) const {
  const ModelConfig& c = config_;
  const real B = static_cast<real>(batch), T = static_cast<real>(src_len + 1), V = static_cast<real>(vocab);
  const real D = c.embed, F = c.attention_only ? 0 : c.ff, N = c.layers;
  return N * (2 * B * T * 4 * D * D + 2 * 2 * B * T * T * D + 2 * B * T * 2 * D * F) + 2 * B * T * D * V;
}

Var DecoderModel::forward(const Batch& batch) const {
  return out_.forward(hidden(batch.tgt_in, batch.batch, batch.tgt_len, batch.tgt_lengths));  // (B, T, V)
}

Var DecoderModel::run_with_hooks(const Batch& batch, Hooks& hooks) const {
  return hooks.at("logits", out_.forward(hidden(batch.tgt_in, batch.batch, batch.tgt_len, batch.tgt_lengths, nullptr, &hooks)));
}

std::unique_ptr<StepState> DecoderModel::start_decoding(const Batch&) const {
  return std::make_unique<DecoderModelState>();
}

const TransformerEncoderLayer& DecoderModel::block(size_t i) const {
  if (config_.attention_only) throw Error("decoder: an attention-only model has no full layers (block)");
  return blocks_[i];
}

Var DecoderModel::layer_step(size_t i, const Var& x, KeysValues& kv, int64_t& macs) const {
  const Dropout drop = dropout();
  const TransformerAttention& sa = self_attention(i);
  const int64_t D = config_.embed;
  // The new position's query, key and value: one row per sequence through in_proj (B x 3D x D).
  // Its key and value join the cache; the query attends over every position kept, itself last.
  auto attend = [&](const Var& in) {  // in (B, 1, D): what the layer's attention reads at x
    macs += in.shape()[0] * in.shape()[1] * 3 * D * D;
    return drop.apply(sa.step(in, kv, drop).output);
  };
  if (config_.attention_only) return x + attend(x);  // layer()'s x + SA(x)
  // The full layer's own formula around this attention: pre-norm attends from (and caches) norm1
  // of the inputs, post-norm the inputs themselves.
  return blocks_[i].forward_with(x, attend, drop);
}

StepOutput DecoderModel::decode_step(const std::vector<int64_t>& prev_tokens, StepState& st) const {
  auto* own = dynamic_cast<DecoderModelState*>(&st);
  if (!own) throw Error("decoder: decode_step was given another model's decoder state");
  const int64_t B = static_cast<int64_t>(prev_tokens.size()), D = config_.embed;
  if (!own->cache.empty() && own->cache[0].self.keys.shape()[0] != B * config_.heads)
    throw Error("decoder: decode_step got " + std::to_string(B) + " tokens for a state of " +
                std::to_string(own->cache[0].self.keys.shape()[0] / config_.heads) + " rows");
  Var h = embed(prev_tokens, B, 1, own->position);  // (B, 1, D)
  own->cache.resize(static_cast<size_t>(config_.layers));
  own->projection_multiply_adds = 0;
  for (size_t i = 0; i < own->cache.size(); ++i)
    h = layer_step(i, h, own->cache[i].self, own->projection_multiply_adds);
  ++own->position;
  if (norm_) h = norm_->forward(h);
  return {reshape(h, {B, D}), Var()};
}

std::unique_ptr<StepState> DecoderModelState::select_rows(const std::vector<int64_t>& rows) const {
  auto out = std::make_unique<DecoderModelState>();
  out->cache = heed::select_rows(cache, rows);  // (K h, t, d_k) per layer
  out->position = position;
  out->projection_multiply_adds = projection_multiply_adds;
  return out;
}

void DecoderModel::set_training(bool on, uint64_t seed) {
  training_ = on;
  dropout_gen_ = Generator(seed);
}

std::string DecoderModel::dropout_state() const { return config_.dropout > 0 ? dropout_gen_.state() : ""; }

void DecoderModel::set_dropout_state(const std::string& state) {
  const bool has_dropout = config_.dropout > 0;  // as dropout_state()
  if (state.empty() != !has_dropout)
    throw Error("decoder: a dropout stream state is " + std::string(state.empty() ? "missing" : "given") +
                " for a model " + (has_dropout ? "with" : "without") + " dropout");
  if (has_dropout) dropout_gen_ = Generator::from_state(state);
}

HalvesLoss repeat_halves_loss(const Model& model, const RepeatTask& task, int64_t samples, uint64_t seed) {
  if (samples < 1) throw Error("repeat: samples " + std::to_string(samples) + " must be at least 1");
  NoGradGuard no_grad;
  Generator gen(seed);
  real first = 0, repeated = 0, in_context = 0;
  int64_t first_n = 0, repeated_n = 0, in_context_n = 0;
  for (int64_t done = 0; done < samples;) {
    const int64_t B = std::min<int64_t>(100, samples - done);
    std::vector<Example> examples;
    for (int64_t b = 0; b < B; ++b) examples.push_back(task.sample(gen));
    Batch batch = make_batch(examples);
    Tensor logp = log_softmax(model.forward(batch).value(), 2);  // (B, T, V)
    const int64_t T = batch.tgt_len, V = logp.shape()[2];
    for (int64_t b = 0; b < B; ++b) {
      const int64_t n = static_cast<int64_t>(examples[b].src.size());
      for (int64_t t = 0; t < 2 * n; ++t) {
        const real nll = -logp[(b * T + t) * V + batch.tgt_out[b * T + t]];  // the target at position t
        (t < n ? first : repeated) += nll;
        ++(t < n ? first_n : repeated_n);
        if (t > n) {  // the second copy after its first symbol (t == n, s_1: nothing points to it)
          in_context += nll;
          ++in_context_n;
        }
      }
    }
    done += B;
  }
  // A task whose segments are all one symbol long has no second symbol to score: in_context is 0.
  return {first / static_cast<real>(first_n), repeated / static_cast<real>(repeated_n),
          in_context_n > 0 ? in_context / static_cast<real>(in_context_n) : real(0), samples};
}

namespace {

// One token drawn from logits (V) as SamplingOptions says, with one draw u = gen.uniform():
//   keep the top_k largest logits (all when 0), p_i = exp((l_i - l_max) / T) / sum_j exp(...)
//   over the kept ones, and return the first kept token (most probable first) whose cumulative
//   probability exceeds u. T = 0 returns the most probable token and draws nothing.
int64_t draw_token(const real* logits, int64_t V, const SamplingOptions& o, Generator& gen) {
  std::vector<int64_t> order(static_cast<size_t>(V));
  for (int64_t i = 0; i < V; ++i) order[static_cast<size_t>(i)] = i;
  // Most probable first; equal logits keep the lower id first.
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
  if (o.temperature == 0) return order[0];
  const int64_t k = o.top_k > 0 ? std::min(o.top_k, V) : V;
  std::vector<real> p(static_cast<size_t>(k));
  real total = 0;
  for (int64_t i = 0; i < k; ++i) {
    p[static_cast<size_t>(i)] = math::exp((logits[order[static_cast<size_t>(i)]] - logits[order[0]]) / o.temperature);
    total += p[static_cast<size_t>(i)];
  }
  const real u = gen.uniform() * total;  // in [0, total)
  real cumulative = 0;
  for (int64_t i = 0; i < k; ++i) {
    cumulative += p[static_cast<size_t>(i)];
    if (u < cumulative) return order[static_cast<size_t>(i)];
  }
  return order[static_cast<size_t>(k - 1)];  // u rounded up to total: the last kept token
}

}  // namespace

std::vector<int64_t> sample_continuation(const Model& model, const std::vector<int64_t>& prompt, int64_t max_tokens,
                                         const SamplingOptions& options, Generator& gen) {
  if (!model.config().is_decoder())
    throw Error("sample: model '" + model.config().model + "' is not a decoder-only model (it reads a source)");
  if (!(options.temperature >= 0))
    throw Error("sample: temperature " + std::to_string(options.temperature) + " must be >= 0");
  if (options.top_k < 0) throw Error("sample: top_k " + std::to_string(options.top_k) + " must be >= 0");
  NoGradGuard no_grad;
  std::unique_ptr<StepState> st = model.start_decoding(Batch{});
  Tensor logits;  // (1, V) after the last token fed
  auto feed = [&](int64_t id) { logits = model.logits(model.decode_step({id}, *st).out).value(); };
  feed(Vocab::kBos);
  for (int64_t id : prompt) feed(id);
  std::vector<int64_t> out;
  while (static_cast<int64_t>(out.size()) < max_tokens) {
    const int64_t next = draw_token(logits.data(), logits.shape()[1], options, gen);
    out.push_back(next);
    if (next == Vocab::kEos || static_cast<int64_t>(out.size()) == max_tokens) break;  // the last is not fed
    feed(next);
  }
  return out;
}

}  // namespace heed
