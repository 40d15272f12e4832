// Chapter 13's solutions.
#include <cmath>

#include "exercises/13_transformer/exercises.h"
#include "nn/embedding.h"
#include "nn/positions.h"

namespace heed::student {

Var layer_norm_rows(const Var& x, const Var& weight, const Var& bias) {
  Var xc = x - mean(x, -1, true);     // (..., D) centred
  Var var = mean(xc * xc, -1, true);  // (..., 1) divided by D
  return xc / sqrt(var + 1e-5) * weight + bias;
}

Var decoder_layer(const TransformerDecoderLayer& layer, const Var& x, const Tensor& self_mask, const Var& memory,
                  const Tensor& cross_mask) {
  auto sa = [&](const Var& in) { return layer.self_attn.forward(in, in, self_mask).output; };
  auto ca = [&](const Var& q) { return layer.multihead_attn.forward(q, memory, cross_mask).output; };
  if (layer.norm_first) {  // the norm inside the branch; the residual path stays unnormalised
    Var h = x + sa(layer.norm1.forward(x));
    h = h + ca(layer.norm2.forward(h));
    return h + layer.feed_forward(layer.norm3.forward(h));
  }
  Var h = layer.norm1.forward(x + sa(x));  // the paper: the norm after each residual sum
  h = layer.norm2.forward(h + ca(h));
  return layer.norm3.forward(h + layer.feed_forward(h));
}

Var transformer_input(const Var& table, const std::vector<int64_t>& ids, int64_t B, int64_t L) {
  const int64_t D = table.shape()[1];
  Var e = reshape(embedding(table, ids), {B, L, D}) * std::sqrt(static_cast<real>(D));  // (B, L, D)
  return e + Var(sinusoidal_positions(L, D));  // (L, D) broadcast over B
}

}  // namespace heed::student
