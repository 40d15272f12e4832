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

AttentionProjections TransformerAttention::projections() const {
  const int64_t D = embed();
  // Rows 0..D-1 of the packed weight are W_q, D..2D-1 W_k, 2D..3D-1 W_v (PyTorch's layout).
  auto part = [&](const Var& p, int64_t i) { return slice(p, 0, i * D, (i + 1) * D); };
  return {part(in_proj_weight, 0), part(in_proj_bias, 0),   part(in_proj_weight, 1),
          part(in_proj_bias, 1),   part(in_proj_weight, 2), part(in_proj_bias, 2)};
}

AttentionOutput TransformerAttention::forward(const Var& query, const Var& kv, const Tensor& mask,
                                              const Dropout& drop) const {
  return multi_head_attention("TransformerAttention", query, kv, mask, projections(), out_proj, heads_, drop);
}

AttentionOutput TransformerAttention::forward(const Var& query, const Var& kv, const Tensor& mask, const Dropout& drop,
                                              Hooks* hooks, const std::string& prefix) const {
  if (!hooks) return forward(query, kv, mask, drop);
  // multi_head_attention's three steps, opened at each named activation. (B h, L, d_k) is
  // (B, h, L, d_k) in memory, so a hook sees heads as an axis of their own at no cost.
  const int64_t D = embed(), h = heads_, dk = D / h;
  const Shape &qs = query.shape(), &ks = kv.shape();
  if (qs.size() != 3 || ks.size() != 3 || qs[2] != D || ks[2] != D || ks[0] != qs[0] ||
      mask.shape() != Shape{qs[0], qs[1], ks[1]})
    return forward(query, kv, mask, drop);  // its shape error
  const int64_t B = qs[0], T = qs[1], S = ks[1];
  auto at = [&](const char* name, const Var& x, const Shape& shown) {  // x as `shown` through the hook, and back
    const Shape own = x.shape();
    return reshape(hooks->at(prefix + name, reshape(x, shown)), own);
  };
  Var q = at("hook_q", project_queries(query, projections(), h), {B, h, T, dk});  // made first: see multi_head_attention
  KeysValues p = project_keys_values(kv, projections(), h);
  p.keys = at("hook_k", p.keys, {B, h, S, dk});
  p.values = at("hook_v", p.values, {B, h, S, dk});
  AttentionOutput a = scaled_dot_product_attention(q, p.keys, p.values, per_head_mask(mask, h), drop);
  Var pattern = at("hook_pattern", a.weights, {B, h, T, S});
  // A replaced pattern mixes the values again; an unchanged one keeps the product already made.
  Var z = hooks->replaces(prefix + "hook_pattern") ? matmul(drop.apply(pattern), p.values) : a.output;
  z = at("hook_z", z, {B, h, T, dk});
  Var out = out_proj.forward(merge_heads(z, h));  // (B, T, D)
  if (hooks->wants(prefix + "hook_result")) {
    // result_i = z_i W_O[:, i d_k .. (i+1) d_k]^T (B, T, D): what head i writes, the bias apart.
    Var z4 = reshape(z, {B, h, T, dk});
    std::vector<Var> parts;
    for (int64_t i = 0; i < h; ++i) {
      Var zi = reshape(slice(z4, 1, i, i + 1), {B, T, dk});
      parts.push_back(reshape(linear(zi, slice(out_proj.weight, 1, i * dk, (i + 1) * dk), Var()), {B, 1, T, D}));
    }
    Var result = hooks->at(prefix + "hook_result", concat(parts, 1));  // (B, h, T, D)
    if (hooks->replaces(prefix + "hook_result")) out = sum(result, 1) + out_proj.bias;
  }
  return {zero_unattended(out, mask), reshape(pattern, {B, h, T, S})};
}

KeysValues TransformerAttention::keys_values(const Var& kv) const {
  const int64_t D = embed();
  const Shape& s = kv.shape();
  if (s.size() != 3 || s[2] != D)
    throw Error("TransformerAttention: keys_values of " + shape_str(s) + ", must be (B, S, " + std::to_string(D) + ")");
  return project_keys_values(kv, projections(), heads_);
}

AttentionOutput TransformerAttention::attend(const Var& query, const KeysValues& kv, const Tensor& mask,
                                             const Dropout& drop) const {
  const int64_t D = embed(), dk = D / heads_;
  const Shape &qs = query.shape(), &ks = kv.keys.shape();
  const bool ok = qs.size() == 3 && qs[2] == D && ks.size() == 3 && ks[0] == qs[0] * heads_ && ks[2] == dk &&
                  kv.values.shape() == ks && mask.shape() == Shape{qs[0], qs[1], ks[1]};
  if (!ok)
    throw Error("TransformerAttention: attend's query " + shape_str(qs) + ", keys " + shape_str(ks) + ", values " +
                shape_str(kv.values.shape()) + " and mask " + shape_str(mask.shape()) + " must be (B, T, " +
                std::to_string(D) + "), (B " + std::to_string(heads_) + ", S, " + std::to_string(dk) +
                ") twice and (B, T, S)");
  return attend_projected("TransformerAttention", project_queries(query, projections(), heads_), kv, mask, out_proj,
                          heads_, drop);
}

AttentionOutput TransformerAttention::attend(const Var& query, const KeysValues& kv, const Dropout& drop) const {
  const Shape &qs = query.shape(), &ks = kv.keys.shape();
  // Every key allowed: a mask of ones, (B, T, S) (of no shape when the inputs have none, for attend's error).
  const bool shaped = qs.size() == 3 && ks.size() == 3;
  return attend(query, kv, shaped ? Tensor::ones({qs[0], qs[1], ks[1]}) : Tensor(), drop);
}

AttentionOutput TransformerAttention::step(const Var& in, KeysValues& cache, const Dropout& drop) const {
  if (in.shape().size() != 3 || in.shape()[1] != 1)
    throw Error("TransformerAttention: step's input " + shape_str(in.shape()) + " must be one position (B, 1, D)");
  KeysValues now = keys_values(in);  // (B h, 1, d_k) each
  if (cache.keys.defined() && cache.keys.shape()[0] != now.keys.shape()[0])
    throw Error("TransformerAttention: step got " + std::to_string(in.shape()[0]) + " rows for a cache of " +
                std::to_string(cache.keys.shape()[0] / heads_));
  cache.keys = cache.keys.defined() ? concat({cache.keys, now.keys}, 1) : now.keys;
  cache.values = cache.values.defined() ? concat({cache.values, now.values}, 1) : now.values;
  cache.heads = heads_;
  return attend(in, cache, drop);
}

}  // namespace heed
