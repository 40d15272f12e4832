// The layers of Vaswani et al. 2017 with the parameters, names and math of torch.nn.Transformer
// (batch_first, relu, post-norm or pre-norm, final norms), so a state_dict carries over:
//
//   encoder layer, post-norm (the paper)      encoder layer, pre-norm (norm_first)
//     x = norm1(x + SA(x))                      x = x + SA(norm1(x))
//     x = norm2(x + FF(x))                      x = x + FF(norm2(x))
//   decoder layer, post-norm                  decoder layer, pre-norm
//     x = norm1(x + SA_causal(x))               x = x + SA_causal(norm1(x))
//     x = norm2(x + CA(x, memory))              x = x + CA(norm2(x), memory)
//     x = norm3(x + FF(x))                      x = x + FF(norm3(x))
//   FF(x) = linear2(relu(linear1(x)))  position-wise: the same two layers at every position
//
// SA is self-attention, CA cross-attention (queries from the decoder, keys and values from the
// encoder's output, "memory"). Dropout (p = 0 by default) is applied where PyTorch applies it:
// to each sublayer's output before the residual sum, inside FF after the relu, and to the
// attention weights. A stack is N layers and a final LayerNorm ("norm"), which nn.Transformer
// always has. Masks are (B, T, S) with 1 = may attend (see key_mask).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nn/layer_norm.h"
#include "nn/linear.h"
#include "nn/transformer_attention.h"

namespace heed {

// Submodules named "0", "1", ... as torch.nn.ModuleList.
template <class Layer>
class LayerList : public Module {
 public:
  template <class... Args>
  void add(Args&&... args) {
    items_.push_back(std::make_unique<Layer>(std::forward<Args>(args)...));
    register_module(std::to_string(items_.size() - 1), *items_.back());
  }
  const Layer& operator[](size_t i) const { return *items_[i]; }
  Layer& operator[](size_t i) { return *items_[i]; }
  size_t size() const { return items_.size(); }

 private:
  std::vector<std::unique_ptr<Layer>> items_;
};

// Sizes shared by every layer of a Transformer.
struct LayerSizes {
  int64_t d_model = 32, heads = 4, ff = 64;
  bool norm_first = false;
};

// What one layer keeps between the steps of step-by-step decoding (models/transformer.h,
// models/decoder_model.h): its self-attention's keys and values of every position so far, and
// for a decoder layer of the encoder-decoder its cross-attention's keys and values of the
// memory, projected once per source. A causal layer's position s reads nothing after s, so
// neither changes when a position is added: a step projects the new position alone.
struct LayerCache {
  KeysValues self;   // (B h, t, d_k) each; undefined before the first step
  KeysValues cross;  // (B h, S, d_k) each; undefined for a decoder-only layer
};
// The chosen sequences of every layer's cache, in order (beam search's hypotheses): rows index B,
// and each brings its h rows of keys and values.
std::vector<LayerCache> select_rows(const std::vector<LayerCache>& cache, const std::vector<int64_t>& rows);

// A sublayer's attention as the layers' formulas use it: sa(in) is what the attention writes at
// the queries `in`, its dropout applied. forward() passes attention over `in` itself (or the
// memory); decoding one position at a time passes attention over the layer's cache.
using Attend = std::function<Var(const Var&)>;

class TransformerEncoderLayer : public Module {
 public:
  // linear1 and linear2 (and the attention's weights) xavier_uniform as nn.Transformer leaves
  // them; linear biases as nn.Linear; norms 1 and 0. REQUIRES as TransformerAttention, ff >= 1.
  TransformerEncoderLayer(const LayerSizes& sizes, Generator& gen);

  // x (B, S, D), mask (B, S, S) -> (B, S, D); the attention weights (B, h, S, S) into *weights.
  // Through hook points named prefix + hook_resid_pre ... (docs/hooks.md) when hooks is given.
  Var forward(const Var& x, const Tensor& mask, const Dropout& drop = {}, Var* weights = nullptr,
              Hooks* hooks = nullptr, const std::string& prefix = {}) const;
  // The layer's formula around another self-attention (see Attend): forward(x, mask) passes
  // self_attn over `in` itself; a decoder-only model decoding one position at a time passes
  // self_attn.step on its cache (models/decoder_model.cpp).
  Var forward_with(const Var& x, const Attend& sa, const Dropout& drop = {}, Hooks* hooks = nullptr,
                   const std::string& prefix = {}) const;
  // (..., D) -> (..., D); hook points prefix + mlp.hook_pre (..., F), mlp.hook_post (..., F).
  Var feed_forward(const Var& x, const Dropout& drop = {}, Hooks* hooks = nullptr, const std::string& prefix = {}) const;

