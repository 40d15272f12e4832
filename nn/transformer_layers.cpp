#include "nn/transformer_layers.h"

#include "autograd/functions.h"
#include "nn/init.h"

namespace heed {

namespace {

// The sizes, checked before any member is built: d_model and heads as every attention layer
// checks them (checked_embed), ff >= 1.
const LayerSizes& checked(const LayerSizes& s) {
  checked_embed("Transformer layer", s.d_model, s.heads);
  if (s.ff < 1) throw Error("Transformer layer: ff " + std::to_string(s.ff) + " must be positive");
  return s;
}

// nn.Transformer's _reset_parameters: xavier_uniform for every weight matrix (the biases keep
// nn.Linear's U(+-1/sqrt(in))).
void xavier(Linear& lin, Generator& gen) { lin.weight.value() = xavier_uniform(lin.weight.shape(), gen); }

Var feed_forward(const Linear& linear1, const Linear& linear2, const Var& x, const Dropout& drop, Hooks* hooks,
                 const std::string& prefix) {
  Var pre = hook(hooks, prefix, "mlp.hook_pre", linear1.forward(x));  // (..., D) -> (..., F)
  return linear2.forward(drop.apply(hook(hooks, prefix, "mlp.hook_post", relu(pre))));  // -> (..., D)
}

}  // namespace

TransformerEncoderLayer::TransformerEncoderLayer(const LayerSizes& s, Generator& gen)
    : self_attn(checked(s).d_model, s.heads, gen),
      linear1(s.d_model, s.ff, true, gen),
      linear2(s.ff, s.d_model, true, gen),
      norm1(s.d_model),
      norm2(s.d_model),
      norm_first(s.norm_first) {
  register_module("self_attn", self_attn);
  register_module("linear1", linear1);
  register_module("linear2", linear2);
  register_module("norm1", norm1);
  register_module("norm2", norm2);
  xavier(linear1, gen);
  xavier(linear2, gen);
}

Var TransformerEncoderLayer::feed_forward(const Var& x, const Dropout& drop, Hooks* hooks,
                                          const std::string& prefix) const {
  return heed::feed_forward(linear1, linear2, x, drop, hooks, prefix);
}

Var TransformerEncoderLayer::forward(const Var& x, const Tensor& mask, const Dropout& drop, Var* weights, Hooks* hooks,
                                     const std::string& prefix) const {
  // Self-attention with queries `in` over keys and values that are `in` itself.
  return forward_with(
      x,
      [&](const Var& in) {
        AttentionOutput a = self_attn.forward(in, in, mask, drop, hooks, prefix + "attn.");
        if (weights) *weights = a.weights;
        return drop.apply(a.output);
      },
      drop, hooks, prefix);
}

// The formulas at the top of the header, with the residual stream's hook points between the
// sublayers: resid_pre, resid_mid, resid_post; and each sublayer's output, attn_out and mlp_out.
// Pre-norm names its norms' outputs ln1, ln2; post-norm's norms output the stream itself.
Var TransformerEncoderLayer::forward_with(const Var& x, const Attend& sa, const Dropout& drop, Hooks* hooks,
                                          const std::string& prefix) const {
  if (hooks) return forward_hooked(x, sa, drop, *hooks, prefix);
  if (norm_first) {
    Var h = x + sa(norm1.forward(x));
    return h + drop.apply(feed_forward(norm2.forward(h), drop));
  }
  Var h = norm1.forward(x + sa(x));
  return norm2.forward(h + drop.apply(feed_forward(h, drop)));
}

// forward_with's formulas (the plain ones above are what chapter 13 quotes), the same ops in the
// same order with a hook point at each activation; with nothing replaced, the same bits
// (tests/models/ch14_hooks_test.cpp).
Var TransformerEncoderLayer::forward_hooked(const Var& x0, const Attend& sa, const Dropout& drop, Hooks& hooks_ref,
                                            const std::string& prefix) const {
  Hooks* hooks = &hooks_ref;
  auto at = [&](const char* name, const Var& v) { return hook(hooks, prefix, name, v); };
  Var x = at("hook_resid_pre", x0);
  if (norm_first) {
    Var h = at("hook_resid_mid", x + at("hook_attn_out", sa(at("ln1.hook_normalized", norm1.forward(x)))));
    Var ff = feed_forward(at("ln2.hook_normalized", norm2.forward(h)), drop, hooks, prefix);
    return at("hook_resid_post", h + at("hook_mlp_out", drop.apply(ff)));
  }
  Var h = at("hook_resid_mid", norm1.forward(x + at("hook_attn_out", sa(x))));
  Var ff = feed_forward(h, drop, hooks, prefix);
  return at("hook_resid_post", norm2.forward(h + at("hook_mlp_out", drop.apply(ff))));
}

TransformerDecoderLayer::TransformerDecoderLayer(const LayerSizes& s, Generator& gen)
    : self_attn(checked(s).d_model, s.heads, gen),
      multihead_attn(s.d_model, s.heads, gen),
      linear1(s.d_model, s.ff, true, gen),
      linear2(s.ff, s.d_model, true, gen),
      norm1(s.d_model),
      norm2(s.d_model),
      norm3(s.d_model),
      norm_first(s.norm_first) {
  register_module("self_attn", self_attn);
  register_module("multihead_attn", multihead_attn);
  register_module("linear1", linear1);
  register_module("linear2", linear2);
  register_module("norm1", norm1);
  register_module("norm2", norm2);
  register_module("norm3", norm3);
  xavier(linear1, gen);
  xavier(linear2, gen);
}

Var TransformerDecoderLayer::feed_forward(const Var& x, const Dropout& drop, Hooks* hooks,
                                          const std::string& prefix) const {
  return heed::feed_forward(linear1, linear2, x, drop, hooks, prefix);
}

Var TransformerDecoderLayer::forward(const Var& x, const Tensor& self_mask, const Var& memory,
                                     const Tensor& cross_mask, const Dropout& drop, Var* self_w, Var* cross_w,
                                     Hooks* hooks, const std::string& prefix) const {
  // Self-attention with queries `in` over keys and values that are `in` itself; cross-attention
  // with queries `in` over the memory.
  auto sa = [&](const Var& in) {
    AttentionOutput a = self_attn.forward(in, in, self_mask, drop, hooks, prefix + "attn.");
    if (self_w) *self_w = a.weights;
    return drop.apply(a.output);
  };
  auto ca = [&](const Var& in) {
    AttentionOutput a = multihead_attn.forward(in, memory, cross_mask, drop, hooks, prefix + "cross_attn.");
    if (cross_w) *cross_w = a.weights;
    return drop.apply(a.output);
  };
  return forward_with(x, sa, ca, drop, hooks, prefix);
}

// As the encoder layer's, with the cross-attention's sublayer between: its output is
// hook_cross_attn_out and the stream after it hook_resid_mid_cross (pre-norm: its norm ln2, the
// feed-forward's ln3).
Var TransformerDecoderLayer::forward_with(const Var& x0, const Attend& sa, const Attend& ca, const Dropout& drop,
                                          Hooks* hooks, const std::string& prefix) const {
  auto at = [&](const char* name, const Var& v) { return hook(hooks, prefix, name, v); };
  Var x = at("hook_resid_pre", x0);
  if (norm_first) {
    Var h = at("hook_resid_mid", x + at("hook_attn_out", sa(at("ln1.hook_normalized", norm1.forward(x)))));
    h = at("hook_resid_mid_cross", h + at("hook_cross_attn_out", ca(at("ln2.hook_normalized", norm2.forward(h)))));
    Var ff = feed_forward(at("ln3.hook_normalized", norm3.forward(h)), drop, hooks, prefix);
    return at("hook_resid_post", h + at("hook_mlp_out", drop.apply(ff)));
  }
  Var h = at("hook_resid_mid", norm1.forward(x + at("hook_attn_out", sa(x))));
  h = at("hook_resid_mid_cross", norm2.forward(h + at("hook_cross_attn_out", ca(h))));
  Var ff = feed_forward(h, drop, hooks, prefix);
  return at("hook_resid_post", norm3.forward(h + at("hook_mlp_out", drop.apply(ff))));
}

TransformerEncoder::TransformerEncoder(int64_t num_layers, const LayerSizes& sizes, Generator& gen)
    : norm(checked(sizes).d_model) {
  if (num_layers < 1) throw Error("TransformerEncoder: num_layers " + std::to_string(num_layers) + " must be >= 1");
  for (int64_t i = 0; i < num_layers; ++i) layers.add(sizes, gen);
  register_module("layers", layers);
  register_module("norm", norm);
}

Var TransformerEncoder::forward(const Var& x, const Tensor& mask, const Dropout& drop, std::vector<Var>* weights,
                                Hooks* hooks, const std::string& prefix) const {
  Var h = x;
  for (size_t i = 0; i < layers.size(); ++i) {
    Var w;
    h = layers[i].forward(h, mask, drop, weights ? &w : nullptr, hooks,
                          hooks ? prefix + "blocks." + std::to_string(i) + "." : std::string());
    if (weights) weights->push_back(w);
  }
  return hook(hooks, prefix, "ln_final.hook_normalized", norm.forward(h));
}

TransformerDecoder::TransformerDecoder(int64_t num_layers, const LayerSizes& sizes, Generator& gen)
    : norm(checked(sizes).d_model) {
  if (num_layers < 1) throw Error("TransformerDecoder: num_layers " + std::to_string(num_layers) + " must be >= 1");
  for (int64_t i = 0; i < num_layers; ++i) layers.add(sizes, gen);
  register_module("layers", layers);
  register_module("norm", norm);
}

Var TransformerDecoder::forward(const Var& x, const Tensor& self_mask, const Var& memory, const Tensor& cross_mask,
                                const Dropout& drop, std::vector<Var>* self_w, std::vector<Var>* cross_w, Hooks* hooks,
                                const std::string& prefix) const {
  Var h = x;
  for (size_t i = 0; i < layers.size(); ++i) {
    Var sw, cw;
    h = layers[i].forward(h, self_mask, memory, cross_mask, drop, self_w ? &sw : nullptr, cross_w ? &cw : nullptr, hooks,
                          hooks ? prefix + "blocks." + std::to_string(i) + "." : std::string());
    if (self_w) self_w->push_back(sw);
    if (cross_w) cross_w->push_back(cw);
  }
  return hook(hooks, prefix, "ln_final.hook_normalized", norm.forward(h));
}

std::vector<LayerCache> TransformerDecoder::start(const Var& memory) const {
  std::vector<LayerCache> cache(layers.size());
  for (size_t i = 0; i < layers.size(); ++i) cache[i].cross = layers[i].multihead_attn.keys_values(memory);
  return cache;
}

Var TransformerDecoder::step(const Var& x, std::vector<LayerCache>& cache, const Tensor& cross_mask,
                             std::vector<Var>* cross_w) const {
  if (x.shape().size() != 3 || x.shape()[1] != 1)
    throw Error("TransformerDecoder::step: input " + shape_str(x.shape()) + " must be one position (B, 1, D)");
  if (cache.size() != layers.size())
    throw Error("TransformerDecoder::step: a cache of " + std::to_string(cache.size()) + " layers for " +
                std::to_string(layers.size()) + " (start makes it)");
  Var h = x;
  for (size_t i = 0; i < layers.size(); ++i) {
    const TransformerDecoderLayer& layer = layers[i];
    // The new position may look at every position so far, itself included, and at the memory.
    auto sa = [&](const Var& in) { return layer.self_attn.step(in, cache[i].self).output; };
    auto ca = [&](const Var& in) {
      AttentionOutput a = layer.multihead_attn.attend(in, cache[i].cross, cross_mask);
      if (cross_w) cross_w->push_back(a.weights);
      return a.output;
    };
    h = layer.forward_with(h, sa, ca);
  }
  return norm.forward(h);
}

std::vector<LayerCache> select_rows(const std::vector<LayerCache>& cache, const std::vector<int64_t>& rows) {
  auto pick = [&](const KeysValues& kv) {  // (B h, t, d_k) -> (K h, t, d_k): sequence r's rows r h .. r h + h - 1
    if (!kv.keys.defined()) return KeysValues{};
    std::vector<int64_t> head_rows;
    for (int64_t r : rows)
      for (int64_t i = 0; i < kv.heads; ++i) head_rows.push_back(r * kv.heads + i);
    return KeysValues{index_select(kv.keys, head_rows), index_select(kv.values, head_rows), kv.heads};
  };
  std::vector<LayerCache> out;
  for (const LayerCache& c : cache) out.push_back({pick(c.self), pick(c.cross)});
  return out;
}

}  // namespace heed
