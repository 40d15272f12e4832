#include "nn/self_attention.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "autograd/functions.h"
#include "nn/attention.h"
#include "nn/init.h"

namespace heed {

Tensor self_attention_mask(const Tensor& padding, bool causal) {
  if (padding.dim() != 2) throw Error("self_attention_mask: padding " + shape_str(padding.shape()) + " must be (B, S)");
  const int64_t B = padding.shape()[0], S = padding.shape()[1];
  Tensor mask = Tensor::zeros({B, S, S});  // (B, S, S): [b, query i, key j]
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < S; ++i) {
      if (padding[b * S + i] == 0) continue;  // a padded query attends to nothing
      for (int64_t j = 0; j < (causal ? i + 1 : S); ++j) mask[(b * S + i) * S + j] = padding[b * S + j] != 0;
    }
  return mask;
}

SelfAttentionOutput scaled_dot_product_attention(const Var& q, const Var& k, const Var& v, const Tensor& mask) {
  const Shape &qs = q.shape(), &ks = k.shape(), &vs = v.shape();
  bool ok = qs.size() == 3 && ks == qs && vs.size() == 3 && vs[0] == qs[0] && vs[1] == qs[1] &&
            mask.shape() == Shape{qs[0], qs[1], qs[1]};
  if (!ok)
    throw Error("scaled_dot_product_attention: q " + shape_str(qs) + ", k " + shape_str(ks) + ", v " + shape_str(vs) +
                " and mask " + shape_str(mask.shape()) + " must be (N, S, d_k), (N, S, d_k), (N, S, d_v), (N, S, S)");
  const int64_t N = qs[0], S = qs[1], dk = qs[2];
  Var scores = matmul_nt(q, k) * (1 / std::sqrt(static_cast<real>(dk)));  // q k^T / sqrt(d_k): (N, S, S)
  // Every (problem, query) pair is one row of masked_softmax: exact zeros at masked keys, and a
  // row without any allowed key (a padded query) stays all zero.
  Tensor row_mask = mask;
  row_mask.reshape_inplace({N * S, S});
  Var weights = reshape(masked_softmax(reshape(scores, {N * S, S}), row_mask), {N, S, S});
  return {matmul(weights, v), weights};  // sum_j w_ij v_j: (N, S, d_v)
}

namespace {

// Throws unless x is (B, S, D) and padding (B, S).
void check_input(const char* layer, const Var& x, const Tensor& padding, int64_t D) {
  const Shape& s = x.shape();
  if (s.size() != 3 || s[2] != D)
    throw Error(std::string(layer) + ": input " + shape_str(s) + " must be (B, S, " + std::to_string(D) + ")");
  if (padding.shape() != Shape{s[0], s[1]})
    throw Error(std::string(layer) + ": padding mask " + shape_str(padding.shape()) +
                " must be (B, S) = " + shape_str({s[0], s[1]}) + " for input " + shape_str(s));
}

// Exactly zero at padded positions (the bias of out_proj would otherwise leave a value there),
// with no gradient flowing through them. out (B, S, D), padding (B, S).
Var zero_padded(const Var& out, const Tensor& padding) {
  Tensor cond = padding;
  cond.reshape_inplace({padding.shape()[0], padding.shape()[1], 1});  // (B, S, 1), broadcast over D
  return where(cond, out, Var(Tensor::zeros(out.shape())));
}

// PyTorch's MultiheadAttention._reset_parameters, with q, k, v as three blocks of one in_proj.
void reset_parameters(Linear& q, Linear& k, Linear& v, Linear& out, Generator& gen) {
  const int64_t D = q.in_features();
  real bound = std::sqrt(6 / static_cast<real>(D + 3 * D));  // xavier_uniform of (3D, D)
  for (Linear* lin : {&q, &k, &v}) {
    lin->weight.value() = uniform_init({D, D}, bound, gen);
    if (lin->bias.defined()) lin->bias.value().fill(0);
  }
  if (out.bias.defined()) out.bias.value().fill(0);
}

int64_t checked_embed(const char* layer, int64_t embed, int64_t heads) {
  if (embed < 1 || heads < 1 || embed % heads != 0)
    throw Error(std::string(layer) + ": embed " + std::to_string(embed) + " and heads " + std::to_string(heads) +
                " must be positive, with heads dividing embed");
  return embed;
}

}  // namespace

SelfAttention::SelfAttention(int64_t embed, Generator& gen, bool bias)
    : q_proj(checked_embed("SelfAttention", embed, 1), embed, bias, gen),
      k_proj(embed, embed, bias, gen),
      v_proj(embed, embed, bias, gen),
      out_proj(embed, embed, bias, gen) {
  register_module("q_proj", q_proj);
  register_module("k_proj", k_proj);
  register_module("v_proj", v_proj);
  register_module("out_proj", out_proj);
  reset_parameters(q_proj, k_proj, v_proj, out_proj, gen);
}

SelfAttentionOutput SelfAttention::forward(const Var& x, const Tensor& padding, bool causal) const {
  check_input("SelfAttention", x, padding, embed());
  Var q = q_proj.forward(x), k = k_proj.forward(x), v = v_proj.forward(x);  // (B, S, D) each
  SelfAttentionOutput a = scaled_dot_product_attention(q, k, v, self_attention_mask(padding, causal));
  return {zero_padded(out_proj.forward(a.output), padding), a.weights};  // (B, S, D), (B, S, S)
}

MultiHeadAttention::MultiHeadAttention(int64_t embed, int64_t heads, Generator& gen, bool bias)
    : q_proj(checked_embed("MultiHeadAttention", embed, heads), embed, bias, gen),
      k_proj(embed, embed, bias, gen),
      v_proj(embed, embed, bias, gen),
      out_proj(embed, embed, bias, gen),
      heads_(heads) {
  register_module("q_proj", q_proj);
  register_module("k_proj", k_proj);
  register_module("v_proj", v_proj);
  register_module("out_proj", out_proj);
  reset_parameters(q_proj, k_proj, v_proj, out_proj, gen);
}

SelfAttentionOutput MultiHeadAttention::forward(const Var& x, const Tensor& padding, bool causal) const {
  check_input("MultiHeadAttention", x, padding, embed());
  const int64_t B = x.shape()[0], S = x.shape()[1], D = embed(), h = heads_, dk = D / h;
  // (B, S, D) -> (B, D, S) -> (B h, d_k, S) -> (B h, S, d_k): the reshape cuts the feature axis
  // into h consecutive blocks of d_k, one per head, and each head becomes its own problem.
  auto split_heads = [&](const Var& t) { return transpose(reshape(transpose(t), {B * h, dk, S})); };
  Var q = split_heads(q_proj.forward(x)), k = split_heads(k_proj.forward(x)), v = split_heads(v_proj.forward(x));
  // Every head of sequence b uses sequence b's mask: (B, S, S) -> (B h, S, S).
  Tensor mask = self_attention_mask(padding, causal), head_mask = Tensor::zeros({B * h, S, S});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < h; ++i)
      std::copy(mask.data() + b * S * S, mask.data() + (b + 1) * S * S, head_mask.data() + (b * h + i) * S * S);
  SelfAttentionOutput a = scaled_dot_product_attention(q, k, v, head_mask);  // (B h, S, d_k)
  // The inverse of split_heads puts head i's outputs in features i d_k .. (i+1) d_k - 1: the concat.
  Var merged = transpose(reshape(transpose(a.output), {B, D, S}));  // (B, S, D)
  return {zero_padded(out_proj.forward(merged), padding), reshape(a.weights, {B, h, S, S})};
}

}  // namespace heed
