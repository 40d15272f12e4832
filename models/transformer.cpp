#include "models/transformer.h"

#include <cmath>
#include <string>

#include "autograd/functions.h"
#include "models/seq2seq.h"
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
                           int64_t B, int64_t L, int64_t offset) const {
  const int64_t D = sizes_.d_model;
  Var e = reshape(table.forward(ids), {B, L, D}) * std::sqrt(static_cast<real>(D));  // (B, L, D)
  Var p;                                                                             // (L, D), broadcast over B
  if (learned) {
    if (offset + L > learned->max_len())
      throw Error("transformer: position " + std::to_string(offset + L - 1) + " is beyond the " +
                  std::to_string(learned->max_len()) + " learned positions");
    p = slice(learned->weight, 0, offset, offset + L);
  } else {
    Tensor P = sinusoidal_positions(offset + L, D);
    p = Var(Tensor({L, D}, std::vector<real>(P.data() + offset * D, P.data() + (offset + L) * D)));
  }
  return dropout().apply(e + p);
}

Var TransformerCore::encode(const Embedding& src_embed, const Batch& batch, TransformerAttentionMaps* maps) const {
  const int64_t B = batch.batch, S = batch.src_len;
  Var x = embed(src_embed, src_pos.get(), batch.src, B, S, 0);                      // (B, S, D)
  Tensor mask = key_mask(length_mask(batch.lengths, S, "transformer"), S, false);  // (B, S, S)
  std::vector<Var> w;
  Var memory = encoder.forward(x, mask, dropout(), maps ? &w : nullptr);
  if (maps)
    for (const Var& v : w) maps->encoder.push_back(v.value());
  return memory;
}

Var TransformerCore::decode(const Embedding& tgt_embed, const Batch& batch, const Var& memory,
                            TransformerAttentionMaps* maps) const {
  const int64_t B = batch.batch, S = batch.src_len, T = batch.tgt_len;
  Var y = embed(tgt_embed, tgt_pos.get(), batch.tgt_in, B, T, 0);  // (B, T, D)
  Tensor self_mask = key_mask(length_mask(batch.tgt_lengths, T, "transformer"), T, true);  // (B, T, T)
  Tensor cross_mask = key_mask(length_mask(batch.lengths, S, "transformer"), T, false);   // (B, T, S)
  std::vector<Var> sw, cw;
  Var h = decoder.forward(y, self_mask, memory, cross_mask, dropout(), maps ? &sw : nullptr, maps ? &cw : nullptr);
  if (maps) {
    for (const Var& v : sw) maps->self.push_back(v.value());
    for (const Var& v : cw) maps->cross.push_back(v.value());
  }
  return h;
}

void TransformerCore::start(const Embedding& src_embed, const Batch& batch, DecoderState& st) const {
  st.values = encode(src_embed, batch);  // memory (B, S, D)
  st.mask = length_mask(batch.lengths, batch.src_len, "transformer");
  st.cache.clear();
  st.position = 0;
}

StepOutput TransformerCore::step(const Embedding& tgt_embed, const std::vector<int64_t>& prev_tokens,
                                 DecoderState& st) const {
  const int64_t B = static_cast<int64_t>(prev_tokens.size()), S = st.mask.shape()[1], D = sizes_.d_model;
  Var x = embed(tgt_embed, tgt_pos.get(), prev_tokens, B, 1, st.position);  // (B, 1, D)
  std::vector<Var> cw;
  Var h = decoder.step(x, st.cache, st.values, key_mask(st.mask, 1, false), &cw);  // (B, 1, D)
  ++st.position;
  StepOutput o;
  o.out = reshape(h, {B, D});
  o.weights = mean(reshape(cw.back(), {B, sizes_.heads, S}), 1);  // the last layer's, averaged over heads
  return o;
}

}  // namespace heed
