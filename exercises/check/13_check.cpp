// Chapter 13's checks: layer_norm_rows against the library's layer_norm (nn/layer_norm.h) on rows
// with a spread, a constant row (variance 0: eps alone keeps it finite), a row of tiny variance
// (where eps inside or outside the square root differ) and D = 1, then a gradient check, and
// rows of D past 64 drawn per seed against the library's values and gradients;
// decoder_layer against TransformerDecoderLayer::forward, post-norm and pre-norm, on a batch with
// padded sources and targets (S != T) and on a batch of one position, its norms given weights and
// biases away from 1 and 0 so that one norm used for another shows; transformer_input against the
// sum written out element by element (table row times sqrt(D) plus the sinusoidal row of its
// position) on two sequences with a repeated id, then a gradient check with respect to the table.
#include <array>
#include <cmath>

#include "exercises/13_transformer/exercises.h"
#include "exercises/check/13_check.h"
#include "nn/layer_norm.h"
#include "nn/positions.h"
#include "nn/transformer_attention.h"

namespace heed::check {

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
const ForbiddenCalls kForbidden13 = {
    {"layer_norm_rows", {"heed::layer_norm", "heed::LayerNorm"}},
    {"decoder_layer", {"heed::TransformerDecoderLayer::forward", "heed::TransformerDecoder", "heed::TransformerCore"}},
    {"transformer_input", {"heed::TransformerCore", "heed::TransformerSeq2Seq", "heed::Seq2Seq"}},
};

namespace {

// (B, n) with 1 at the first lengths[b] positions of row b.
Tensor padding(const std::vector<int64_t>& lengths, int64_t n) {
  const int64_t B = static_cast<int64_t>(lengths.size());
  Tensor p = Tensor::zeros({B, n});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < lengths[b]; ++t) p[b * n + t] = 1;
  return p;
}

}  // namespace

std::vector<Exercise> exercises_13(const Impl13& impl) {
  return {
      {"layer_norm_rows",
       [impl] {
         Generator gen(seed(1301));
         for (auto [R, D] : {std::array<int64_t, 2>{4, 5}, {3, 1}}) {
           Tensor x = random({2, R, D}, gen, -3, 3);
           if (D > 1)
             for (int64_t f = 0; f < D; ++f) {
               x[f] = 0.7;                                  // row 0: constant, variance 0
               x[D + f] = 1e-3 * static_cast<real>(f % 2);  // row 1: variance 2.4e-7, below eps
             }
           Tensor w = random({D}, gen, 0.5, 2), b = random({D}, gen, -1, 1);
           const std::string in = describe("x", x) + "\n  " + describe("weight", w) + "\n  " + describe("bias", b);
           expect_close(impl.layer_norm_rows(Var(x), Var(w), Var(b)).value(), layer_norm(Var(x), Var(w), Var(b)).value(),
                        "layer_norm_rows", in, 1e-10, 1e-12);
         }
         Tensor x = random({3, 4}, gen, -2, 2), w = random({4}, gen, 0.5, 2), b = random({4}, gen);
         expect_gradcheck("layer_norm_rows", [&](const std::vector<Var>& v) { return impl.layer_norm_rows(v[0], v[1], v[2]); },
                          {x, w, b}, describe("x", x) + "\n  " + describe("weight", w) + "\n  " + describe("bias", b));
         // A larger one, drawn per seed (check.h, odd_size): rows of D past 64, values and
         // gradients against the library's layer_norm.
         {
           const int64_t D = odd_size(gen, 65, 99);
           Tensor x = random({odd_size(gen, 3, 9), odd_size(gen, 13, 49), D}, gen, -3, 3);
           Tensor w = random({D}, gen, 0.5, 2), b = random({D}, gen);
           expect_same_as("layer_norm_rows",
                          [&](const std::vector<Var>& v) { return impl.layer_norm_rows(v[0], v[1], v[2]); },
                          [](const std::vector<Var>& v) { return layer_norm(v[0], v[1], v[2]); }, {x, w, b},
                          describe("x", x) + ", weight and bias random", gen);
         }
       }},
      {"decoder_layer",
       [impl] {
         Generator gen(seed(1302));
         struct Case { int64_t B, T, S, D, heads, ff; std::vector<int64_t> tgt_len, src_len; };
         for (const Case& c : {Case{2, 3, 4, 8, 2, 16, {3, 2}, {4, 2}}, Case{1, 1, 2, 4, 1, 8, {1}, {2}}}) {
           for (bool norm_first : {false, true}) {
             TransformerDecoderLayer layer(LayerSizes{c.D, c.heads, c.ff, norm_first}, gen);
             for (LayerNorm* n : {&layer.norm1, &layer.norm2, &layer.norm3}) {
               n->weight.value() = random({c.D}, gen, 0.5, 2);
               n->bias.value() = random({c.D}, gen, -1, 1);
             }
             Tensor x = random({c.B, c.T, c.D}, gen, -2, 2), memory = random({c.B, c.S, c.D}, gen, -2, 2);
             Tensor self_mask = key_mask(padding(c.tgt_len, c.T), c.T, true);    // (B, T, T) causal
             Tensor cross_mask = key_mask(padding(c.src_len, c.S), c.T, false);  // (B, T, S)
             const std::string in = std::string(norm_first ? "pre-norm" : "post-norm") + " layer, D " +
                                    std::to_string(c.D) + ", " + std::to_string(c.heads) + " heads, ff " +
                                    std::to_string(c.ff) + "\n  " + describe("x", x) + "\n  " +
                                    describe("memory", memory) + "\n  " + describe("cross_mask", cross_mask);
             expect_close(impl.decoder_layer(layer, Var(x), self_mask, Var(memory), cross_mask).value(),
                          layer.forward(Var(x), self_mask, Var(memory), cross_mask).value(),
                          std::string("decoder_layer (") + (norm_first ? "pre-norm" : "post-norm") + ")", in, 1e-10,
                          1e-12);
           }
         }
       }},
      {"transformer_input",
       [impl] {
         Generator gen(seed(1303));
         const int64_t V = 5, D = 6, B = 2, L = 4;
         Tensor table = random({V, D}, gen, -1, 1);
         const std::vector<int64_t> ids = {3, 1, 4, 1, 0, 2, 2, 4};  // row 0: 3 1 4 1, row 1: 0 2 2 4
         Tensor P = sinusoidal_positions(L, D);
         Tensor expected = Tensor::zeros({B, L, D});
         for (int64_t b = 0; b < B; ++b)
           for (int64_t p = 0; p < L; ++p)
             for (int64_t f = 0; f < D; ++f)
               expected.at({b, p, f}) = table.at({ids[b * L + p], f}) * std::sqrt(static_cast<real>(D)) + P.at({p, f});
         const std::string in = describe("table", table) + "\n  ids 3 1 4 1 | 0 2 2 4 (B 2, L 4)";
         expect_close(impl.transformer_input(Var(table), ids, B, L).value(), expected, "transformer_input", in, 1e-10, 1e-12);
         expect_gradcheck("transformer_input (gradient with respect to the table)",
                          [&](const std::vector<Var>& v) { return impl.transformer_input(v[0], ids, B, L); }, {table}, in);
       }},
  };
}

static Register reg({"13", "exercises/13_transformer", "student", [] { return exercises_13(HEED_IMPL_13(heed::student)); }, kForbidden13});

}  // namespace heed::check
