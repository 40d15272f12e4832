// Attention in which every query looks at a whole sequence of keys at once, with PyTorch's
// nn.MultiheadAttention math, and chapter 12's two self-attention layers built on it:
//   Q = query W_q^T + b_q (B, T, D), K = kv W_k^T + b_k, V = kv W_v^T + b_v (B, S, D)
//   head_i = softmax(Q_i K_i^T / sqrt(d_k)) V_i                  d_k = D / h features per head
//   out = concat(head_1 .. head_h) W_o^T + b_o                    (B, T, D)
// multi_head_attention() is that computation, once: chapter 12's SelfAttention and
// MultiHeadAttention (four Linears) and chapter 13's TransformerAttention (a packed in_proj,
// nn/transformer_attention.h) differ only in how they store and initialise the weights. In
// self-attention query and kv are the same sequence (T = S).
// Masks use heed's convention, 1 = may attend (PyTorch's key_padding_mask is the opposite, True =
// ignore); attention_mask() builds them, with an explicit rule for padded queries. A masked key
// gets exactly zero weight, and a query allowed no key at all gets zero weights and an output of
// exactly zero, never a NaN. Without positions (nn/positions.h) the layers see no order:
// permuting the sequence permutes the output.
#pragma once

#include <cstdint>
#include <string>

#include "nn/dropout.h"
#include "nn/linear.h"
#include "nn/module.h"

namespace heed {

// What an attention layer returns.
struct AttentionOutput {
  Var output;   // (B, T, D)
  Var weights;  // (B, h, T, S) after the softmax, before any dropout; SelfAttention's (B, S, S)
};

// What a padded query may attend to. Only the keys' padding matters to a real query; the two
// users of these layers need different answers for a padded one:
enum class PaddedQueries {
  // Chapter 12's self-attention: a padded query attends to nothing and its output is exactly 0,
  // not out_proj's bias. Padding then stays inert in every tensor a reader prints or sums (the
  // tagger's outputs, the pictures of weights), and nothing has to remember to skip it.
  attend_nothing,
  // The Transformer's, PyTorch's key_padding_mask: only keys are masked and a padded query
  // attends as a real one does. No real query reads it and the loss skips its position, so its
  // value never matters; keeping PyTorch's rule keeps heed's numbers nn.Transformer's (the
  // checkpoints and the golden tests compare them), and a decoder query needs no padding of its own.
  attend_keys,
};

// Which key each query may attend to: (B, T, S), 1 where key j is real (key_padding (B, S)), j <= i
// when causal (a decoder cannot look ahead), and query i is real or `rule` lets a padded query
// attend (query_padding (B, T)). In both paddings any non-zero counts as real.
Tensor attention_mask(const Tensor& query_padding, const Tensor& key_padding, bool causal, PaddedQueries rule);

// Chapter 12's mask, attention_mask(padding, padding, causal, attend_nothing): (B, S, S) from
// padding (B, S). A real query always has a key, itself.
Tensor self_attention_mask(const Tensor& padding, bool causal);

// The Transformer's, attention_mask(T real queries, key_padding, causal, attend_keys): (B, T, S)
// from key_padding (B, S). Every row has key 0 when the sequence's first position is real.
Tensor key_mask(const Tensor& key_padding, int64_t T, bool causal);

// softmax(q k^T / sqrt(d_k)) v for N independent problems (a batch, or batch x heads), the
// softmax taken over the keys where mask is non-zero; a query row with no allowed key gets zero
// weights. q (N, T, d_k), k (N, S, d_k), v (N, S, d_v), mask (N, T, S) -> output (N, T, d_v),
// weights (N, T, S). `drop` applies to the weights before they mix v (the returned ones are before).
AttentionOutput scaled_dot_product_attention(const Var& q, const Var& k, const Var& v, const Tensor& mask,
                                             const Dropout& drop = {});

// h heads of d_k = D / h features: head i owns features i d_k .. (i+1) d_k - 1, as PyTorch.
// split_heads: (B, L, D) -> (B h, L, d_k), each head its own problem; merge_heads is its inverse,
// the concat of the heads. REQUIRES: heads >= 1 divides D (else heed::Error).
Var split_heads(const Var& x, int64_t heads);
Var merge_heads(const Var& x, int64_t heads);

// embed, after checking that embed >= 1, heads >= 1 and heads divides embed; `layer` names the
// caller in the heed::Error otherwise. For the layers' constructors.
int64_t checked_embed(const std::string& layer, int64_t embed, int64_t heads);

// The input projections of one attention layer, each weight (D, D) with its bias (D), or an
// undefined bias for none. Views of a layer's own parameters (or slices of them).
struct AttentionProjections {
  Var w_q, b_q, w_k, b_k, w_v, b_v;
};

// Multi-head attention, the formulas at the top of this file. query (B, T, D), kv (B, S, D), mask
// (B, T, S) -> output (B, T, D), exactly 0 at a query whose mask row allows no key, and weights
// (B, h, T, S). out_proj is W_o, b_o; `drop` as in scaled_dot_product_attention. Shape mistakes
// throw heed::Error naming `layer` and the shapes. It is the three steps below, in this order:
//   attend_projected(project_queries(query), project_keys_values(kv), mask)
// (the order in which the projections are made is the order in which their gradients add up in an
// input they share, a self-attention's x, so it is fixed).
AttentionOutput multi_head_attention(const std::string& layer, const Var& query, const Var& kv, const Tensor& mask,
                                     const AttentionProjections& in, const Linear& out_proj, int64_t heads,
                                     const Dropout& drop = {});

// Each head's keys and values of S positions, one problem per head as split_heads lays them out:
// row b h + i is head i of sequence b, features i d_k .. (i+1) d_k - 1 of the projection. Keys and
// values do not depend on the queries, so a decoder that adds one position at a time keeps them
// (a key/value cache, nn/transformer_layers.h) instead of projecting every earlier position again.
struct KeysValues {
  Var keys, values;   // (B h, S, d_k) each
  int64_t heads = 1;  // h
};

// Q = query W_q^T + b_q, one problem per head: query (B, T, D) -> (B h, T, d_k).
Var project_queries(const Var& query, const AttentionProjections& in, int64_t heads);
// K = kv W_k^T + b_k and V = kv W_v^T + b_v: kv (B, S, D) -> (B h, S, d_k) each.
KeysValues project_keys_values(const Var& kv, const AttentionProjections& in, int64_t heads);
// softmax(Q K^T / sqrt(d_k)) V per head, the heads merged and out_proj applied: q (B h, T, d_k)
// from project_queries, kv from project_keys_values, mask (B, T, S) -> as multi_head_attention.
// Shape mistakes throw heed::Error naming `layer` and the shapes.
AttentionOutput attend_projected(const std::string& layer, const Var& q, const KeysValues& kv, const Tensor& mask,
                                 const Linear& out_proj, int64_t heads, const Dropout& drop = {});

// attend_projected's two pieces around the attention, for a caller that opens it up (the hook
// points of nn/transformer_attention.h): every head of sequence b gets sequence b's mask, (B, T, S)
// -> (B h, T, S); and out (B, T, D) with exactly 0, and no gradient, at every query whose row of
// mask (B, T, S) allows no key (its weights are all zero, so it would otherwise be out_proj's bias).
Tensor per_head_mask(const Tensor& mask, int64_t heads);
Var zero_unattended(const Var& out, const Tensor& mask);

// Chapter 12's layers. Parameters as nn.MultiheadAttention's when its q, k, v weights are kept
// separate: q_proj, k_proj, v_proj, out_proj, each a Linear (D, D), with biases when `bias` (the
// default, as PyTorch). Initialisation as PyTorch's _reset_parameters: W_q, W_k, W_v are drawn (in
// that order, after the Linears' own draws) as xavier_uniform of the stacked (3D, D) in_proj
// weight, U(+-sqrt(6 / 4D)); W_o keeps Linear's default U(+-1/sqrt(D)); every bias starts at 0.
// Both mask padded queries with PaddedQueries::attend_nothing: the output is zero at padding.

// Single-head scaled dot-product self-attention, d_k = D. MultiHeadAttention(embed, 1) built from
// the same generator has the same parameters, names and values, and gives bit-identical results.
class SelfAttention : public Module {
 public:
  // REQUIRES: embed >= 1 (else heed::Error).
  SelfAttention(int64_t embed, Generator& gen, bool bias = true);

