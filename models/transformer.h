// The Transformer of Vaswani et al. 2017 as a sequence-to-sequence model (--model transformer):
//   src:  x = src_embed(s) sqrt(D) + P[0..S-1]           (B, S, D)
//         memory = encoder(x)                           N layers + final norm, padded keys masked
//   tgt:  y = tgt_embed(BOS y_1 .. y_L) sqrt(D) + P      (B, T, D)
//         h = decoder(y, memory)                        causal self-attention, cross-attention
//   logits = out(h)                                     (B, T, V)
// P is sinusoidal (fixed, any length) or learned (src_pos, tgt_pos: a table per side). D is the
// embedding size (ModelConfig::embed). Seq2Seq owns the embeddings and `out` and registers this
// part's modules under torch.nn.Transformer's names ("encoder.layers.0.self_attn.in_proj_weight").
// The embeddings start from N(0, 1/D) rather than N(0, 1): times sqrt(D) a token's vector then
// has unit-size elements like the positions', instead of drowning them.
// Decoding step by step keeps each decoder layer's inputs (DecoderState::cache), so a step costs
// one position, not the whole prefix again.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/tasks.h"
#include "nn/embedding.h"
#include "nn/positions.h"
#include "nn/transformer_layers.h"

namespace heed {

struct DecoderState;
struct StepOutput;

struct TransformerSizes {
  int64_t d_model = 32, layers = 2, heads = 4, ff = 128;
  bool norm_first = false;
  bool learned_positions = false;
  int64_t max_len = 64;  // learned positions: rows of each table (the target's has one more, for BOS)
  real dropout = 0;
};

// Attention weights of one teacher-forced pass, each layer's (B, h, ., .).
struct TransformerAttentionMaps {
  std::vector<Tensor> encoder;  // (B, h, S, S) per layer
  std::vector<Tensor> self;     // (B, h, T, T) per decoder layer
  std::vector<Tensor> cross;    // (B, h, T, S) per decoder layer
};

class TransformerCore {
 public:
  TransformerCore(const TransformerSizes& sizes, Generator& gen);

  // memory (B, S, D) of the batch's sources.
  Var encode(const Embedding& src_embed, const Batch& batch, TransformerAttentionMaps* maps = nullptr) const;
  // The decoder's outputs (B, T, D) for the teacher-forced inputs BOS y_1 .. y_L.
  Var decode(const Embedding& tgt_embed, const Batch& batch, const Var& memory,
             TransformerAttentionMaps* maps = nullptr) const;

  // Step-by-step decoding: start fills values (memory), mask and an empty cache; step embeds
  // prev_tokens at the next position and returns the decoder's output (B, D) and the last
  // layer's cross-attention weights averaged over heads (B, S).
  void start(const Embedding& src_embed, const Batch& batch, DecoderState& st) const;
  StepOutput step(const Embedding& tgt_embed, const std::vector<int64_t>& prev_tokens, DecoderState& st) const;

  // Dropout is applied only while training is on, with masks drawn from Generator(seed).
  void set_training(bool on, uint64_t seed);
  void set_training(bool on) { training_ = on; }  // the masks' stream carries on
  Generator& dropout_generator() const { return dropout_gen_; }

  const TransformerSizes& sizes() const { return sizes_; }

  std::unique_ptr<PositionEmbedding> src_pos, tgt_pos;  // learned positions only
  TransformerEncoder encoder;
  TransformerDecoder decoder;

 private:
  // ids (B, L) -> table(ids) sqrt(D) + positions offset .. offset + L - 1: (B, L, D).
  Var embed(const Embedding& table, const PositionEmbedding* learned, const std::vector<int64_t>& ids, int64_t B,
            int64_t L, int64_t offset) const;
  Dropout dropout() const { return {sizes_.dropout, training_ ? &dropout_gen_ : nullptr}; }

  TransformerSizes sizes_;
  bool training_ = false;
  mutable Generator dropout_gen_;  // advanced by every training forward that drops
};

}  // namespace heed
