#include "nn/transformer_attention.h"

#include <string>

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

TransformerAttention::KeysValues TransformerAttention::keys_values(const Var& kv) const {
  const int64_t D = embed();
  const Shape& s = kv.shape();
  if (s.size() != 3 || s[2] != D)
    throw Error("TransformerAttention: keys_values of " + shape_str(s) + ", must be (B, S, " + std::to_string(D) + ")");
  const int64_t B = s[0], S = s[1], dk = D / heads_;
  auto project = [&](int64_t i) {  // rows i D .. (i+1) D - 1 of the packed weight: 1 W_k, 2 W_v
    Var p = linear(kv, slice(in_proj_weight, 0, i * D, (i + 1) * D), slice(in_proj_bias, 0, i * D, (i + 1) * D));
    return reshape(split_heads(p, heads_), {B, heads_, S, dk});  // (B, S, D) -> (B h, S, d_k) -> (B, h, S, d_k)
  };
  return {project(1), project(2)};
}

// multi_head_attention's steps with the keys and values already projected, and every key allowed.
AttentionOutput TransformerAttention::attend(const Var& query, const KeysValues& kv, const Dropout& drop) const {
  const int64_t D = embed(), dk = D / heads_;
  const Shape &qs = query.shape(), &ks = kv.keys.shape();
  const bool ok = qs.size() == 3 && qs[2] == D && ks.size() == 4 && ks[0] == qs[0] && ks[1] == heads_ &&
                  ks[3] == dk && kv.values.shape() == ks;
  if (!ok)
    throw Error("TransformerAttention: attend's query " + shape_str(qs) + ", keys " + shape_str(ks) + " and values " +
                shape_str(kv.values.shape()) + " must be (B, T, " + std::to_string(D) + "), (B, " +
                std::to_string(heads_) + ", S, " + std::to_string(dk) + ") twice");
  const int64_t B = qs[0], T = qs[1], S = ks[2];
  Var q = split_heads(linear(query, slice(in_proj_weight, 0, 0, D), slice(in_proj_bias, 0, 0, D)), heads_);  // (B h, T, d_k)
  Var k = reshape(kv.keys, {B * heads_, S, dk}), v = reshape(kv.values, {B * heads_, S, dk});              // (B h, S, d_k)
  AttentionOutput a = scaled_dot_product_attention(q, k, v, Tensor::ones({B * heads_, T, S}), drop);
  return {out_proj.forward(merge_heads(a.output, heads_)), reshape(a.weights, {B, heads_, T, S})};
}

}  // namespace heed