  TransformerAttention self_attn;
  Linear linear1, linear2;  // (F, D), (D, F)
  LayerNorm norm1, norm2;
  bool norm_first;

 private:
  // forward_with through the hook points prefix + hook_resid_pre ... (docs/hooks.md).
  Var forward_hooked(const Var& x, const Attend& sa, const Dropout& drop, Hooks& hooks, const std::string& prefix) const;
};

class TransformerDecoderLayer : public Module {
 public:
  TransformerDecoderLayer(const LayerSizes& sizes, Generator& gen);

  // x (B, T, D), self_mask (B, T, T), memory (B, S, D), cross_mask (B, T, S) -> (B, T, D). The
  // weights of self- and cross-attention, (B, h, T, T) and (B, h, T, S), into *self_w and *cross_w.
  Var forward(const Var& x, const Tensor& self_mask, const Var& memory, const Tensor& cross_mask,
              const Dropout& drop = {}, Var* self_w = nullptr, Var* cross_w = nullptr, Hooks* hooks = nullptr,
              const std::string& prefix = {}) const;
  // The layer's formula around another self-attention sa and cross-attention ca (see Attend):
  // forward() passes attention over x and over the memory; TransformerDecoder::step passes
  // attention over the layer's cache.
  Var forward_with(const Var& x, const Attend& sa, const Attend& ca, const Dropout& drop = {}, Hooks* hooks = nullptr,
                   const std::string& prefix = {}) const;
  Var feed_forward(const Var& x, const Dropout& drop = {}, Hooks* hooks = nullptr, const std::string& prefix = {}) const;

  TransformerAttention self_attn, multihead_attn;  // multihead_attn: the cross-attention
  Linear linear1, linear2;
  LayerNorm norm1, norm2, norm3;
  bool norm_first;
};

class TransformerEncoder : public Module {
 public:
  // REQUIRES: num_layers >= 1.
  TransformerEncoder(int64_t num_layers, const LayerSizes& sizes, Generator& gen);

  // x (B, S, D), mask (B, S, S) -> norm(layers(x)) (B, S, D); each layer's weights into *weights.
  // Hook points prefix + blocks.L.* per layer and prefix + ln_final.hook_normalized.
  Var forward(const Var& x, const Tensor& mask, const Dropout& drop = {}, std::vector<Var>* weights = nullptr,
              Hooks* hooks = nullptr, const std::string& prefix = {}) const;

  LayerList<TransformerEncoderLayer> layers;
  LayerNorm norm;
};

class TransformerDecoder : public Module {
 public:
  TransformerDecoder(int64_t num_layers, const LayerSizes& sizes, Generator& gen);

  // Teacher forced: x (B, T, D), self_mask (B, T, T) (causal), memory (B, S, D), cross_mask
  // (B, T, S) -> (B, T, D). Each layer's weights into *self_w and *cross_w when given.
  Var forward(const Var& x, const Tensor& self_mask, const Var& memory, const Tensor& cross_mask,
              const Dropout& drop = {}, std::vector<Var>* self_w = nullptr, std::vector<Var>* cross_w = nullptr,
              Hooks* hooks = nullptr, const std::string& prefix = {}) const;

  // Step-by-step decoding. start: a cache per layer, holding the keys and values of memory
  // (B, S, D) for its cross-attention, projected here once. step: one new position x (B, 1, D)
  // after those whose keys and values `cache` holds (each layer's self gets x's appended).
  // A causal decoder's earlier positions do not depend on later ones, so this gives the last row
  // of forward() over the whole prefix, at the cost of one position. cross_mask (B, 1, S) ->
  // (B, 1, D); each layer's cross-attention weights (B, h, 1, S) into *cross_w when given.
  std::vector<LayerCache> start(const Var& memory) const;
  Var step(const Var& x, std::vector<LayerCache>& cache, const Tensor& cross_mask,
           std::vector<Var>* cross_w = nullptr) const;

  LayerList<TransformerDecoderLayer> layers;
  LayerNorm norm;
};

}  // namespace heed
