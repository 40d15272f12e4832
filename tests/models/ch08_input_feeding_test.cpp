// Chapter 08: Luong's input feeding (Luong et al. 2015, section 3.3), an option of the Luong
// decoders: the cell reads [emb(y_{t-1}); h~_{t-1}], with h~_0 = 0.
#include <doctest/doctest.h>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "models/seq2seq.h"
#include "tests/support/model_fixtures.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

using test::two_sequences;

ModelConfig fed(const std::string& model, const std::string& cell = "gru") {
  ModelConfig c = test::tiny_rnn(model, cell);
  c.input_feeding = true;
  return c;
}

}  // namespace

TEST_SUITE("ch08_multiplicative_attention") {
  TEST_CASE("input feeding: gradcheck of the whole sequence loss w.r.t. every parameter" * DOUBLE_ONLY(kGradcheckReason)) {
    for (auto [model, cell] : {std::pair{"general", "gru"}, {"dot", "gru"}, {"general", "lstm"}, {"location", "rnn"}}) {
      Generator gen(4);
      Seq2Seq m(fed(model, cell), gen);
      Batch batch = two_sequences();
      GradcheckReport r = gradcheck([&] { return m.loss(batch); }, m.parameters(),
                                    {.name = std::string(model) + ", " + cell + ", input feeding"});
      INFO(r.str());
      CHECK(r.ok);
    }
  }

  TEST_CASE("input feeding: the cell reads [emb(y); h~_{t-1}], zeros before the first step") {
    Generator gen(5);
    Seq2Seq m(fed("general"), gen);
    CHECK(m.num_parameters() == fed("general").parameter_count());
    ModelConfig without = fed("general");
    without.input_feeding = false;
    // The only new parameters: the decoder cell's input weights for H more inputs (3 gates).
    CHECK(m.num_parameters() - without.parameter_count() == 3 * 4 * 4);
    NoGradGuard no_grad;
    DecoderState st = m.start(two_sequences());
    REQUIRE(st.feed.defined());
    CHECK(st.feed.shape() == Shape{2, 4});
    CHECK(equal(st.feed.value(), Tensor::zeros({2, 4})));
    StepOutput first = m.step({1, 1}, st);
    CHECK(equal(st.feed.value(), first.out.value()));  // h~_1 goes to the next step's cell
    // A second step from the same state but with h~_1 replaced by zeros comes out different:
    // the cell does read it.
    DecoderState zeroed = st;
    zeroed.feed = Var(Tensor::zeros({2, 4}));
    StepOutput with = m.step({4, 5}, st), without_feed = m.step({4, 5}, zeroed);
    CHECK_FALSE(equal(with.out.value(), without_feed.out.value()));
  }

  TEST_CASE("input feeding: refused for plain and additive, kept in checkpoint metadata only when on") {
    for (const char* model : {"plain", "additive"}) {
      ModelConfig c = fed(model);
      CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("input feeding is for Luong's models"), Error);
    }
    ModelConfig on = fed("dot");
    CHECK(on.to_metadata().at("input_feeding") == "1");
    CHECK(ModelConfig::from_metadata(on.to_metadata()).input_feeding);
    ModelConfig off = fed("dot");
    off.input_feeding = false;
    CHECK(off.to_metadata().count("input_feeding") == 0);  // older checkpoints keep their bytes
    CHECK_FALSE(ModelConfig::from_metadata(off.to_metadata()).input_feeding);
  }
}
