// Chapter 13's exercises: LayerNorm, the decoder layer of the Transformer (post- and pre-norm,
// with its cross-attention), and the model's input, scaled embeddings plus sinusoidal positions.
// What each must do: README.md here.
#pragma once

#include <cstdint>
#include <vector>

#include "autograd/functions.h"
#include "exercises/not_done.h"
#include "nn/transformer_layers.h"

namespace heed::student {

// y (..., D) = (x - mean) / sqrt(var + 1e-5) * weight + bias along the last axis, for x (..., D),
// weight (D) and bias (D). var is the biased variance (divided by D), as torch.nn.LayerNorm.
Var layer_norm_rows(const Var& x, const Var& weight, const Var& bias);

// One decoder layer (B, T, D) -> (B, T, D), written with the layer's own pieces: layer.self_attn,
// layer.multihead_attn (the cross-attention), layer.feed_forward(.), layer.norm1 .. norm3, and
// post-norm or pre-norm as layer.norm_first says (nn/transformer_layers.h draws both). x (B, T, D)
// the decoder's inputs, self_mask (B, T, T) causal, memory (B, S, D) the encoder's output,
// cross_mask (B, T, S). No dropout.
Var decoder_layer(const TransformerDecoderLayer& layer, const Var& x, const Tensor& self_mask, const Var& memory,
                  const Tensor& cross_mask);

// The Transformer's input for B sequences of L tokens, ids row by row (B * L of them):
// x[b, p] = table[ids[b * L + p]] * sqrt(D) + P[p], for table (V, D) and P the sinusoidal
// positions (nn/positions.h) of positions 0 .. L-1. -> (B, L, D)
Var transformer_input(const Var& table, const std::vector<int64_t>& ids, int64_t B, int64_t L);

}  // namespace heed::student
