#include "nn/transformer_attention.h"

#include "autograd/functions.h"
#include "nn/init.h"

namespace heed {

TransformerAttention::TransformerAttention(int64_t embed, int64_t heads, Generator& gen)
    : out_proj(checked_embed("TransformerAttention", embed, heads), embed, true, gen), heads_(heads) {
  const int64_t D = embed;
  in_proj_weight = register_parameter("in_proj_weight", xavier_uniform({3 * D, D}, gen));
  in_proj_bias = register_parameter("in_proj_bias", Tensor::zeros({3 * D}));
  register_module("out_proj", out_proj);
  out_proj.weight.value() = xavier_uniform({D, D}, gen);
  out_proj.bias.value().fill(0);
}

AttentionOutput TransformerAttention::forward(const Var& query, const Var& kv, const Tensor& mask,
                                              const Dropout& drop) const {
  const int64_t D = embed();
  // Rows 0..D-1 of the packed weight are W_q, D..2D-1 W_k, 2D..3D-1 W_v (PyTorch's layout).
  auto part = [&](const Var& p, int64_t i) { return slice(p, 0, i * D, (i + 1) * D); };
  AttentionProjections in{part(in_proj_weight, 0), part(in_proj_bias, 0),   part(in_proj_weight, 1),
                          part(in_proj_bias, 1),   part(in_proj_weight, 2), part(in_proj_bias, 2)};
  return multi_head_attention("TransformerAttention", query, kv, mask, in, out_proj, heads_, drop);
}

}  // namespace heed
