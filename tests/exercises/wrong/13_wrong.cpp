// Chapter 13: the solutions registered for the self-test, and wrong answers its checks must reject.
#include <cmath>

#include "exercises/check/13_check.h"
// The solution, compiled here in namespace heed::solution (one translation unit for both).
#define student solution
#include "exercises/solutions/13_transformer/exercises.cpp"
#undef student

namespace heed::check {
namespace {

// The unbiased variance (divided by D - 1, torch.var's default), not LayerNorm's.
Var layer_norm_unbiased(const Var& x, const Var& weight, const Var& bias) {
  const real D = static_cast<real>(x.shape().back());
  Var xc = x - mean(x, -1, true);
  return xc / sqrt(sum(xc * xc, -1, true) / (D - 1) + 1e-5) * weight + bias;
}
// eps added to the standard deviation instead of the variance.
Var layer_norm_eps_outside(const Var& x, const Var& weight, const Var& bias) {
  Var xc = x - mean(x, -1, true);
  return xc / (sqrt(mean(xc * xc, -1, true)) + 1e-5) * weight + bias;
}
// The paper's post-norm whatever layer.norm_first says.
Var decoder_always_post_norm(const TransformerDecoderLayer& layer, const Var& x, const Tensor& self_mask,
                             const Var& memory, const Tensor& cross_mask) {
  Var h = layer.norm1.forward(x + layer.self_attn.forward(x, x, self_mask).output);
  h = layer.norm2.forward(h + layer.multihead_attn.forward(h, memory, cross_mask).output);
  return layer.norm3.forward(h + layer.feed_forward(h));
}
// The feed-forward sublayer without its residual connection.
Var decoder_no_ff_residual(const TransformerDecoderLayer& layer, const Var& x, const Tensor& self_mask,
                           const Var& memory, const Tensor& cross_mask) {
  if (layer.norm_first) {
    Var h = x + layer.self_attn.forward(layer.norm1.forward(x), layer.norm1.forward(x), self_mask).output;
    h = h + layer.multihead_attn.forward(layer.norm2.forward(h), memory, cross_mask).output;
    return layer.feed_forward(layer.norm3.forward(h));
  }
  Var h = layer.norm1.forward(x + layer.self_attn.forward(x, x, self_mask).output);
  h = layer.norm2.forward(h + layer.multihead_attn.forward(h, memory, cross_mask).output);
  return layer.norm3.forward(layer.feed_forward(h));
}
// Pre-norm with the norms in the wrong places: norm2 before the feed-forward, norm3 before the
// cross-attention.
Var decoder_norms_swapped(const TransformerDecoderLayer& layer, const Var& x, const Tensor& self_mask,
                          const Var& memory, const Tensor& cross_mask) {
  if (!layer.norm_first) return solution::decoder_layer(layer, x, self_mask, memory, cross_mask);
  Var q = layer.norm1.forward(x);
  Var h = x + layer.self_attn.forward(q, q, self_mask).output;
  h = h + layer.multihead_attn.forward(layer.norm3.forward(h), memory, cross_mask).output;
  return h + layer.feed_forward(layer.norm2.forward(h));
}
// The embeddings without the factor sqrt(D).
Var input_unscaled(const Var& table, const std::vector<int64_t>& ids, int64_t B, int64_t L) {
  const int64_t D = table.shape()[1];
  return reshape(embedding(table, ids), {B, L, D}) + Var(sinusoidal_positions(L, D));
}
// Positions counted through the batch, as if the B sequences were one of B * L tokens.
Var input_positions_across_batch(const Var& table, const std::vector<int64_t>& ids, int64_t B, int64_t L) {
  const int64_t D = table.shape()[1];
  Var e = embedding(table, ids) * std::sqrt(static_cast<real>(D));  // (B * L, D)
  return reshape(e + Var(sinusoidal_positions(B * L, D)), {B, L, D});
}

Impl13 solution() { return HEED_IMPL_13(heed::solution); }
template <class F>
std::function<std::vector<Exercise>()> with(F change) {
  return [change] {
    Impl13 impl = solution();
    change(impl);
    return exercises_13(impl);
  };
}

Register sol({"13", "exercises/13_transformer", "solution", [] { return exercises_13(solution()); }});
RegisterWrong w1({"13", "layer_norm_rows", "unbiased variance", with([](Impl13& i) { i.layer_norm_rows = layer_norm_unbiased; })});
RegisterWrong w2({"13", "layer_norm_rows", "eps outside the square root", with([](Impl13& i) { i.layer_norm_rows = layer_norm_eps_outside; })});
RegisterWrong w3({"13", "decoder_layer", "always post-norm", with([](Impl13& i) { i.decoder_layer = decoder_always_post_norm; })});
RegisterWrong w4({"13", "decoder_layer", "no residual around the feed-forward", with([](Impl13& i) { i.decoder_layer = decoder_no_ff_residual; })});
RegisterWrong w5({"13", "decoder_layer", "pre-norm's norm2 and norm3 swapped", with([](Impl13& i) { i.decoder_layer = decoder_norms_swapped; })});
RegisterWrong w6({"13", "transformer_input", "no sqrt(D)", with([](Impl13& i) { i.transformer_input = input_unscaled; })});
RegisterWrong w7({"13", "transformer_input", "positions across the batch", with([](Impl13& i) { i.transformer_input = input_positions_across_batch; })});

}  // namespace
}  // namespace heed::check
