// The circuit scores of models/analysis/circuits.h on models whose answer is known: a head built to copy
// (+1) or to suppress (-1); the small d_head x d_head matrix against the full V x V OV circuit;
// composition of aligned and of orthogonal heads, its scale invariance, and the random baseline
// where it is exact (d_head = D = 1); a forward pass taken apart per head that adds back up to the
// model's own; direct logit attribution that adds up, with the direct path of the embeddings and
// biases, to the mean logit of the correct token; the SVG of the scores (viz/score_grid.h). tests/models/ch14_circuits_torch_test.cpp holds every
// score equal to PyTorch's.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "models/analysis/circuits.h"
#include "tensor/eigen.h"
#include "tensor/ops.h"
#include "tests/support/precision.h"
#include "tests/support/xml_check.h"
#include "viz/score_grid.h"

using namespace heed;
using heed::test::tol;

namespace {

ModelConfig config(bool attention_only, bool norm_first, const std::string& positions, bool tied, int64_t heads = 2,
                   int64_t embed = 8) {
  ModelConfig c;
  c.model = "decoder";
  c.src_vocab = c.tgt_vocab = 11;
  c.embed = embed;
  c.heads = heads;
  c.layers = 2;
  c.ff = 6;
  c.max_src_len = 12;
  c.attention_only = attention_only;
  c.norm_first = norm_first;
  c.positions = positions;
  c.share_embeddings = tied;
  return c;
}

// A parameter by name (a handle: its value is the model's own).
Var param(DecoderModel& m, const std::string& name) {
  for (auto& [n, v] : m.named_parameters())
    if (n == name) return v;
  FAIL("no parameter " << name);
  return {};
}

// Two rows: BOS 3 5 3 6 7 and BOS 4 4 PAD ..., targets shifted by one.
Batch batch() { return make_batch({{{3}, {3, 5, 3, 6, 7}}, {{3}, {4, 4}}}); }

real largest(const Tensor& t) {
  real m = 0;
  for (int64_t i = 0; i < t.numel(); ++i) m = std::max(m, std::fabs(t[i]));
  return m;
}

}  // namespace

