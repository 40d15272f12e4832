// Chapter 13: write these three functions, then run `make exercise-13`.
// Useful ops (autograd/functions.h): mean(x, axis, true), sqrt, reshape, and + - * / between Vars
// and with numbers; embedding (nn/embedding.h), sinusoidal_positions (nn/positions.h), and a
// TransformerAttention's forward(query, kv, mask), whose .output is what you add back.
#include "exercises/13_transformer/exercises.h"

namespace heed::student {

Var layer_norm_rows(const Var& x, const Var& weight, const Var& bias) {
  not_done("write layer_norm_rows: (x - mean) / sqrt(var + 1e-5) * weight + bias, var divided by D");
}

Var decoder_layer(const TransformerDecoderLayer& layer, const Var& x, const Tensor& self_mask, const Var& memory,
                  const Tensor& cross_mask) {
  not_done("write decoder_layer: self-attention, cross-attention on memory, feed-forward, each with its "
           "residual and norm (post-norm, or pre-norm when layer.norm_first)");
}

Var transformer_input(const Var& table, const std::vector<int64_t>& ids, int64_t B, int64_t L) {
  not_done("write transformer_input: table[ids] * sqrt(D) as (B, L, D), plus sinusoidal_positions(L, D)");
}

}  // namespace heed::student
