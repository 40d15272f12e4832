// The decoder-only Transformer (--model decoder): a language model over one sequence that
// predicts each next token from the tokens before it, the model of GPT and of Elhage et al.
// 2021 ("A Mathematical Framework for Transformer Circuits"). It reads the batch's target
// (BOS y_1 .. y_L) and is scored on y_1 .. y_L EOS, the sequence shifted by one; it has no source
// and no cross-attention (a task that has a source writes it into the target).
//
//   x_0 = embed(ids) + P[0 .. T-1]                       (B, T, D)
//   attention-only layer l:  x_l = x_{l-1} + SA(x_{l-1})   no feed-forward, no LayerNorm
//   full layer l:            x_l = block(x_{l-1})          nn.TransformerEncoderLayer with a
//                                                          causal mask, post-norm or pre-norm
//   logits = out(x_N)        (full layers: out(norm(x_N)), a final LayerNorm as GPT-2's)
//
// SA is causal multi-head self-attention, TransformerAttention (nn/transformer_attention.h),
// chapter 12's multi_head_attention inside: position t attends to positions 0 .. t only, so
// the logits at t see nothing of the token they predict. The sum x_l is the "residual stream":
// every layer reads it and adds its output to it.
//
// The token vectors are added to the positions without a factor, as GPT-2 and nanoGPT do (and as
// a PyTorch user who writes `self.embed(ids) + self.pos(...)` expects); nn.Embedding's N(0, 1)
// start gives them unit-size elements, the positions' size. (The encoder-decoder Transformer of
// models/transformer.h multiplies by sqrt(D), as Vaswani et al. do, from N(0, 1/D): the same
// size at the start, a different gradient.) P is sinusoidal, or a learned table "pos" of
// max_src_len rows (the longest sequence, BOS included, it can read).
//
// With shared embeddings (ModelConfig::share_embeddings, heed train --share-embeddings) the output
// layer's weight IS the embedding's table, as in GPT-2: logits = E x + b_out, one Var that both
// uses add their gradients into; out keeps its own bias. The checkpoint holds the table once, as
// embed.weight (the transformer's tied table likewise), and models.DecoderOnly(share_embeddings=
// True) ties out.weight to it when it loads.
//
// Parameter names are those of the PyTorch module a reader would write with stock parts
// (reference/pytorch/models.py, DecoderOnly), so a checkpoint loads with load_state_dict:
//   embed.weight, pos.weight (learned positions), out.weight, out.bias, and per layer
//   attention-only: layers.0.in_proj_weight ...      (nn.ModuleList of nn.MultiheadAttention)
//   full:           layers.0.self_attn.in_proj_weight, layers.0.linear1.weight ..., norm.weight
//                                                   (nn.ModuleList of nn.TransformerEncoderLayer)
//
// Decoding step by step keeps a key/value cache (DecoderModelState::cache, nn/transformer_layers.h's
// LayerCache, the encoder-decoder Transformer's too): for every layer, each head's keys and values
// of every position so far, after in_proj. A step embeds the new token, and in each layer projects
// the new position alone into its query, key and value (3 D^2 multiply-adds a row, whatever the
// position t), appends the key and value to the layer's cache and lets the query attend over all
// t + 1 of them (O(t D)): TransformerAttention::step. Keys and values of earlier positions never
// change, since a causal layer's position s reads nothing after s. The cache is what the full
// forward's layers compute as K and V for those positions, and a step's logits are the full
// forward's at that position; tests/models/ch14_decoder_model_test.cpp holds both to 1e-12
// (check_steps_match_forward, tests/support/model_checks.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/model.h"
#include "nn/embedding.h"
#include "nn/layer_norm.h"
#include "nn/linear.h"
#include "nn/positions.h"
#include "nn/transformer_layers.h"

namespace heed {

// The running state of step-by-step decoding.
struct DecoderModelState : StepState {
  // One entry per layer: its self-attention's keys and values of the t positions decoded so far,
  // cache[l].self (B h, t, d_k) each; empty before the first step (no cross-attention, no .cross).
  std::vector<LayerCache> cache;
  int64_t position = 0;  // steps taken: the next token's position
  // Multiply-adds the last step spent in the layers' input projections, counted from the shapes
  // it projected: B rows through W_q, W_k and W_v per layer, B 3 D^2 each, for any position.
  int64_t projection_multiply_adds = 0;

  std::unique_ptr<StepState> select_rows(const std::vector<int64_t>& rows) const override;
};

class DecoderModel : public Model {
 public:
  // heed::Error unless config names the decoder-only model ("decoder"). Its config part is
  // tgt_vocab (the vocabulary; src_vocab is not used), embed (D), layers, heads, ff, norm_first,
  // positions, max_src_len (learned positions' rows), dropout, attention_only and share_embeddings.
  DecoderModel(const ModelConfig& config, Generator& gen);

  // Logits of every position at once, teacher forced: (B, T, V) for the batch's tgt_in.
  Var forward(const Batch& batch) const override;
  // Hook points (docs/hooks.md): hook_embed, hook_pos_embed, blocks.L.* (TransformerLens's names;
  // an attention-only layer has hook_resid_pre, attn.*, hook_attn_out, hook_resid_post),
  // ln_final.hook_normalized (full layers) and logits.
  Var run_with_hooks(const Batch& batch, Hooks& hooks) const override;
  // The residual stream after the last layer (and final norm), before `out`: ids (B, T) row-major,
  // lengths (B) the real positions of each row (padding after them is never attended to).
  // Each layer's attention weights (B, h, T, T) into *weights when given.
  Var hidden(const std::vector<int64_t>& ids, int64_t B, int64_t T, const std::vector<int64_t>& lengths,
             std::vector<Var>* weights = nullptr, Hooks* hooks = nullptr) const;