TEST_SUITE("ch14_circuits") {
  TEST_CASE("copying score: +1 for a head whose OV circuit is W_E^T W_E (it copies), -1 with W_O negated") {
    // One head of d_head = D, W_V = W_O = I, out tied to the embedding: W_U W_O W_V W_E = E E^T,
    // positive semi-definite, every eigenvalue >= 0.
    Generator gen(1);
    DecoderModel m(config(true, false, "sinusoidal", true, 1), gen);
    Var in_var = param(m, "layers.0.in_proj_weight"), out_var = param(m, "layers.0.out_proj.weight");
    Tensor& in = in_var.value();  // (3D, D)
    Tensor& out = out_var.value();  // (D, D)
    const int64_t D = 8;
    for (int64_t i = 0; i < D; ++i)
      for (int64_t j = 0; j < D; ++j) {
        in[(2 * D + i) * D + j] = i == j;
        out[i * D + j] = i == j;
      }
    CHECK(copying_score(m, 0, 0) == doctest::Approx(1).epsilon(tol(1e-13)));
    for (int64_t i = 0; i < D * D; ++i) out[i] = -out[i];
    CHECK(copying_score(m, 0, 0) == doctest::Approx(-1).epsilon(tol(1e-13)));
  }

  TEST_CASE("copying score: the small d_head x d_head matrix gives the full V x V circuit's eigenvalue positivity") {
    for (bool tied : {false, true}) {
      CAPTURE(tied);
      Generator gen(2);
      DecoderModel m(config(true, false, "learned", tied), gen);
      const Tensor embed = param(m, "embed.weight").value();                       // (V, D)
      const Tensor unembed = tied ? embed : param(m, "out.weight").value();        // (V, D)
      for (int64_t l = 0; l < 2; ++l)
        for (int64_t h = 0; h < 2; ++h) {
          const HeadCircuit c = head_circuit(m, l, h);
          const Tensor full = matmul_nt(matmul(unembed, c.ov()), embed);  // W_U W_O W_V W_E (V, V)
          const real want = eigenvalue_positivity(full), got = copying_score(m, l, h);
          INFO("layer " << l << " head " << h << ": full " << want << ", small " << got);
          CHECK(std::fabs(got - want) <= tol(1e-10));
          CHECK(std::fabs(got) <= 1);
        }
    }
  }

  TEST_CASE("composition: 1 for aligned rank-one heads, 0 for orthogonal ones, unchanged by scale") {
    // D = 4, d_head = 1. Head 1 writes along e_0 (W_OV^1 = e_0 e_1^T); head 2's query, key and
    // value read e_0 (aligned) or e_2 (orthogonal).
    auto unit = [](int64_t i) {
      Tensor t = Tensor::zeros({1, 4});
      t[i] = 1;
      return t;
    };
    HeadCircuit first{unit(3), unit(3), unit(1), transpose(unit(0))};
    HeadCircuit reads{unit(0), unit(0), unit(0), transpose(unit(2))};  // all three read e_0
    Composition c = compose(first, reads);
    CHECK(c.q == doctest::Approx(1));
    CHECK(c.k == doctest::Approx(1));
    CHECK(c.v == doctest::Approx(1));
    HeadCircuit ignores{unit(2), unit(2), unit(2), transpose(unit(2))};
    c = compose(first, ignores);
    CHECK(c.q == 0);
    CHECK(c.k == 0);
    CHECK(c.v == 0);
    // Queries read e_0 but keys e_2: Q-composition only (W_QK^2 = e_0 e_2^T, and W_QK^T W_OV = e_2 e_1^T).
    HeadCircuit queries{unit(0), unit(2), unit(2), transpose(unit(2))};
    c = compose(first, queries);
    CHECK(c.q == doctest::Approx(1));
    CHECK(c.k == 0);
    // Random heads: in [0, 1], and the same when each matrix is scaled.
    Generator gen(4);
    auto random = [&](real scale) {
      return HeadCircuit{mul(Tensor::normal({2, 6}, 0, 1, gen), scale), mul(Tensor::normal({2, 6}, 0, 1, gen), scale),
                         mul(Tensor::normal({2, 6}, 0, 1, gen), scale), mul(Tensor::normal({6, 2}, 0, 1, gen), scale)};
    };
    HeadCircuit a = random(1), b = random(1);
    Composition base = compose(a, b);
    HeadCircuit a3{mul(a.w_q, 3), mul(a.w_k, 3), mul(a.w_v, 3), mul(a.w_o, 0.5)}, b7{mul(b.w_q, 7), b.w_k, b.w_v, mul(b.w_o, 2)};
    Composition scaled = compose(a3, b7);
    CHECK(scaled.q == doctest::Approx(base.q).epsilon(tol(1e-13)));
    CHECK(scaled.k == doctest::Approx(base.k).epsilon(tol(1e-13)));
    CHECK(scaled.v == doctest::Approx(base.v).epsilon(tol(1e-13)));
    for (real s : {base.q, base.k, base.v}) {
      CHECK(s > 0);
      CHECK(s < 1);
    }
  }

  TEST_CASE("composition_scores: every pair of heads of an earlier and a later layer, in order") {
    Generator gen(3);
    ModelConfig c = config(true, false, "sinusoidal", false);
    c.layers = 3;
    DecoderModel m(c, gen);
    const std::vector<Composition> all = composition_scores(m);
    REQUIRE(all.size() == 3 * 4);  // layer pairs (0,1), (0,2), (1,2), each 2 x 2 heads
    CHECK(all[0].layer1 == 0);
    CHECK(all[0].layer2 == 1);
    CHECK(all[5].layer2 == 2);
    CHECK(all[5].head1 == 0);
    CHECK(all[5].head2 == 1);
    CHECK(all[11].layer1 == 1);
    const Composition one = compose(head_circuit(m, 0, 1), head_circuit(m, 2, 0));
    CHECK(all[6].k == one.k);
  }

  TEST_CASE("composition baseline: exactly 1 for scalars (d_head = D = 1), below 1 and the same for a seed otherwise") {
    const CompositionBaseline one = composition_baseline(1, 1, 5, 9);
    CHECK(one.q == doctest::Approx(1));
    CHECK(one.k == doctest::Approx(1));
    CHECK(one.v == doctest::Approx(1));
    const CompositionBaseline b = composition_baseline(16, 4, 50, 9), again = composition_baseline(16, 4, 50, 9);
    CHECK(heed::test::same_bits(b.q, again.q));
    CHECK(heed::test::same_bits(b.v, again.v));
    for (real s : {b.q, b.k, b.v}) {
      CHECK(s > 0);
      CHECK(s < 0.5);
    }
    CHECK_THROWS_WITH_AS(composition_baseline(16, 0, 50, 9),
                         "circuits: a baseline of 50 samples of heads of d_head 0 in D 16 (each must be at least 1)",
                         Error);
  }

  TEST_CASE("head_outputs: the heads' results plus out_proj's bias are each layer's output; the stream gives the model's logits") {
    struct Case {
      bool attention_only, norm_first, tied;
      const char* positions;
    };
    for (const Case& k : {Case{true, false, false, "sinusoidal"}, Case{true, false, true, "learned"},
                          Case{false, true, false, "learned"}, Case{false, false, false, "sinusoidal"}}) {
      CAPTURE(k.attention_only);
      CAPTURE(k.norm_first);
      Generator gen(5);
      DecoderModel m(config(k.attention_only, k.norm_first, k.positions, k.tied), gen);
      const Batch bt = batch();
      const HeadOutputs ho = head_outputs(m, bt.tgt_in, bt.batch, bt.tgt_len, bt.tgt_lengths);
      for (size_t l = 0; l < 2; ++l) {
        const Tensor& r = ho.result[l];  // (B, h, T, D)
        const Tensor bias = param(m, "layers." + std::to_string(l) + (k.attention_only ? "" : ".self_attn") +
                                         ".out_proj.bias").value();
        const Tensor& want = ho.attention_out[l];
        const int64_t B = 2, T = bt.tgt_len, D = 8;
        for (int64_t b = 0; b < B; ++b)
          for (int64_t t = 0; t < T; ++t)
            for (int64_t d = 0; d < D; ++d) {
              real s = bias[d];
              for (int64_t h = 0; h < 2; ++h) s += r[((b * 2 + h) * T + t) * D + d];
              CHECK(std::fabs(s - want[(b * T + t) * D + d]) <= tol(1e-13) * largest(want));
            }
      }
      // The stream after the last layer, through the final norm and out, is the model's forward.
      const Var normed = k.attention_only ? Var(ho.residual) : layer_norm(Var(ho.residual), param(m, "norm.weight"), param(m, "norm.bias"));
      const Tensor logits = m.logits(normed).value(), want = m.forward(bt).value();
      REQUIRE(logits.numel() == want.numel());
      for (int64_t i = 0; i < want.numel(); ++i) CHECK(heed::test::same_bits(logits[i], want[i]));
    }
  }

  TEST_CASE("direct logit attribution: the heads' shares and the direct path of embeddings and biases add up to the mean correct logit") {
    Generator gen(6);
    DecoderModel m(config(true, false, "sinusoidal", false), gen);
    const Batch bt = batch();
    const int64_t B = bt.batch, T = bt.tgt_len, D = 8;
    const std::vector<real> dla = direct_logit_attribution(m, bt.tgt_in, bt.tgt_out, B, T, bt.tgt_lengths);
    REQUIRE(dla.size() == 4);
    const HeadOutputs ho = head_outputs(m, bt.tgt_in, B, T, bt.tgt_lengths);
    const Tensor logits = m.forward(bt).value();  // (B, T, V)
    const Tensor unembed = param(m, "out.weight").value(), out_bias = param(m, "out.bias").value();
    const int64_t V = unembed.shape()[0];
    // The rest of the stream: everything the heads did not write, x_L - sum of their results.
    real mean_logit = 0, rest = 0;
    int64_t n = 0;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t t = 0; t < bt.tgt_lengths[static_cast<size_t>(b)]; ++t) {
        const int64_t y = bt.tgt_out[static_cast<size_t>(b * T + t)];
        mean_logit += logits[(b * T + t) * V + y];
        real r = out_bias[y];
        for (int64_t d = 0; d < D; ++d) {
          real x = ho.residual[(b * T + t) * D + d];
          for (size_t l = 0; l < 2; ++l)
            for (int64_t h = 0; h < 2; ++h) x -= ho.result[l][((b * 2 + h) * T + t) * D + d];
          r += unembed[y * D + d] * x;
        }
        rest += r;
        ++n;
      }
    REQUIRE(n == 9);  // 6 + 3 real positions
    real heads = 0;
    for (real s : dla) heads += s;
    CHECK(std::fabs(heads + rest / n - mean_logit / n) <= tol(1e-12) * std::fabs(mean_logit / n));
  }

  TEST_CASE("direct logit attribution refuses a post-norm model, and a batch without a target") {
    Generator gen(7);
    DecoderModel m(config(false, false, "sinusoidal", false), gen);
    const Batch bt = batch();
    CHECK_THROWS_WITH_AS(direct_logit_attribution(m, bt.tgt_in, bt.tgt_out, bt.batch, bt.tgt_len, bt.tgt_lengths),
                         doctest::Contains("a post-norm model's heads reach the logits only through their own"), Error);
    DecoderModel a(config(true, false, "sinusoidal", false), gen);
    const std::vector<int64_t> none(bt.tgt_out.size(), 0);
    CHECK_THROWS_WITH_AS(direct_logit_attribution(a, bt.tgt_in, none, bt.batch, bt.tgt_len, bt.tgt_lengths),
                         "direct logit attribution: the batch has no real position to score", Error);
  }
}

