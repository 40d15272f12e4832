// Chapter 13 (the Transformer): its pieces -- LayerNorm, dropout, attention across two
// sequences, the feed-forward, encoder and decoder layers (post-norm and pre-norm) and their
// stacks -- each checked by hand, by central differences and by a property.
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "nn/dropout.h"
#include "nn/layer_norm.h"
#include "nn/self_attention.h"
#include "nn/transformer_layers.h"
#include "tensor/random.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

// Every parameter from N(0, 0.5^2), so that biases and norms are not at their identity starts.
void randomize(Module& m, Generator& gen) {
  for (auto& [name, p] : m.named_parameters()) p.value() = Tensor::normal(p.shape(), 0, 0.5, gen);
}

void check_grad(const GradcheckReport& r) {
  INFO(r.str());
  CHECK(r.ok);
}

// (B, L) with 1 at the first lengths[b] positions.
Tensor padding_of(const std::vector<int64_t>& lengths, int64_t L) {
  Tensor p = Tensor::zeros({static_cast<int64_t>(lengths.size()), L});
  for (size_t b = 0; b < lengths.size(); ++b)
    for (int64_t i = 0; i < lengths[b]; ++i) p[static_cast<int64_t>(b) * L + i] = 1;
  return p;
}

Tensor rows_of(const Tensor& t, int64_t b, int64_t start, int64_t stop) {  // t (B, L, D) -> (stop - start, D)
  const int64_t L = t.shape()[1], D = t.shape()[2];
  std::vector<real> v(t.data() + (b * L + start) * D, t.data() + (b * L + stop) * D);
  return Tensor({stop - start, D}, v);
}

void check_close(const Tensor& got, const Tensor& want, real tol) {
  REQUIRE(got.shape() == want.shape());
  for (int64_t i = 0; i < want.numel(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    CHECK(std::fabs(got[i] - want[i]) <= tol);
  }
}

}  // namespace

