#include "nn/self_attention.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "autograd/functions.h"
#include "nn/attention.h"
#include "nn/init.h"

namespace heed {

Tensor attention_mask(const Tensor& query_padding, const Tensor& key_padding, bool causal, PaddedQueries rule) {
  if (query_padding.dim() != 2 || key_padding.dim() != 2 || query_padding.shape()[0] != key_padding.shape()[0])
    throw Error("attention_mask: query padding " + shape_str(query_padding.shape()) + " and key padding " +
                shape_str(key_padding.shape()) + " must be (B, T) and (B, S)");
  const int64_t B = query_padding.shape()[0], T = query_padding.shape()[1], S = key_padding.shape()[1];
  Tensor mask = Tensor::zeros({B, T, S});  // (B, T, S): [b, query i, key j]
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < T; ++i) {
      if (rule == PaddedQueries::attend_nothing && query_padding[b * T + i] == 0) continue;  // its row stays empty
      for (int64_t j = 0; j < (causal ? std::min(i + 1, S) : S); ++j)
        mask[(b * T + i) * S + j] = key_padding[b * S + j] != 0;
    }
  return mask;
}

Tensor self_attention_mask(const Tensor& padding, bool causal) {
  if (padding.dim() != 2) throw Error("self_attention_mask: padding " + shape_str(padding.shape()) + " must be (B, S)");
  return attention_mask(padding, padding, causal, PaddedQueries::attend_nothing);
}

Tensor key_mask(const Tensor& key_padding, int64_t T, bool causal) {
  if (key_padding.dim() != 2 || T < 0)
    throw Error("key_mask: key padding " + shape_str(key_padding.shape()) + " must be (B, S), T " + std::to_string(T) +
                " >= 0");
  return attention_mask(Tensor::ones({key_padding.shape()[0], T}), key_padding, causal, PaddedQueries::attend_keys);
}

AttentionOutput scaled_dot_product_attention(const Var& q, const Var& k, const Var& v, const Tensor& mask,
                                             const Dropout& drop) {
  const Shape &qs = q.shape(), &ks = k.shape(), &vs = v.shape();
  bool ok = qs.size() == 3 && ks.size() == 3 && vs.size() == 3 && ks[0] == qs[0] && ks[2] == qs[2] && vs[0] == qs[0] &&
            vs[1] == ks[1] && mask.shape() == Shape{qs[0], qs[1], ks[1]};
  if (!ok)
    throw Error("scaled_dot_product_attention: q " + shape_str(qs) + ", k " + shape_str(ks) + ", v " + shape_str(vs) +
                " and mask " + shape_str(mask.shape()) + " must be (N, T, d_k), (N, S, d_k), (N, S, d_v), (N, T, S)");
  const int64_t N = qs[0], T = qs[1], S = ks[1], dk = qs[2];
  Var scores = matmul_nt(q, k) * (1 / std::sqrt(static_cast<real>(dk)));  // q k^T / sqrt(d_k): (N, T, S)
  // Every (problem, query) pair is one row of masked_softmax: exact zeros at masked keys, and a
  // row without any allowed key (a padded query) stays all zero.
  Tensor row_mask = mask;
  row_mask.reshape_inplace({N * T, S});
  Var weights = reshape(masked_softmax(reshape(scores, {N * T, S}), row_mask), {N, T, S});
  return {matmul(drop.apply(weights), v), weights};  // sum_j w_ij v_j: (N, T, d_v)
}

Var split_heads(const Var& x, int64_t heads) {
  const Shape& s = x.shape();
  if (s.size() != 3 || heads < 1 || s[2] % heads != 0)
    throw Error("split_heads: input " + shape_str(s) + " must be (B, L, D) with D a multiple of heads " +
                std::to_string(heads));
  const int64_t B = s[0], L = s[1], dk = s[2] / heads;
  // (B, L, D) -> (B, D, L) -> (B h, d_k, L) -> (B h, L, d_k): the reshape cuts the feature axis
  // into h consecutive blocks of d_k, one per head, and each head becomes its own problem.
  return transpose(reshape(transpose(x), {B * heads, dk, L}));
}

