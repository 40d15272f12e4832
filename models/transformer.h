// The Transformer of Vaswani et al. 2017 as a sequence-to-sequence model (--model transformer):
//   src:  x = src_embed(s) sqrt(D) + P[0..S-1]           (B, S, D)
//         memory = encoder(x)                           N layers + final norm, padded keys masked
//   tgt:  y = tgt_embed(BOS y_1 .. y_L) sqrt(D) + P      (B, T, D)
//         h = decoder(y, memory)                        causal self-attention, cross-attention
//   logits = out(h)                                     (B, T, V)
// P is sinusoidal (fixed, any length) or learned (src_pos, tgt_pos: a table per side). D is the
// embedding size (ModelConfig::embed). TransformerSeq2Seq, the Model (models/model.h), owns the
// embeddings, `out` and a TransformerCore (the stacks and positions), and registers the core's
// modules under torch.nn.Transformer's names ("encoder.layers.0.self_attn.in_proj_weight").
// The embeddings start from N(0, 1/D) rather than N(0, 1): times sqrt(D) a token's vector then
// has unit-size elements like the positions', instead of drowning them.
// With --share-embeddings (ModelConfig::share_embeddings, the paper's section 3.4) `out` reads
// the target embedding's table: logits = h E_tgt^T + b, one matrix learned from both ends. It is
// registered once, as "tgt_embed.weight"; the output keeps "out.bias".
// Decoding step by step keeps a key/value cache per decoder layer (TransformerState::cache,
// nn/transformer_layers.h's LayerCache, the decoder-only model's too): the memory's keys and values
// for cross-attention, projected once by start, and the self-attention's keys and values of every
// position so far, to which a step adds the new position's. A step costs one position's
// projections, not the whole prefix's and the memory's again.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/model.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "nn/positions.h"
#include "nn/transformer_layers.h"

namespace heed {

struct TransformerSizes {
  int64_t d_model = 32, layers = 2, heads = 4, ff = 128;
  bool norm_first = false;
  bool learned_positions = false;
  int64_t max_len = 64;  // learned positions: rows of each table (the target's has one more, for BOS)
  real dropout = 0;
};

// Attention weights of one teacher-forced pass, each layer's (B, h, ., .) (models/model.h).
using TransformerAttentionMaps = AttentionMaps;

// The transformer decoder's running state between steps.
struct TransformerState : StepState {
  Tensor mask;                    // (B, S), 1 at real source positions
  std::vector<LayerCache> cache;  // per decoder layer: keys and values of the memory and of the positions so far
  int64_t position = 0;           // steps taken

  std::unique_ptr<StepState> select_rows(const std::vector<int64_t>& rows) const override;
};

class TransformerCore {
 public:
  TransformerCore(const TransformerSizes& sizes, Generator& gen);

  // memory (B, S, D) of the batch's sources.
  // Through the hook points encoder.* (docs/hooks.md) when hooks is given.
  Var encode(const Embedding& src_embed, const Batch& batch, TransformerAttentionMaps* maps = nullptr,
             Hooks* hooks = nullptr) const;
  // The decoder's outputs (B, T, D) for the teacher-forced inputs BOS y_1 .. y_L.
  // Through the decoder's hook points (hook_embed, blocks.L.*, ln_final.*) when hooks is given.
  Var decode(const Embedding& tgt_embed, const Batch& batch, const Var& memory,
             TransformerAttentionMaps* maps = nullptr, Hooks* hooks = nullptr) const;

  // Step-by-step decoding: start encodes the sources (the mask, and each layer's cache holding the
  // memory's keys and values); step embeds
  // prev_tokens at the next position and returns the decoder's output (B, D) and the last
  // layer's cross-attention weights averaged over heads (B, S).
  TransformerState start(const Embedding& src_embed, const Batch& batch) const;
  StepOutput step(const Embedding& tgt_embed, const std::vector<int64_t>& prev_tokens, TransformerState& st) const;

