#include "models/transformer.h"

#include <cmath>
#include <string>

#include "autograd/functions.h"
#include "models/tasks/vocab.h"
#include "nn/encoder.h"

namespace heed {

TransformerCore::TransformerCore(const TransformerSizes& s, Generator& gen)
    : src_pos(s.learned_positions ? std::make_unique<PositionEmbedding>(s.max_len, s.d_model, gen) : nullptr),
      tgt_pos(s.learned_positions ? std::make_unique<PositionEmbedding>(s.max_len + 1, s.d_model, gen) : nullptr),
      encoder(s.layers, LayerSizes{s.d_model, s.heads, s.ff, s.norm_first}, gen),
      decoder(s.layers, LayerSizes{s.d_model, s.heads, s.ff, s.norm_first}, gen),
      sizes_(s),
      dropout_gen_(0) {}

void TransformerCore::set_training(bool on, uint64_t seed) {
  training_ = on;
  dropout_gen_ = Generator(seed);
}

Var TransformerCore::embed(const Embedding& table, const PositionEmbedding* learned, const std::vector<int64_t>& ids,
                           int64_t B, int64_t L, int64_t offset, Hooks* hooks, const std::string& prefix) const {
  const real scale = std::sqrt(static_cast<real>(sizes_.d_model));
  return dropout().apply(embed_with_positions("transformer", table, learned, ids, B, L, offset, scale, hooks, prefix));
}

Var TransformerCore::encode(const Embedding& src_embed, const Batch& batch, TransformerAttentionMaps* maps,
                            Hooks* hooks) const {
  const int64_t B = batch.batch, S = batch.src_len;
  Var x = embed(src_embed, src_pos.get(), batch.src, B, S, 0, hooks, "encoder.");   // (B, S, D)
  Tensor mask = key_mask(length_mask(batch.lengths, S, "transformer"), S, false);  // (B, S, S)
  std::vector<Var> w;
  Var memory = encoder.forward(x, mask, dropout(), maps ? &w : nullptr, hooks, "encoder.");
  if (maps)
    for (const Var& v : w) maps->encoder.push_back(v.value());
  return memory;
}

Var TransformerCore::decode(const Embedding& tgt_embed, const Batch& batch, const Var& memory,
                            TransformerAttentionMaps* maps, Hooks* hooks) const {
  const int64_t B = batch.batch, S = batch.src_len, T = batch.tgt_len;
  Var y = embed(tgt_embed, tgt_pos.get(), batch.tgt_in, B, T, 0, hooks);  // (B, T, D)
  Tensor self_mask = key_mask(length_mask(batch.tgt_lengths, T, "transformer"), T, true);  // (B, T, T)
  Tensor cross_mask = key_mask(length_mask(batch.lengths, S, "transformer"), T, false);   // (B, T, S)
  std::vector<Var> sw, cw;
  Var h = decoder.forward(y, self_mask, memory, cross_mask, dropout(), maps ? &sw : nullptr, maps ? &cw : nullptr,
                          hooks);
  if (maps) {
    for (const Var& v : sw) maps->self.push_back(v.value());
    for (const Var& v : cw) maps->cross.push_back(v.value());
  }
  return h;
}

TransformerState TransformerCore::start(const Embedding& src_embed, const Batch& batch) const {
  TransformerState st;
  st.cache = decoder.start(encode(src_embed, batch));  // the memory (B, S, D), projected per layer
  st.mask = length_mask(batch.lengths, batch.src_len, "transformer");
  return st;
}

StepOutput TransformerCore::step(const Embedding& tgt_embed, const std::vector<int64_t>& prev_tokens,
                                 TransformerState& st) const {
  const int64_t B = static_cast<int64_t>(prev_tokens.size()), S = st.mask.shape()[1], D = sizes_.d_model;
  Var x = embed(tgt_embed, tgt_pos.get(), prev_tokens, B, 1, st.position);  // (B, 1, D)
  std::vector<Var> cw;
  Var h = decoder.step(x, st.cache, key_mask(st.mask, 1, false), &cw);  // (B, 1, D)
  ++st.position;
  StepOutput o;
  o.out = reshape(h, {B, D});
  o.weights = mean(reshape(cw.back(), {B, sizes_.heads, S}), 1);  // the last layer's, averaged over heads
  return o;
}

std::unique_ptr<StepState> TransformerState::select_rows(const std::vector<int64_t>& rows) const {
  auto out = std::make_unique<TransformerState>();
  out->mask = index_select(mask, rows);  // (K, S)
  out->cache = heed::select_rows(cache, rows);
  out->position = position;
  return out;
}

namespace {

// config itself; heed::Error for a recurrent model's, which is Seq2Seq's.
const ModelConfig& transformer_only(const ModelConfig& c) {
  if (c.is_decoder())
    throw Error("transformer: model 'decoder' is the decoder-only DecoderModel (models/decoder_model.h); make_model builds each kind");
  if (!c.is_transformer())
    throw Error("transformer: model '" + c.model + "' is a recurrent Seq2Seq (models/seq2seq.h); make_model builds either");
  return c;
}

TransformerSizes sizes_of(const ModelConfig& c) {
  return {c.embed, c.layers, c.heads, c.ff, c.norm_first, c.positions == "learned", c.max_src_len, c.dropout};
}

}  // namespace

// The weights are drawn in the order the recurrent models' are (embeddings, out, then the rest),
// the order every transformer checkpoint so far was made in.
TransformerSeq2Seq::TransformerSeq2Seq(const ModelConfig& config, Generator& gen)
    : Model(transformer_only(config)),
      src_embed_(config.src_vocab, config.embed, gen, Vocab::kPad),
      tgt_embed_(config.tgt_vocab, config.embed, gen, Vocab::kPad),
      out_(config.embed, config.tgt_vocab, true, gen),
      core_(sizes_of(config_), gen) {
  // N(0, 1/D) instead of N(0, 1): see the top of this file's header.
  for (Embedding* e : {&src_embed_, &tgt_embed_})
    for (real& w : e->weight.value().values()) w /= std::sqrt(static_cast<real>(config.embed));
  register_module("src_embed", src_embed_);
  register_module("tgt_embed", tgt_embed_);
  if (core_.src_pos) {
    register_module("src_pos", *core_.src_pos);
    register_module("tgt_pos", *core_.tgt_pos);
  }
  register_module("encoder", core_.encoder);
  register_module("decoder", core_.decoder);
  if (config.share_embeddings) {
    // Tied (section 3.4): out_ drew its weight above, so every other weight is the untied model's;
    // that draw is dropped for the table, and the gradient of both uses adds up in it.
    out_.weight = tgt_embed_.weight;
    out_bias_ = std::make_unique<BiasOnly>(out_.bias);
    register_module("out", *out_bias_);
  } else {
    register_module("out", out_);
  }
}

// Per layer: projections, scores and weighted sums, feed-forward; then the output layer.
real TransformerSeq2Seq::forward_flops(int64_t batch, int64_t src_len, int64_t vocab) const {
  const ModelConfig& c = config_;
  const real B = static_cast<real>(batch), S = static_cast<real>(src_len), V = static_cast<real>(vocab);
  const real D = c.embed, F = c.ff, N = c.layers, T = S + 1;
  real enc = 2 * B * S * 4 * D * D + 2 * 2 * B * S * S * D + 2 * B * S * 2 * D * F;
  real dec = 2 * B * T * 4 * D * D + 2 * 2 * B * T * T * D                         // self-attention
             + 2 * B * T * 2 * D * D + 2 * B * S * 2 * D * D + 2 * 2 * B * T * S * D  // cross-attention
             + 2 * B * T * 2 * D * F;
  return N * (enc + dec) + 2 * B * T * D * V;
}

Var TransformerSeq2Seq::forward(const Batch& batch) const {
  return out_.forward(core_.decode(tgt_embed_, batch, core_.encode(src_embed_, batch)));
}

Var TransformerSeq2Seq::run_with_hooks(const Batch& batch, Hooks& hooks) const {
  Var memory = core_.encode(src_embed_, batch, nullptr, &hooks);
  return hooks.at("logits", out_.forward(core_.decode(tgt_embed_, batch, memory, nullptr, &hooks)));
}

TransformerAttentionMaps TransformerSeq2Seq::attention_maps(const std::vector<int64_t>& src,
                                                            const std::vector<int64_t>& output) const {
  if (src.empty() || output.empty()) throw Error("transformer: attention_maps needs a source and an output");
  const int64_t S = static_cast<int64_t>(src.size()), T = static_cast<int64_t>(output.size());
  Batch b;  // one pair, no padding: the rows are exactly the T written tokens
  b.batch = 1;
  b.src_len = S;
  b.tgt_len = T;
  b.src = src;
  b.lengths = {S};
  b.tgt_in = {Vocab::kBos};
  b.tgt_in.insert(b.tgt_in.end(), output.begin(), output.end() - 1);
  b.tgt_out = output;
  b.tgt_lengths = {T};
  TransformerAttentionMaps maps;
  NoGradGuard no_grad;
  core_.decode(tgt_embed_, b, core_.encode(src_embed_, b, &maps), &maps);
  return maps;
}

std::unique_ptr<StepState> TransformerSeq2Seq::start_decoding(const Batch& batch) const {
  return std::make_unique<TransformerState>(start(batch));
}

StepOutput TransformerSeq2Seq::decode_step(const std::vector<int64_t>& prev_tokens, StepState& st) const {
  auto* own = dynamic_cast<TransformerState*>(&st);
  if (!own) throw Error("transformer: decode_step was given another model's decoder state");
  return step(prev_tokens, *own);
}

std::string TransformerSeq2Seq::dropout_state() const {
  return config_.dropout > 0 ? core_.dropout_generator().state() : "";
}

void TransformerSeq2Seq::set_dropout_state(const std::string& state) {
  const bool has_dropout = config_.dropout > 0;  // as dropout_state()
  if (state.empty() != !has_dropout)
    throw Error("transformer: a dropout stream state is " + std::string(state.empty() ? "missing" : "given") +
                " for a model " + (has_dropout ? "with" : "without") + " dropout");
  if (has_dropout) core_.dropout_generator() = Generator::from_state(state);
}

}  // namespace heed
