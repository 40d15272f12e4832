// Chapters 07-08: the attention decoders inside the whole seq2seq model.
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "models/seq2seq.h"
#include "nn/loss.h"
#include "tests/support/model_checks.h"
#include "tests/support/model_fixtures.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

using test::two_sequences;

ModelConfig tiny(const std::string& model, const std::string& cell = "gru", bool bidirectional = false) {
  ModelConfig c = test::tiny_rnn(model, cell);
  c.bidirectional = bidirectional;
  return c;
}

const char* kAttentionModels[] = {"additive", "general", "dot", "scaled", "cosine", "location"};

}  // namespace

TEST_SUITE("ch07_additive_attention") {
  TEST_CASE("gradcheck: the whole sequence loss of each attention model w.r.t. every parameter" * DOUBLE_ONLY(kGradcheckReason)) {
    for (const char* model : kAttentionModels) {
      Generator gen(1);
      Seq2Seq m(tiny(model), gen);
      Batch batch = two_sequences();
      GradcheckReport r = gradcheck([&] { return m.loss(batch); }, m.parameters(),
                                    {.name = std::string(model) + " seq2seq loss"});
      INFO(r.str());
      CHECK(r.ok);
    }
  }

  TEST_CASE("gradcheck: attention models with LSTM cells and a bidirectional encoder" * DOUBLE_ONLY(kGradcheckReason)) {
    for (auto [model, cell, bi] : {std::tuple{"additive", "lstm", true}, {"general", "gru", true},
                                  {"general", "lstm", false}, {"additive", "rnn", false}}) {
      Generator gen(2);
      Seq2Seq m(tiny(model, cell, bi), gen);
      Batch batch = two_sequences();
      GradcheckReport r = gradcheck([&] { return m.loss(batch); }, m.parameters(),
                                    {.name = std::string(model) + ", " + cell + (bi ? ", bidirectional" : "")});
      INFO(r.str());
      CHECK(r.ok);
    }
  }

  TEST_CASE("padding: each attention model gives a sequence the same outputs and gradients alone or padded") {
    for (const char* model : kAttentionModels)
      for (bool bi : {false, true}) {
        if (bi && (std::string(model) == "dot" || std::string(model) == "scaled" || std::string(model) == "cosine"))
          continue;  // these compare s_t (H) with h_i (2H): refused by ModelConfig::validate
        INFO("model " << std::string(model) << (bi ? ", bidirectional" : ""));
        Generator gen(3);
        Seq2Seq m(tiny(model, "gru", bi), gen);
        test::check_padding_invariance(m, {{5, 3, 6}, {6, 3, 5}}, {{3, 4, 5, 6, 3}, {3, 6, 5, 4, 3}});
      }
  }

  TEST_CASE("decoding returns every step's attention: distributions over the real positions only") {
    for (const char* model : kAttentionModels) {
      Generator gen(4);
      Seq2Seq m(tiny(model), gen);
      Batch batch = two_sequences();  // the second source has 2 real positions of 4
      Decoded d = m.greedy(batch, 5);
      REQUIRE(d.attention.size() == 2);
      for (int64_t b = 0; b < 2; ++b) {
        REQUIRE(d.attention[b].size() == 5);
        for (const auto& row : d.attention[b]) {
          REQUIRE(row.size() == 4);
          real total = 0;
          for (real w : row) total += w;
          CHECK(total == doctest::Approx(1).epsilon(test::tol(1e-12)));
          if (b == 1) {
            CHECK(row[2] == 0);  // padding: exactly zero weight
            CHECK(row[3] == 0);
          }
        }
      }
    }
    Generator gen(5);
    Seq2Seq plain(tiny("plain"), gen);
    CHECK(plain.greedy(two_sequences(), 3).attention.empty());
  }

  TEST_CASE("a model's name resolves once to its kind: eight names, eight kinds, five of them Luong's") {
    const std::vector<std::pair<std::string, ModelKind>> names = {
        {"plain", ModelKind::kPlain},   {"additive", ModelKind::kAdditive}, {"general", ModelKind::kGeneral},
        {"dot", ModelKind::kDot},       {"scaled", ModelKind::kScaled},     {"cosine", ModelKind::kCosine},
        {"location", ModelKind::kLocation}, {"transformer", ModelKind::kTransformer}};
    int luong = 0;
    for (const auto& [name, kind] : names) {
      CHECK(model_kind(name) == kind);
      ModelConfig c;
      c.model = name;
      CHECK(c.kind() == kind);
      luong += is_luong(kind);
    }
    CHECK(luong == 5);
    CHECK_FALSE(is_luong(ModelKind::kAdditive));
    CHECK_THROWS_WITH_AS(model_kind("Additive"), "model config: unknown model 'Additive' (choose plain, additive, general, "
                         "dot, scaled, cosine, location, transformer or decoder)", Error);
  }

  TEST_CASE("model configurations are validated with clear messages") {
    Generator gen(6);
    CHECK_THROWS_WITH_AS(Seq2Seq(tiny("perceiver"), gen), doctest::Contains("unknown model 'perceiver'"), Error);
    CHECK_THROWS_WITH_AS(Seq2Seq(tiny("dot", "gru", true), gen), doctest::Contains("sizes differ"), Error);
    ModelConfig c = tiny("additive");
    c.hidden = 0;
    CHECK_THROWS_WITH_AS(Seq2Seq(c, gen), doctest::Contains("hidden is 0"), Error);
    std::map<std::string, std::string> meta = tiny("general", "lstm", true).to_metadata();
    ModelConfig back = ModelConfig::from_metadata(meta);
    CHECK(back.model == "general");
    CHECK(back.cell == "lstm");
    CHECK(back.bidirectional);
    meta["hidden"] = "12x";
    CHECK_THROWS_WITH_AS(ModelConfig::from_metadata(meta), doctest::Contains("'hidden': '12x' is not a whole number"), Error);
  }
}
