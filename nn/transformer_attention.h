// TransformerAttention: multi-head attention whose queries may come from another sequence than
// its keys and values, stored as torch.nn.MultiheadAttention stores it inside nn.Transformer:
//   in_proj_weight (3D, D) = [W_q; W_k; W_v], in_proj_bias (3D), out_proj (Linear D -> D)
//   Q = query W_q^T + b_q (B, T, D), K = kv W_k^T + b_k, V = kv W_v^T + b_v (B, S, D)
//   head_i = softmax(Q_i K_i^T / sqrt(d_k)) V_i, d_k = D / h; out = concat(heads) W_o^T + b_o
// Self-attention passes the same sequence twice; cross-attention (the decoder reading the
// encoder, Bahdanau's attention without the RNN) passes the decoder's states as query and the
// encoder's as kv. Masks use heed's convention, 1 = may attend, built by key_mask
// (nn/self_attention.h): only keys are masked (PyTorch's key_padding_mask), a padded query
// attends like any other, and since no real query ever attends to it, its value never reaches a
// real position. The attention itself is multi_head_attention() (nn/self_attention.h), chapter
// 12's; this layer keeps only PyTorch's packed parameters and their initialisation.
//
// For decoding one position at a time the attention splits in two (nn/self_attention.h):
// keys_values() projects positions into each head's keys and values once, and attend() lets new
// queries read positions whose keys and values were projected before; step() is the one that a
// causal stack's cache runs (nn/transformer_layers.h). forward(q, kv, mask) is
// attend(q, keys_values(kv), mask), the same bits; tests/models/ch14_decoder_model_test.cpp holds them
// equal.
#pragma once

#include <cstdint>

#include "nn/dropout.h"
#include "nn/hooks.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "nn/self_attention.h"

namespace heed {

class TransformerAttention : public Module {
 public:
  // Initialisation as nn.Transformer leaves it: in_proj_weight xavier_uniform over (3D, D),
  // out_proj.weight xavier_uniform over (D, D), both biases 0.
  // REQUIRES: embed >= 1, heads >= 1, heads divides embed (else heed::Error).
  TransformerAttention(int64_t embed, int64_t heads, Generator& gen);

  // query (B, T, D), kv (B, S, D), mask (B, T, S) -> output (B, T, D), weights (B, h, T, S), as
  // multi_head_attention: a query whose mask row is empty outputs exactly 0. `drop` applies to
  // the attention weights (PyTorch's dropout inside the attention).
  AttentionOutput forward(const Var& query, const Var& kv, const Tensor& mask, const Dropout& drop = {}) const;
  // The same through the hook points prefix + hook_q, hook_k, hook_v (B, h, ., d_k), hook_pattern
  // (B, h, T, S), hook_z (B, h, T, d_k) and hook_result (B, h, T, D), head i's share of the output
  // before b_o (computed only when hooks wants it; when a hook replaces it, the output is the sum
  // of the results plus b_o). With nothing replaced, the same bits as forward().
  AttentionOutput forward(const Var& query, const Var& kv, const Tensor& mask, const Dropout& drop, Hooks* hooks,
                          const std::string& prefix) const;

  // Each head's keys and values of the positions kv (B, S, D): project_keys_values with W_k, b_k,
  // W_v, b_v, (B h, S, d_k) each.
  KeysValues keys_values(const Var& kv) const;
  // query (B, T, D), projected here (W_q, b_q), attends to the S positions whose keys and values kv
  // holds, as mask (B, T, S) allows -> output (B, T, D), weights (B, h, T, S), as forward.
  AttentionOutput attend(const Var& query, const KeysValues& kv, const Tensor& mask, const Dropout& drop = {}) const;
  // The same with every key allowed (the newest position of a causal sequence may read every
  // position before it and itself).
  AttentionOutput attend(const Var& query, const KeysValues& kv, const Dropout& drop = {}) const;
  // One new position of a causal sequence: in (B, 1, D) is projected into its key and value,
  // which join `cache` (B h, t, d_k) -> (B h, t + 1, d_k), and its query attends over all of
  // them, itself last. -> what attend gives, (B, 1, D) and (B, h, 1, t + 1).
  AttentionOutput step(const Var& in, KeysValues& cache, const Dropout& drop = {}) const;

  int64_t embed() const { return out_proj.in_features(); }
  int64_t heads() const { return heads_; }

  Var in_proj_weight;  // (3D, D)
  Var in_proj_bias;    // (3D)
  Linear out_proj;     // (D, D)

 private:
  AttentionProjections projections() const;  // W_q, b_q, W_k, b_k, W_v, b_v: views of the packed in_proj

  int64_t heads_;
};

}  // namespace heed
