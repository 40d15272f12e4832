// Chapter 08: multiplicative attention (general, dot, scaled) and its relatives (cosine, location).
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "nn/attention.h"
#include "tensor/random.h"
#include "tests/support/precision.h"

using namespace heed;

TEST_SUITE("ch08_multiplicative_attention") {
  TEST_CASE("dot, scaled and general scores by hand") {
    Var s(Tensor({1, 2}, {1, 2}));
    Var h(Tensor({1, 3, 2}, {1, 0, 0, 1, 3, -1}));
    DotScore dot(false), scaled(true);
    CHECK(dot.score(s, dot.prepare(h)).value().to_vector() == std::vector<real>{1, 2, 1});
    Tensor e = scaled.score(s, scaled.prepare(h)).value();
    CHECK(e[1] == doctest::Approx(2 / std::sqrt(2.0)).epsilon(test::tol(1e-15)));
    Generator gen(1);
    GeneralScore general(2, 2, gen);
    general.W.weight.value() = Tensor({2, 2}, {1, 0, 0, 1});  // W = I: general becomes dot
    CHECK(equal(general.score(s, general.prepare(h)).value(), dot.score(s, h).value()));
    general.W.weight.value() = Tensor({2, 2}, {0, 2, 1, 0});  // s^T W h = 2 s0 h1 + s1 h0
    CHECK(general.score(s, general.prepare(h)).value().to_vector() == std::vector<real>{2, 2, 4});
  }

  TEST_CASE("cosine: beta times the cosine, blind to the keys' length") {
    CosineScore cos;
    Var s(Tensor({1, 2}, {3, 4}));
    Var h(Tensor({1, 3, 2}, {3, 4, 30, 40, -4, 3}));
    Tensor e = cos.score(s, cos.prepare(h)).value();
    CHECK(e[0] == doctest::Approx(1).epsilon(1e-12));
    CHECK(e[1] == doctest::Approx(1).epsilon(1e-12));
    CHECK(e[2] == doctest::Approx(0).epsilon(test::tol(1e-12)));
    cos.beta.value()[0] = 5;
    CHECK(cos.score(s, cos.prepare(h)).value()[0] == doctest::Approx(5).epsilon(1e-12));
    Var zero(Tensor::zeros({1, 1, 2}));  // a padded (zero) state scores 0, not NaN
    CHECK(cos.score(s, cos.prepare(zero)).value()[0] == 0);
  }

  TEST_CASE("location: scores from the query alone, cut to the batch's length") {
    Generator gen(2);
    LocationScore loc(2, 5, gen);
    Var s(Tensor({1, 2}, {1, -1}));
    Tensor e = loc.score(s, Var(Tensor::zeros({1, 3, 7}))).value();
    CHECK(e.shape() == Shape{1, 3});
    for (int64_t i = 0; i < 3; ++i)
      CHECK(e[i] == doctest::Approx(loc.W_a.weight.value().at({i, 0}) - loc.W_a.weight.value().at({i, 1})));
    CHECK_THROWS_WITH_AS(loc.score(s, Var(Tensor::zeros({1, 6, 2}))),
                         doctest::Contains("source length 6 exceeds the 5 positions"), Error);
  }

  TEST_CASE("gradcheck: every multiplicative score w.r.t. query, keys and parameters, with a mask" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(3);
    Tensor mask({2, 4}, {1, 1, 0, 0, 1, 1, 1, 1});
    for (const char* kind : {"general", "dot", "scaled", "cosine", "location"}) {
      auto score = make_score(kind, 3, 3, 3, 6, gen);
      Var s(Tensor::normal({2, 3}, 0, 1, gen), true), h(Tensor::normal({2, 4, 3}, 0, 1, gen), true);
      auto f = [&] {
        Attention a = attend(score->score(s, score->prepare(h)), h, mask);
        return concat({a.context, a.weights}, 1);
      };
      auto inputs = score->parameters();
      inputs.push_back(s);
      inputs.push_back(h);
      GradcheckReport r = gradcheck(f, inputs, {.name = std::string(kind) + " attention"});
      INFO(r.str());
      CHECK(r.ok);
    }
  }

  TEST_CASE("dot-style scores need equal query and key sizes") {
    Generator gen(4);
    CHECK_THROWS_WITH_AS(make_score("dot", 3, 6, 3, 6, gen), doctest::Contains("query size 3 and key size 6"), Error);
    CHECK_NOTHROW(make_score("general", 3, 6, 3, 6, gen));
  }
}