Var merge_heads(const Var& x, int64_t heads) {
  const Shape& s = x.shape();
  if (s.size() != 3 || heads < 1 || s[0] % heads != 0)
    throw Error("merge_heads: input " + shape_str(s) + " must be (B h, L, d_k) with h = heads " +
                std::to_string(heads));
  const int64_t B = s[0] / heads, L = s[1], D = s[2] * heads;
  // The inverse of split_heads, (B h, L, d_k) -> (B h, d_k, L) -> (B, D, L) -> (B, L, D): head i's
  // outputs land in features i d_k .. (i+1) d_k - 1, the concat of the heads.
  return transpose(reshape(transpose(x), {B, D, L}));
}

int64_t checked_embed(const std::string& layer, int64_t embed, int64_t heads) {
  if (embed < 1 || heads < 1 || embed % heads != 0)
    throw Error(layer + ": embed " + std::to_string(embed) + " and heads " + std::to_string(heads) +
                " must be positive, with heads dividing embed");
  return embed;
}

AttentionOutput multi_head_attention(const std::string& layer, const Var& query, const Var& kv, const Tensor& mask,
                                     const AttentionProjections& in, const Linear& out_proj, int64_t heads,
                                     const Dropout& drop) {
  const int64_t D = checked_embed(layer, out_proj.in_features(), heads);
  const Shape &qs = query.shape(), &ks = kv.shape();
  bool ok = qs.size() == 3 && ks.size() == 3 && qs[2] == D && ks[2] == D && ks[0] == qs[0] &&
            mask.shape() == Shape{qs[0], qs[1], ks[1]};
  if (!ok)
    throw Error(layer + ": query " + shape_str(qs) + ", kv " + shape_str(ks) + " and mask " + shape_str(mask.shape()) +
                " must be (B, T, " + std::to_string(D) + "), (B, S, " + std::to_string(D) + "), (B, T, S)");
  Var q = project_queries(query, in, heads);                // (B h, T, d_k), made first: see the header
  KeysValues projected = project_keys_values(kv, in, heads);  // (B h, S, d_k) each
  return attend_projected(layer, q, projected, mask, out_proj, heads, drop);
}

Var zero_unattended(const Var& out, const Tensor& mask) {
  const int64_t B = mask.shape()[0], T = mask.shape()[1], S = mask.shape()[2];
  Tensor attends = Tensor::zeros({B, T, 1});  // (B, T, 1), broadcast over D
  bool any_empty = false;
  for (int64_t r = 0; r < B * T; ++r) {
    const real* row = mask.data() + r * S;
    attends[r] = std::any_of(row, row + S, [](real m) { return m != 0; });
    any_empty = any_empty || attends[r] == 0;
  }
  if (!any_empty) return out;  // every query attends: nothing to zero
  return where(attends, out, Var(Tensor::zeros(out.shape())));
}

Tensor per_head_mask(const Tensor& mask, int64_t heads) {
  const int64_t B = mask.shape()[0], T = mask.shape()[1], S = mask.shape()[2];
  Tensor head_mask = Tensor::empty({B * heads, T, S});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < heads; ++i)
      std::copy(mask.data() + b * T * S, mask.data() + (b + 1) * T * S, head_mask.data() + (b * heads + i) * T * S);
  return head_mask;
}

Var project_queries(const Var& query, const AttentionProjections& in, int64_t heads) {
  return split_heads(linear(query, in.w_q, in.b_q), heads);  // (B, T, D) -> (B h, T, d_k)
}

KeysValues project_keys_values(const Var& kv, const AttentionProjections& in, int64_t heads) {
  const Shape& s = kv.shape();
  if (s.size() != 3 || heads < 1 || s[2] % heads != 0)
    throw Error("project_keys_values: kv " + shape_str(s) + " must be (B, S, D) with D a multiple of heads " +
                std::to_string(heads));
  // Keys before values, the order multi_head_attention has always made them in.
  Var keys = split_heads(linear(kv, in.w_k, in.b_k), heads);  // (B h, S, d_k)
  return {keys, split_heads(linear(kv, in.w_v, in.b_v), heads), heads};
}