TEST_SUITE("ch13_transformer_layers") {
  TEST_CASE("layer_norm: a row by hand, PyTorch's biased variance and eps" * DOUBLE_ONLY(kPytorchFp64Reason)) {
    // Row 1 2 3 4: mean 2.5, biased variance 1.25; y = (x - 2.5) / sqrt(1.25 + 1e-5) * w + b.
    Var x(Tensor({1, 4}, {1, 2, 3, 4}));
    Var w(Tensor({4}, {1, 2, 1, 1})), b(Tensor({4}, {0, 0, 0, 10}));
    Tensor y = layer_norm(x, w, b).value();
    const real s = std::sqrt(1.25 + 1e-5);
    check_close(y, Tensor({1, 4}, {real(-1.5) / s, 2 * real(-0.5) / s, real(0.5) / s, real(1.5) / s + 10}), 1e-15);
    LayerNorm ln(4);
    CHECK(ln.named_parameters()[0].first == "weight");
    CHECK(equal(ln.weight.value(), Tensor::ones({4})));
    CHECK(equal(ln.bias.value(), Tensor::zeros({4})));
    CHECK(ln.eps() == 1e-5);
  }

  TEST_CASE("layer_norm: every row alone has mean 0 and variance 1 - eps-ish; a constant row gives the bias") {
    Generator gen(3);
    Var x(Tensor::normal({2, 3, 5}, 1, 3, gen));
    LayerNorm ln(5);
    Tensor y = ln.forward(x).value();
    for (int64_t r = 0; r < 6; ++r) {
      real m = 0, v = 0;
      for (int64_t i = 0; i < 5; ++i) m += y[r * 5 + i] / 5;
      for (int64_t i = 0; i < 5; ++i) v += (y[r * 5 + i] - m) * (y[r * 5 + i] - m) / 5;
      CHECK(std::fabs(m) < test::tol(1e-14));
      CHECK(std::fabs(v - 1) < 1e-4);  // var / (var + eps), var ~ 9
    }
    Var c(Tensor::full({1, 5}, 7));  // zero variance: eps keeps it finite
    ln.bias.value() = Tensor({5}, {1, 2, 3, 4, 5});
    CHECK(equal(ln.forward(c).value(), Tensor({1, 5}, {1, 2, 3, 4, 5})));
  }

  TEST_CASE("gradcheck: layer_norm w.r.t. input, weight and bias" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(4);
    check_grad(gradcheck([](const std::vector<Var>& v) { return layer_norm(v[0], v[1], v[2]); },
                         {Tensor::normal({2, 3, 4}, 0, 1, gen), Tensor::normal({4}, 1, 0.5, gen),
                          Tensor::normal({4}, 0, 0.5, gen)},
                         {.name = "layer_norm"}));
  }

  TEST_CASE("layer_norm refuses shapes that do not fit") {
    Var x(Tensor::zeros({2, 4}));
    CHECK_THROWS_WITH_AS(layer_norm(x, Var(Tensor::ones({3})), Var(Tensor::zeros({3}))),
                         doctest::Contains("layer_norm: input [2, 4], weight [3] and bias [3]"), Error);
    CHECK_THROWS_WITH_AS(LayerNorm(0), doctest::Contains("LayerNorm: dim 0"), Error);
  }

  TEST_CASE("dropout: p = 0 is the identity, a seed fixes the mask, survivors scaled by 1 / (1 - p)") {
    Generator gen(5);
    Var x(Tensor::normal({4, 50}, 0, 1, gen), true);
    Generator g0(1);
    CHECK(dropout(x, 0, g0).node() == x.node());  // nothing drawn, nothing recorded
    Generator g1(7), g2(7);
    Tensor a = dropout(x, 0.25, g1).value(), b = dropout(x, 0.25, g2).value();
    CHECK(equal(a, b));
    int64_t zeros = 0;
    for (int64_t i = 0; i < a.numel(); ++i) {
      if (a[i] == 0) ++zeros;
      else CHECK(a[i] == x.value()[i] * static_cast<real>(1 / 0.75));
    }
    CHECK(zeros > 25);  // 200 draws at p = 0.25: 50 expected
    CHECK(zeros < 75);
    Generator g3(7);
    CHECK(equal(dropout(x, 1, g3).value(), Tensor::zeros({4, 50})));
    CHECK_THROWS_WITH_AS(dropout(x, 1.5, g3), doctest::Contains("dropout: p is 1.5"), Error);
    Dropout off{0.5, nullptr};  // evaluation: no generator
    CHECK(off.apply(x).node() == x.node());
  }

  TEST_CASE("gradcheck: dropout (the same mask on every call)" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(6);
    check_grad(gradcheck(
        [](const std::vector<Var>& v) {
          Generator g(11);
          return dropout(v[0], 0.4, g);
        },
        {Tensor::normal({3, 5}, 0, 1, gen)}, {.name = "dropout"}));
  }

  TEST_CASE("key_mask: padded keys and, when causal, the future are hidden") {
    Tensor pad = padding_of({3, 2}, 3);
    Tensor m = key_mask(pad, 2, false);
    CHECK(equal(m, Tensor({2, 2, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0})));
    Tensor c = key_mask(pad, 3, true);
    CHECK(equal(c, Tensor({2, 3, 3}, {1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0})));
  }

  TEST_CASE("cross-attention: padded source keys get exactly 0 and their values never matter") {
    Generator gen(8);
    TransformerAttention att(6, 2, gen);
    randomize(att, gen);
    Var q(Tensor::normal({2, 3, 6}, 0, 1, gen)), kv(Tensor::normal({2, 4, 6}, 0, 1, gen));
    Tensor mask = key_mask(padding_of({4, 2}, 4), 3, false);
    AttentionOutput a = att.forward(q, kv, mask);
    CHECK(a.weights.shape() == Shape{2, 2, 3, 4});
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t i = 0; i < 3; ++i) {
        const real* w = a.weights.value().data() + ((1 * 2 + h) * 3 + i) * 4;
        CHECK(w[2] == 0);
        CHECK(w[3] == 0);
        CHECK(std::fabs(w[0] + w[1] - 1) < 1e-15);
      }
    Tensor changed = kv.value();
    for (int64_t k = 0; k < 6; ++k) changed[(1 * 4 + 3) * 6 + k] = 1e6;  // a padded source position
    CHECK(equal(att.forward(q, Var(changed), mask).output.value(), a.output.value()));
  }

  TEST_CASE("TransformerAttention on one sequence equals chapter 12's MultiHeadAttention on the same weights") {
    Generator gen(9);
    MultiHeadAttention mha(6, 3, gen);
    randomize(mha, gen);
    TransformerAttention att(6, 3, gen);
    // Pack W_q, W_k, W_v into in_proj as PyTorch does.
    Tensor& w = att.in_proj_weight.value();
    Tensor& b = att.in_proj_bias.value();
    int part = 0;
    for (const Linear* lin : {&mha.q_proj, &mha.k_proj, &mha.v_proj}) {
      std::copy(lin->weight.value().data(), lin->weight.value().data() + 36, w.data() + part * 36);
      std::copy(lin->bias.value().data(), lin->bias.value().data() + 6, b.data() + part * 6);
      ++part;
    }
    att.out_proj.weight.value() = mha.out_proj.weight.value();
    att.out_proj.bias.value() = mha.out_proj.bias.value();
    Var x(Tensor::normal({2, 4, 6}, 0, 1, gen));
    Tensor pad = Tensor::ones({2, 4});
    for (bool causal : {false, true}) {
      AttentionOutput want = mha.forward(x, pad, causal);
      AttentionOutput got = att.forward(x, x, key_mask(pad, 4, causal));
      check_close(got.output.value(), want.output.value(), 1e-14);
      check_close(got.weights.value(), want.weights.value(), 1e-15);
    }
    // One attention underneath: padded, with chapter 12's rule in the mask, the two layers give the
    // same bits, a padded query's zero row included (out_proj's bias is not 0). With the
    // Transformer's rule only that row differs: the padded query attends to the real keys.
    Tensor padded = padding_of({4, 2}, 4);
    for (bool causal : {false, true}) {
      CAPTURE(causal);
      AttentionOutput want = mha.forward(x, padded, causal);
      AttentionOutput got = att.forward(x, x, self_attention_mask(padded, causal));
      CHECK(equal(got.output.value(), want.output.value()));
      CHECK(equal(got.weights.value(), want.weights.value()));
      Tensor keys_only = att.forward(x, x, key_mask(padded, 4, causal)).output.value();
      CHECK(equal(rows_of(keys_only, 0, 0, 4), rows_of(want.output.value(), 0, 0, 4)));
      CHECK(equal(rows_of(keys_only, 1, 0, 2), rows_of(want.output.value(), 1, 0, 2)));
      Tensor zero_rows = rows_of(want.output.value(), 1, 2, 4), attending_rows = rows_of(keys_only, 1, 2, 4);
      for (real v : zero_rows.values()) CHECK(v == 0);
      for (real v : attending_rows.values()) CHECK(v != 0);
    }
  }

  TEST_CASE("gradcheck: cross-attention (2 heads of 3) w.r.t. query, source and every parameter, padded" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(10);
    TransformerAttention att(6, 2, gen);
    randomize(att, gen);
    Var q(Tensor::normal({2, 3, 6}, 0, 1, gen), true), kv(Tensor::normal({2, 4, 6}, 0, 1, gen), true);
    Tensor mask = key_mask(padding_of({4, 2}, 4), 3, false);
    std::vector<Var> inputs = att.parameters();
    inputs.push_back(q);
    inputs.push_back(kv);
    check_grad(gradcheck([&] { return att.forward(q, kv, mask).output; }, inputs, {.name = "cross-attention"}));
    Generator g(12);
    check_grad(gradcheck(
        [&] {
          Generator d(3);
          return att.forward(q, kv, mask, {0.3, &d}).output;
        },
        inputs, {.name = "cross-attention with dropout 0.3"}));
  }

  TEST_CASE("gradcheck: feed-forward, encoder and decoder layers, post-norm and pre-norm, padded" * DOUBLE_ONLY(kGradcheckReason)) {
    for (bool norm_first : {false, true}) {
      CAPTURE(norm_first);
      Generator gen(13);
      LayerSizes s{6, 2, 5, norm_first};
      TransformerEncoderLayer enc(s, gen);
      TransformerDecoderLayer dec(s, gen);
      randomize(enc, gen);
      randomize(dec, gen);
      Var src(Tensor::normal({2, 4, 6}, 0, 1, gen), true), tgt(Tensor::normal({2, 3, 6}, 0, 1, gen), true);
      Tensor src_pad = padding_of({4, 2}, 4), tgt_pad = padding_of({3, 2}, 3);
      Tensor enc_mask = key_mask(src_pad, 4, false), self_mask = key_mask(tgt_pad, 3, true),
             cross_mask = key_mask(src_pad, 3, false);
      std::vector<Var> ff_in = {enc.linear1.weight, enc.linear1.bias, enc.linear2.weight, enc.linear2.bias, src};
      check_grad(gradcheck([&] { return enc.feed_forward(src); }, ff_in, {.name = "feed-forward"}));
      std::vector<Var> e_in = enc.parameters();
      e_in.push_back(src);
      check_grad(gradcheck([&] { return enc.forward(src, enc_mask); }, e_in, {.name = "encoder layer"}));
      std::vector<Var> d_in = dec.parameters();
      d_in.push_back(tgt);
      d_in.push_back(src);
      check_grad(gradcheck([&] { return dec.forward(tgt, self_mask, src, cross_mask); }, d_in,
                           {.name = "decoder layer"}));
      check_grad(gradcheck(
          [&] {
            Generator d(4);
            return dec.forward(tgt, self_mask, src, cross_mask, {0.2, &d});
          },
          d_in, {.name = "decoder layer with dropout 0.2"}));
    }
  }

  TEST_CASE("gradcheck: two-layer encoder and decoder stacks with their final norms" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(14);
    LayerSizes s{4, 2, 6, false};
    TransformerEncoder enc(2, s, gen);
    TransformerDecoder dec(2, s, gen);
    randomize(enc, gen);
    randomize(dec, gen);
    Var src(Tensor::normal({2, 3, 4}, 0, 1, gen)), tgt(Tensor::normal({2, 2, 4}, 0, 1, gen));
    Tensor src_pad = padding_of({3, 1}, 3), tgt_pad = padding_of({2, 2}, 2);
    std::vector<Var> params = enc.parameters();
    for (const Var& p : dec.parameters()) params.push_back(p);
    check_grad(gradcheck(
        [&] {
          Var memory = enc.forward(src, key_mask(src_pad, 3, false));
          return dec.forward(tgt, key_mask(tgt_pad, 2, true), memory, key_mask(src_pad, 2, false));
        },
        params, {.name = "encoder-decoder stacks"}));
  }

  TEST_CASE("causal decoder: a later target position never changes an earlier output; step() equals forward()") {
    for (bool norm_first : {false, true}) {
      CAPTURE(norm_first);
      Generator gen(15);
      LayerSizes s{8, 2, 16, norm_first};
      TransformerDecoder dec(2, s, gen);
      randomize(dec, gen);
      Var memory(Tensor::normal({1, 5, 8}, 0, 1, gen));
      Tensor tgt = Tensor::normal({1, 4, 8}, 0, 1, gen);
      Tensor one = Tensor::ones({1, 4}), src = Tensor::ones({1, 5});
      Tensor full = dec.forward(Var(tgt), key_mask(one, 4, true), memory, key_mask(src, 4, false)).value();
      Tensor changed = tgt;
      for (int64_t k = 0; k < 8; ++k) changed[3 * 8 + k] += 5;  // the last position only
      Tensor other = dec.forward(Var(changed), key_mask(one, 4, true), memory, key_mask(src, 4, false)).value();
      CHECK(equal(rows_of(other, 0, 0, 3), rows_of(full, 0, 0, 3)));
      CHECK(!equal(rows_of(other, 0, 3, 4), rows_of(full, 0, 3, 4)));
      std::vector<LayerCache> cache = dec.start(memory);  // the memory's keys and values, (1, h, 5, d_k)
      for (int64_t t = 0; t < 4; ++t) {
        Var x(Tensor({1, 1, 8}, std::vector<real>(tgt.data() + t * 8, tgt.data() + (t + 1) * 8)));
        Tensor y = dec.step(x, cache, Tensor::ones({1, 1, 5})).value();
        check_close(Tensor({1, 8}, y.to_vector()), rows_of(full, 0, t, t + 1), 1e-13);
      }
      CHECK(cache[1].self.keys.shape() == Shape{2, 4, 4});  // (B h, t, d_k): every position's, once
      CHECK(cache[1].cross.keys.shape() == Shape{2, 5, 4});
    }
  }

  TEST_CASE("parameters: torch.nn.Transformer's names, shapes and starting values") {
    Generator gen(16);
    LayerSizes s{8, 2, 12, false};
    TransformerDecoder dec(1, s, gen);
    std::vector<std::string> names;
    for (auto& [n, p] : dec.named_parameters()) names.push_back(n + " " + shape_str(p.shape()));
    std::vector<std::string> want = {"layers.0.self_attn.in_proj_weight [24, 8]",
                                     "layers.0.self_attn.in_proj_bias [24]",
                                     "layers.0.self_attn.out_proj.weight [8, 8]",
                                     "layers.0.self_attn.out_proj.bias [8]",
                                     "layers.0.multihead_attn.in_proj_weight [24, 8]",
                                     "layers.0.multihead_attn.in_proj_bias [24]",
                                     "layers.0.multihead_attn.out_proj.weight [8, 8]",
                                     "layers.0.multihead_attn.out_proj.bias [8]",
                                     "layers.0.linear1.weight [12, 8]",
                                     "layers.0.linear1.bias [12]",
                                     "layers.0.linear2.weight [8, 12]",
                                     "layers.0.linear2.bias [8]",
                                     "layers.0.norm1.weight [8]",
                                     "layers.0.norm1.bias [8]",
                                     "layers.0.norm2.weight [8]",
                                     "layers.0.norm2.bias [8]",
                                     "layers.0.norm3.weight [8]",
                                     "layers.0.norm3.bias [8]",
                                     "norm.weight [8]",
                                     "norm.bias [8]"};
    CHECK(names == want);
    const TransformerDecoderLayer& l = dec.layers[0];
    auto bound = [](const Var& w) {
      real m = 0;
      for (real v : w.value().values()) m = std::max(m, std::fabs(v));
      return m;
    };
    CHECK(bound(l.self_attn.in_proj_weight) <= std::sqrt(6.0 / 32));  // xavier over (24, 8)
    CHECK(bound(l.self_attn.in_proj_weight) > 0.8 * std::sqrt(6.0 / 32));
    CHECK(bound(l.linear1.weight) <= std::sqrt(6.0 / 20));  // xavier over (12, 8)
    CHECK(equal(l.self_attn.in_proj_bias.value(), Tensor::zeros({24})));
    CHECK(equal(l.self_attn.out_proj.bias.value(), Tensor::zeros({8})));
    CHECK_THROWS_WITH_AS(TransformerEncoderLayer(LayerSizes{6, 4, 8, false}, gen),
                         doctest::Contains("Transformer layer: embed 6 and heads 4 must be positive"), Error);
    CHECK_THROWS_WITH_AS(TransformerDecoderLayer(LayerSizes{6, 3, 0, false}, gen),
                         doctest::Contains("Transformer layer: ff 0 must be positive"), Error);
    CHECK_THROWS_WITH_AS(TransformerAttention(6, 4, gen),
                         doctest::Contains("TransformerAttention: embed 6 and heads 4 must be positive"), Error);
  }
}