  // Dropout is applied only while training is on, with masks drawn from Generator(seed).
  void set_training(bool on, uint64_t seed);
  void set_training(bool on) { training_ = on; }  // the masks' stream carries on
  Generator& dropout_generator() const { return dropout_gen_; }

  const TransformerSizes& sizes() const { return sizes_; }

  std::unique_ptr<PositionEmbedding> src_pos, tgt_pos;  // learned positions only
  TransformerEncoder encoder;
  TransformerDecoder decoder;

 private:
  // ids (B, L) -> table(ids) sqrt(D) + positions offset .. offset + L - 1, dropped: (B, L, D).
  Var embed(const Embedding& table, const PositionEmbedding* learned, const std::vector<int64_t>& ids, int64_t B,
            int64_t L, int64_t offset, Hooks* hooks = nullptr, const std::string& prefix = {}) const;
  Dropout dropout() const { return {sizes_.dropout, training_ ? &dropout_gen_ : nullptr}; }

  TransformerSizes sizes_;
  bool training_ = false;
  mutable Generator dropout_gen_;  // advanced by every training forward that drops
};

// The transformer as a Model: --model transformer. Its config part is ModelConfig's embed (D),
// layers, heads, ff, norm_first, positions and dropout; cell, hidden, bidirectional and
// input_feeding are the recurrent models' (heed train refuses them with --model transformer).
class TransformerSeq2Seq : public Model {
 public:
  // heed::Error unless config names the transformer (make_model builds either kind).
  TransformerSeq2Seq(const ModelConfig& config, Generator& gen);

  // Every target position at once, teacher forced: no loop over time. (B, T, V).
  Var forward(const Batch& batch) const override;
  // Hook points (docs/hooks.md): the encoder's under "encoder." (encoder.hook_embed,
  // encoder.blocks.L.*, encoder.ln_final.hook_normalized), the decoder's with TransformerLens's
  // names unprefixed (hook_embed, blocks.L.*, blocks.L.cross_attn.*, ln_final.hook_normalized), logits.
  Var run_with_hooks(const Batch& batch, Hooks& hooks) const override;
  TransformerState start(const Batch& batch) const { return core_.start(src_embed_, batch); }
  StepOutput step(const std::vector<int64_t>& prev_tokens, TransformerState& st) const {
    return core_.step(tgt_embed_, prev_tokens, st);
  }
  std::unique_ptr<StepState> start_decoding(const Batch& batch) const override;
  StepOutput decode_step(const std::vector<int64_t>& prev_tokens, StepState& st) const override;
  Var logits(const Var& out) const override { return out_.forward(out); }
  bool has_attention() const override { return true; }
  real forward_flops(int64_t batch, int64_t src_len, int64_t vocab) const override;

  void set_training(bool on, uint64_t seed) override { core_.set_training(on, seed); }
  void set_training(bool on) override { core_.set_training(on); }
  std::string dropout_state() const override;
  void set_dropout_state(const std::string& state) override;

  // Every layer's and head's attention weights for one source and the tokens a decoder wrote for
  // it (greedy or beam; <eos> last if it ended), in one teacher-forced pass with no graph: the
  // decoder reads <bos> y_1 .. y_{T-1}, so cross and self have one row per written token. What
  // heed predict --layer/--head draws; the stepwise decoder's weights are the same numbers up to
  // rounding (tests/tools/ch13_heads_cli_test.cpp).
  TransformerAttentionMaps attention_maps(const std::vector<int64_t>& src,
                                         const std::vector<int64_t>& output) const override;

  // The parts, for reading the attention maps of a teacher-forced pass (chapter 13).
  const TransformerCore& core() const { return core_; }
  const Embedding& src_embed() const { return src_embed_; }
  const Embedding& tgt_embed() const { return tgt_embed_; }

 private:
  Embedding src_embed_, tgt_embed_;
  Linear out_;  // with shared embeddings its weight is tgt_embed_'s (the same Var)
  TransformerCore core_;
  std::unique_ptr<BiasOnly> out_bias_;  // shared embeddings: the module registered as "out"
};

}  // namespace heed