AttentionOutput attend_projected(const std::string& layer, const Var& q, const KeysValues& kv, const Tensor& mask,
                                 const Linear& out_proj, int64_t heads, const Dropout& drop) {
  const Shape &qs = q.shape(), &ks = kv.keys.shape();
  const bool ok = heads >= 1 && kv.heads == heads && qs.size() == 3 && qs[0] % heads == 0 && ks.size() == 3 &&
                  ks[0] == qs[0] && ks[2] == qs[2] && kv.values.shape() == ks &&
                  mask.shape() == Shape{qs[0] / heads, qs[1], ks[1]};
  if (!ok)
    throw Error(layer + ": queries " + shape_str(qs) + ", keys " + shape_str(ks) + ", values " +
                shape_str(kv.values.shape()) + " and mask " + shape_str(mask.shape()) +
                " must be (B h, T, d_k), (B h, S, d_k) twice and (B, T, S) with h = " + std::to_string(heads) +
                " (keys and values of " + std::to_string(kv.heads) + " heads)");
  const int64_t B = qs[0] / heads, T = qs[1], S = ks[1];
  const Var &k = kv.keys, &v = kv.values;  // (B h, S, d_k)
  // Every head of sequence b uses sequence b's mask: (B, T, S) -> (B h, T, S).
  AttentionOutput a = scaled_dot_product_attention(q, k, v, per_head_mask(mask, heads), drop);  // (B h, T, d_k), (B h, T, S)
  Var out = out_proj.forward(merge_heads(a.output, heads));                    // (B, T, D)
  return {zero_unattended(out, mask), reshape(a.weights, {B, heads, T, S})};
}

namespace {

AttentionProjections projections(const Linear& q, const Linear& k, const Linear& v) {
  return {q.weight, q.bias, k.weight, k.bias, v.weight, v.bias};
}

// Chapter 12's self-attention: x attends to itself, padded queries to nothing. Its inputs are
// checked here, in the layers' own terms (x and padding), before any mask is built from them.
AttentionOutput self_attend(const std::string& layer, const Var& x, const Tensor& padding, bool causal,
                            const AttentionProjections& in, const Linear& out_proj, int64_t heads) {
  const Shape& s = x.shape();
  const int64_t D = out_proj.in_features();
  if (s.size() != 3 || s[2] != D)
    throw Error(layer + ": input " + shape_str(s) + " must be (B, S, " + std::to_string(D) + ")");
  if (padding.shape() != Shape{s[0], s[1]})
    throw Error(layer + ": padding mask " + shape_str(padding.shape()) +
                " must be (B, S) = " + shape_str({s[0], s[1]}) + " for input " + shape_str(s));
  return multi_head_attention(layer, x, x, self_attention_mask(padding, causal), in, out_proj, heads);
}

// The padding of a batch in which nothing is padded: ones (B, S) for x (B, S, D). (For an x of
// another rank any tensor will do: self_attend refuses x first.)
Tensor nothing_padded(const Var& x) {
  const Shape& s = x.shape();
  return s.size() >= 2 ? Tensor::ones({s[0], s[1]}) : Tensor();
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

AttentionOutput SelfAttention::forward(const Var& x, const Tensor& padding, bool causal) const {
  AttentionOutput a =
      self_attend("SelfAttention", x, padding, causal, projections(q_proj, k_proj, v_proj), out_proj, 1);
  const int64_t B = x.shape()[0], S = x.shape()[1];
  return {a.output, reshape(a.weights, {B, S, S})};  // one head: (B, 1, S, S) -> (B, S, S)
}

AttentionOutput SelfAttention::forward(const Var& x, bool causal) const {
  return forward(x, nothing_padded(x), causal);
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

AttentionOutput MultiHeadAttention::forward(const Var& x, const Tensor& padding, bool causal) const {
  return self_attend("MultiHeadAttention", x, padding, causal, projections(q_proj, k_proj, v_proj), out_proj, heads_);
}

AttentionOutput MultiHeadAttention::forward(const Var& x, bool causal) const {
  return forward(x, nothing_padded(x), causal);
}

}  // namespace heed
