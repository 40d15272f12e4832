// Self-attention: every position of a sequence is a query that attends to every real position of
// the same sequence (the keys and values), with PyTorch's nn.MultiheadAttention math:
//   Q = x W_q^T + b_q, K = x W_k^T + b_k, V = x W_v^T + b_v      (B, S, D) each
//   head_i = softmax(Q_i K_i^T / sqrt(d_k)) V_i                   d_k = D / h features per head
//   out = concat(head_1 .. head_h) W_o^T + b_o                     (B, S, D)
// Masks use heed's convention, 1 = real position (PyTorch's key_padding_mask is the opposite,
// True = ignore). A padded key gets exactly zero weight; a padded query row attends to nothing
// and its output is exactly zero (PyTorch would let it attend), so padding never reaches a real
// position and never makes a NaN. The layers see no order: without positions (nn/positions.h)
// permuting the sequence permutes the output.
#pragma once

#include <cstdint>

#include "nn/linear.h"
#include "nn/module.h"

namespace heed {

struct SelfAttentionOutput {
  Var output;   // (B, S, D), zero at padded positions
  Var weights;  // (B, S, S) for SelfAttention, (B, h, S, S) for MultiHeadAttention
};

// Which key each query may look at: (B, S, S), 1 where query i and key j are both real and, when
// causal, j <= i. padding (B, S) is 1 at real positions (any non-zero counts as real).
Tensor self_attention_mask(const Tensor& padding, bool causal);

// softmax(q k^T / sqrt(d_k)) v for N independent problems (a batch, or batch x heads), the
// softmax taken over the keys where mask is non-zero; a query row with no allowed key gets zero
// weights. q, k (N, S, d_k), v (N, S, d_v), mask (N, S, S) -> output (N, S, d_v), weights (N, S, S).
SelfAttentionOutput scaled_dot_product_attention(const Var& q, const Var& k, const Var& v, const Tensor& mask);

// Parameters of both layers, as nn.MultiheadAttention's when its q, k, v weights are kept
// separate: q_proj, k_proj, v_proj, out_proj, each a Linear (D, D), with biases when `bias` (the
// default, as PyTorch). Initialisation as PyTorch's _reset_parameters: W_q, W_k, W_v are drawn (in
// that order, after the Linears' own draws) as xavier_uniform of the stacked (3D, D) in_proj
// weight, U(+-sqrt(6 / 4D)); W_o keeps Linear's default U(+-1/sqrt(D)); every bias starts at 0.

// Single-head scaled dot-product self-attention, d_k = D, written without any head split so its
// few lines read as the formula. MultiHeadAttention(embed, 1) built from the same generator has
// the same parameters, names and values, and gives bit-identical results.
class SelfAttention : public Module {
 public:
  // REQUIRES: embed >= 1 (else heed::Error).
  SelfAttention(int64_t embed, Generator& gen, bool bias = true);

  // x (B, S, D), padding (B, S) -> output (B, S, D), weights (B, S, S). With `causal`, query i
  // sees only keys j <= i (a decoder's self-attention). Shape mistakes throw heed::Error naming
  // the layer and the shapes.
  SelfAttentionOutput forward(const Var& x, const Tensor& padding, bool causal = false) const;

  int64_t embed() const { return q_proj.in_features(); }

  Linear q_proj, k_proj, v_proj, out_proj;
};

// h heads of size d_k = D / h: Q, K, V are split into heads by reshape + transpose (head i owns
// features i d_k .. (i+1) d_k - 1, as PyTorch), attend independently, and are concatenated back
// before W_o.
class MultiHeadAttention : public Module {
 public:
  // REQUIRES: embed >= 1, heads >= 1, heads divides embed (else heed::Error).
  MultiHeadAttention(int64_t embed, int64_t heads, Generator& gen, bool bias = true);

  // x (B, S, D), padding (B, S) -> output (B, S, D), weights (B, h, S, S); causal as SelfAttention.
  SelfAttentionOutput forward(const Var& x, const Tensor& padding, bool causal = false) const;

  int64_t embed() const { return q_proj.in_features(); }
  int64_t heads() const { return heads_; }

  Linear q_proj, k_proj, v_proj, out_proj;

 private:
  int64_t heads_;
};

}  // namespace heed