  // x (B, S, D), padding (B, S) -> output (B, S, D), weights (B, S, S). With `causal`, query i
  // sees only keys j <= i (a decoder's self-attention). Shape mistakes throw heed::Error naming
  // the layer and the shapes.
  AttentionOutput forward(const Var& x, const Tensor& padding, bool causal = false) const;
  // The same when nothing in x is padded: every position real, the same bits as padding of ones.
  AttentionOutput forward(const Var& x, bool causal = false) const;

  int64_t embed() const { return q_proj.in_features(); }

  Linear q_proj, k_proj, v_proj, out_proj;
};

// h heads of size d_k = D / h, which attend independently and are concatenated back before W_o.
class MultiHeadAttention : public Module {
 public:
  // REQUIRES: embed >= 1, heads >= 1, heads divides embed (else heed::Error).
  MultiHeadAttention(int64_t embed, int64_t heads, Generator& gen, bool bias = true);

  // x (B, S, D), padding (B, S) -> output (B, S, D), weights (B, h, S, S); causal as SelfAttention.
  AttentionOutput forward(const Var& x, const Tensor& padding, bool causal = false) const;
  // The same when nothing in x is padded: every position real, the same bits as padding of ones.
  AttentionOutput forward(const Var& x, bool causal = false) const;

  int64_t embed() const { return q_proj.in_features(); }
  int64_t heads() const { return heads_; }

  Linear q_proj, k_proj, v_proj, out_proj;

 private:
  int64_t heads_;
};

}  // namespace heed