  // No source to read: the state starts empty, and each step appends one position.
  std::unique_ptr<StepState> start_decoding(const Batch& batch) const override;
  // out (B, D) is the last position's hidden(); weights is empty (there is no source).
  StepOutput decode_step(const std::vector<int64_t>& prev_tokens, StepState& st) const override;
  Var logits(const Var& out) const override { return out_.forward(out); }
  bool has_attention() const override { return false; }  // no attention over a source
  real forward_flops(int64_t batch, int64_t src_len, int64_t vocab) const override;
  // Its layers' causal self-attention over <bos> y_1 .. y_{T-1} (maps.self); there is no source.
  AttentionMaps attention_maps(const std::vector<int64_t>& src, const std::vector<int64_t>& output) const override;

  void set_training(bool on, uint64_t seed) override;
  void set_training(bool on) override { training_ = on; }
  std::string dropout_state() const override;
  void set_dropout_state(const std::string& state) override;

  int64_t num_layers() const { return config_.layers; }
  // Layer i's causal self-attention: the attention-only layer, or the full layer's self_attn.
  // Mutable for the head ablations of models/analysis/heads.h, which zero one head's part of out_proj.
  TransformerAttention& self_attention(size_t i) { return config_.attention_only ? attention_[i] : blocks_[i].self_attn; }
  const TransformerAttention& self_attention(size_t i) const {
    return config_.attention_only ? attention_[i] : blocks_[i].self_attn;
  }
  // Layer i of a model with full layers (heed::Error for an attention-only one).
  const TransformerEncoderLayer& block(size_t i) const;

 private:
  // ids (B, L) at positions offset .. offset + L - 1 -> embed(ids) + P, dropped: (B, L, D).
  Var embed(const std::vector<int64_t>& ids, int64_t B, int64_t L, int64_t offset, Hooks* hooks = nullptr) const;
  // Layer i over x (B, T, D) with mask (B, T, T); its attention weights into *weights when given;
  // through the hook points blocks.i.* when hooks is given.
  Var layer(size_t i, const Var& x, const Tensor& mask, Var* weights, Hooks* hooks = nullptr) const;
  // Layer i for one new position x (B, 1, D) on the key/value cache: appends x's keys and values
  // to kv (this layer's cache) and returns the layer's output at x, as layer() over all positions
  // so far would. Adds the multiply-adds of its input projections to macs.
  Var layer_step(size_t i, const Var& x, KeysValues& kv, int64_t& macs) const;
  Dropout dropout() const { return {config_.dropout, training_ ? &dropout_gen_ : nullptr}; }

  Embedding embed_;
  std::unique_ptr<PositionEmbedding> pos_;     // learned positions only
  Linear out_;
  LayerList<TransformerAttention> attention_;  // attention-only layers, or
  LayerList<TransformerEncoderLayer> blocks_;  // full layers
  std::unique_ptr<LayerNorm> norm_;            // full layers only
  // Shared embeddings: the module registered as "out" (out_'s weight is embed_'s, registered once,
  // as embed.weight).
  std::unique_ptr<BiasOnly> out_bias_;
  bool training_ = false;
  mutable Generator dropout_gen_;  // advanced by every training forward that drops
};

// How sample_continuation chooses each next token.
struct SamplingOptions {
  real temperature = 1;  // the logits are divided by it; 0: always the most probable token
  int64_t top_k = 0;     // draw among the k most probable tokens only; 0: among all
};

// Continues the sequence <bos> prompt with up to max_tokens tokens, stopping after an <eos>:
// each next token is drawn from softmax(logits / temperature) over the top_k most probable
// tokens (ties: the lower id first), with one gen.uniform() per token, on the per-layer cache.
// The last token drawn is not fed back: positions used are 1 + prompt + max_tokens - 1.
// Fixed prompt, options and gen state give the same tokens every time; draw_token in the .cpp
// is the whole rule, as one plain loop. REQUIRES: a decoder-only model (its decoding reads no
// source), temperature >= 0, top_k >= 0 (else heed::Error).
std::vector<int64_t> sample_continuation(const Model& model, const std::vector<int64_t>& prompt, int64_t max_tokens,
                                         const SamplingOptions& options, Generator& gen);

// A model's loss on the repeat task (models/tasks/tasks.h) with the two copies apart: the mean
// cross-entropy in nats of the first copy's symbols and of the second's, teacher forced, over
// `samples` fresh sequences drawn from Generator(seed) in batches of up to 100. A segment s of n
// symbols is the target s s: the first copy's n symbols are predicted at positions 0 .. n-1
// (after BOS s_1 .. s_t), the second's at positions n .. 2n-1; the EOS after them counts in
// neither. Each half is the mean over all of its symbols in all sequences. A model that has
// learnt nothing scores log V on both; one that copies scores near 0 on the second, except its
// first symbol (s_1, read at s_n, which nothing in the sequence so far points to). Any Model:
// a sequence-to-sequence model, which also reads s as its source, is scored the same way.
//
// That first symbol is a guess even for a perfect copier: it adds about log V / n to `repeated`.
// `in_context` leaves it out, the repeated half from its 2nd symbol (positions n+1 .. 2n-1, the
// symbols a model can read off the first copy): the in-context loss Olsson et al. 2022 measure.
struct HalvesLoss {
  real first = 0, repeated = 0;  // nats per symbol, each copy whole
  real in_context = 0;           // nats per symbol, the second copy from its 2nd symbol
  int64_t sequences = 0;
};
HalvesLoss repeat_halves_loss(const Model& model, const RepeatTask& task, int64_t samples, uint64_t seed);

}  // namespace heed
