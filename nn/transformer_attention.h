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
// For decoding one position at a time (a causal stack's key/value cache, models/decoder_model.h)
// the attention splits in two: keys_values() projects positions into each head's keys and values
// once, and attend() lets new queries read every position kept so far. forward(q, kv, mask) with
// an all-ones mask is attend(q, keys_values(kv)); tests/ch14_decoder_model_test.cpp holds the two
// equal.
#pragma once

#include <cstdint>

#include "nn/dropout.h"
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

  // Each head's keys and values of the positions kv (B, S, D):
  //   keys = kv W_k^T + b_k, values = kv W_v^T + b_v, as (B, h, S, d_k): head i's are features
  //   i d_k .. (i+1) d_k - 1 of the projection (split_heads' cut).
  struct KeysValues {
    Var keys, values;  // (B, h, S, d_k) each
  };
  KeysValues keys_values(const Var& kv) const;
  // query (B, T, D) attends to every one of the S positions whose keys and values kv holds (no
  // mask: each query may read them all, as the newest position of a causal sequence may read
  // every position before it and itself) -> output (B, T, D), weights (B, h, T, S). The query
  // is projected here (W_q, b_q); the keys and values were projected by keys_values.
  AttentionOutput attend(const Var& query, const KeysValues& kv, const Dropout& drop = {}) const;

  int64_t embed() const { return out_proj.in_features(); }
  int64_t heads() const { return heads_; }

  Var in_proj_weight;  // (3D, D)
  Var in_proj_bias;    // (3D)
  Linear out_proj;     // (D, D)

 private:
  int64_t heads_;
};

}  // namespace heed
