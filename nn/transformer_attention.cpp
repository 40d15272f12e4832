#include "nn/transformer_attention.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "autograd/functions.h"
#include "nn/attention.h"
#include "nn/init.h"

namespace heed {

Tensor key_mask(const Tensor& key_padding, int64_t T, bool causal) {
  if (key_padding.dim() != 2 || T < 0)
    throw Error("key_mask: key padding " + shape_str(key_padding.shape()) + " must be (B, S), T " + std::to_string(T) +
                " >= 0");
  const int64_t B = key_padding.shape()[0], S = key_padding.shape()[1];
  Tensor mask = Tensor::zeros({B, T, S});  // [b, query i, key j]
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j < (causal ? std::min(i + 1, S) : S); ++j) mask[(b * T + i) * S + j] = key_padding[b * S + j] != 0;
  return mask;
}

namespace {

int64_t checked_embed(int64_t embed, int64_t heads) {
  if (embed < 1 || heads < 1 || embed % heads != 0)
    throw Error("TransformerAttention: embed " + std::to_string(embed) + " and heads " + std::to_string(heads) +
                " must be positive, with heads dividing embed");
  return embed;
}

}  // namespace

TransformerAttention::TransformerAttention(int64_t embed, int64_t heads, Generator& gen)
    : out_proj(checked_embed(embed, heads), embed, true, gen),
      heads_(heads) {
  const int64_t D = embed;
  in_proj_weight = register_parameter("in_proj_weight", xavier_uniform({3 * D, D}, gen));
  in_proj_bias = register_parameter("in_proj_bias", Tensor::zeros({3 * D}));
  register_module("out_proj", out_proj);
  out_proj.weight.value() = xavier_uniform({D, D}, gen);
  out_proj.bias.value().fill(0);
}

AttentionResult TransformerAttention::forward(const Var& query, const Var& kv, const Tensor& mask,
                                              const Dropout& drop) const {
  const Shape &qs = query.shape(), &ks = kv.shape();
  const int64_t D = embed(), h = heads_, dk = D / h;
  bool ok = qs.size() == 3 && ks.size() == 3 && qs[2] == D && ks[2] == D && ks[0] == qs[0] &&
            mask.shape() == Shape{qs[0], qs[1], ks[1]};
  if (!ok)
    throw Error("TransformerAttention: query " + shape_str(qs) + ", kv " + shape_str(ks) + " and mask " +
                shape_str(mask.shape()) + " must be (B, T, " + std::to_string(D) + "), (B, S, " + std::to_string(D) +
                "), (B, T, S)");
  const int64_t B = qs[0], T = qs[1], S = ks[1];
  // Rows 0..D-1 of the packed weight are W_q, D..2D-1 W_k, 2D..3D-1 W_v (PyTorch's layout).
  auto project = [&](const Var& x, int64_t part) {  // x (B, L, D) -> (B, L, D)
    Var w = slice(in_proj_weight, 0, part * D, (part + 1) * D), b = slice(in_proj_bias, 0, part * D, (part + 1) * D);
    return linear(x, w, b);  // (B, L) read as B L rows in place
  };
  // (B, L, D) -> (B, D, L) -> (B h, d_k, L) -> (B h, L, d_k): head i owns features i d_k .. (i+1) d_k - 1.
  auto split_heads = [&](const Var& t) {
    const int64_t L = t.shape()[1];
    return transpose(reshape(transpose(t), {B * h, dk, L}));
  };
  Var q = split_heads(project(query, 0)), k = split_heads(project(kv, 1)), v = split_heads(project(kv, 2));
  Var scores = matmul_nt(q, k) * (1 / std::sqrt(static_cast<real>(dk)));  // (B h, T, S)
  // Every head of sequence b uses sequence b's mask; each (head, query) is one softmax row.
  Tensor row_mask = Tensor::empty({B * h * T, S});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < h; ++i)
      std::copy(mask.data() + b * T * S, mask.data() + (b + 1) * T * S, row_mask.data() + (b * h + i) * T * S);
  Var weights = reshape(masked_softmax(reshape(scores, {B * h * T, S}), row_mask), {B * h, T, S});
  Var heads_out = matmul(drop.apply(weights), v);                     // (B h, T, d_k)
  Var merged = transpose(reshape(transpose(heads_out), {B, D, T}));  // (B, T, D): the concat of heads
  return {out_proj.forward(merged), reshape(weights, {B, h, T, S})};
}

}  // namespace heed