TEST_SUITE("ch14_circuits_svg") {
  TEST_CASE("svg_score_grids: well-formed, every value written and titled, labels escaped, colours by the scale") {
    ScoreGrid a{"copying <OV>", "-1 to +1", "layer", "head", {"0", "1"}, {"0", "1"}, {{-1, 0.5}, {1, std::nan("")}}, -1, 1};
    ScoreGrid b{"K-composition", "against random heads", "head (layer 0)", "head (layer 1)", {"0"}, {"0", "1"},
                {{0.1, 0.3}}, 0, 0.3, 0.1};
    const std::string svg = svg_score_grids({a, b}, "scores & more", 1);
    std::string error;
    CHECK_MESSAGE(xml_well_formed(svg, &error), error);
    CHECK(svg.find("copying &lt;OV&gt;") != std::string::npos);
    CHECK(svg.find("scores &amp; more") != std::string::npos);
    for (const char* text : {">-1.00<", ">0.50<", ">1.00<", ">n/a<", ">0.10<", ">0.30<"})
      CHECK_MESSAGE(svg.find(text) != std::string::npos, text);
    CHECK(svg.find("<title>layer 0, head 1: 0.5</title>") != std::string::npos);
    // The ends of the scale and its centre: RdBu's darkest blue and red, white, grey for n/a.
    CHECK(score_colour(-1, -1, 1) == "#2166ac");
    CHECK(score_colour(1, -1, 1) == "#b2182b");
    CHECK(score_colour(0, -1, 1) == "#f7f7f7");
    CHECK(score_colour(5, -1, 1) == "#b2182b");  // clamped
    CHECK(score_colour(0.1, 0, 0.3, 0.1) == "#f7f7f7");
    CHECK(score_colour(0, 0, 0.3, 0.1) == "#2166ac");
    CHECK(score_colour(std::nan(""), -1, 1) == "#cccccc");
    CHECK(svg.find("fill=\"#2166ac\"") != std::string::npos);
  }

  TEST_CASE("svg_score_grids: no grid, values that do not fit the labels, a scale without its centre are errors") {
    CHECK_THROWS_WITH_AS(svg_score_grids({}, "t"), "svg_score_grids: no grid to draw", Error);
    ScoreGrid bad{"x", "", "layer", "head", {"0", "1"}, {"0"}, {{1}}, -1, 1};
    CHECK_THROWS_WITH_AS(svg_score_grids({bad}, "t"),
                         "svg_score_grids: grid 'x' has 1 rows of values for 2 row and 1 column labels", Error);
    ScoreGrid scale{"y", "", "layer", "head", {"0"}, {"0"}, {{1}}, 0.5, 1};
    CHECK_THROWS_WITH_AS(svg_score_grids({scale}, "t"), doctest::Contains("which does not have lo <= centre < hi"), Error);
  }
}
