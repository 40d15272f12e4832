// Chapter 07: additive attention, the masked softmax and the weighted sum every score shares.
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "nn/attention.h"
#include "tensor/random.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

std::vector<Var> with(std::vector<Var> params, std::initializer_list<Var> more) {
  params.insert(params.end(), more);
  return params;
}

}  // namespace

TEST_SUITE("ch07_additive_attention") {
  TEST_CASE("masked_softmax: a distribution over real positions, exact zeros elsewhere") {
    Var scores(Tensor({2, 4}, {1, 2, 3, 1000, -5, 0, 7, 7}));
    Tensor mask({2, 4}, {1, 1, 1, 0, 0, 1, 1, 1});
    Tensor w = masked_softmax(scores, mask).value();
    // Row 0: softmax of (1, 2, 3); the huge masked score takes no part.
    real z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
    CHECK(w.at({0, 0}) == doctest::Approx(std::exp(1.0) / z).epsilon(test::tol(1e-14)));
    CHECK(w.at({0, 2}) == doctest::Approx(std::exp(3.0) / z).epsilon(test::tol(1e-14)));
    CHECK(w.at({0, 3}) == 0);
    CHECK(w.at({1, 0}) == 0);
    CHECK(w.at({1, 2}) == doctest::Approx(w.at({1, 3})));
    for (int64_t b = 0; b < 2; ++b) CHECK(w.at({b, 0}) + w.at({b, 1}) + w.at({b, 2}) + w.at({b, 3}) == doctest::Approx(1));
  }

  TEST_CASE("masked_softmax: an all-masked row gives zeros and zero gradient, never NaN") {
    Var scores(Tensor({2, 3}, {1, 2, 3, 4, 5, 6}), true);
    Tensor mask({2, 3}, {0, 0, 0, 1, 0, 1});
    const Var w = masked_softmax(scores, mask);  // const: read, not changed, before backward
    for (int64_t i = 0; i < 3; ++i) CHECK(w.value().at({0, i}) == 0);
    sum(w * Var(Tensor({2, 3}, {1, 2, 3, 4, 5, 6}))).backward();
    for (real g : scores.grad().values()) CHECK(std::isfinite(g));
    for (int64_t i = 0; i < 3; ++i) CHECK(scores.grad().at({0, i}) == 0);
    CHECK(scores.grad().at({1, 1}) == 0);
    CHECK_THROWS_WITH_AS(masked_softmax(scores, Tensor::ones({3, 2})),
                         doctest::Contains("masked_softmax: scores [2, 3] and mask [3, 2]"), Error);
  }

  TEST_CASE("gradcheck: masked_softmax and attend with a mask" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(1);
    Tensor mask({3, 5}, {1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0});
    GradcheckReport r = gradcheck([&](const std::vector<Var>& v) { return masked_softmax(v[0], mask); },
                                  {Tensor::normal({3, 5}, 0, 2, gen)}, {.name = "masked_softmax"});
    INFO(r.str());
    CHECK(r.ok);
    GradcheckReport r2 = gradcheck(
        [&](const std::vector<Var>& v) {
          Attention a = attend(v[0], v[1], mask);
          return concat({a.context, a.weights}, 1);
        },
        {Tensor::normal({3, 5}, 0, 1, gen), Tensor::normal({3, 5, 4}, 0, 1, gen)}, {.name = "attend"});
    INFO(r2.str());
    CHECK(r2.ok);
  }

  TEST_CASE("attend: the context is the weighted sum of the values") {
    Var scores(Tensor({1, 3}, {0, 0, 0}));
    Var values(Tensor({1, 3, 2}, {1, 2, 3, 4, 100, 200}));
    Attention a = attend(scores, values, Tensor({1, 3}, {1, 1, 0}));
    CHECK(a.context.value().at({0, 0}) == doctest::Approx(2));  // (1 + 3) / 2: the masked 100 is unseen
    CHECK(a.context.value().at({0, 1}) == doctest::Approx(3));
    CHECK_THROWS_WITH_AS(attend(scores, Var(Tensor::zeros({1, 4, 2})), Tensor::ones({1, 3})),
                         doctest::Contains("attend: scores [1, 3] and values [1, 4, 2]"), Error);
  }

  TEST_CASE("additive score: v^T tanh(W1 h + W2 s) by hand") {
    Generator gen(2);
    AdditiveScore att(2, 3, 2, gen);
    att.W1.weight.value() = Tensor({2, 3}, {1, 0, 0, 0, 1, 0});  // W1 h = (h0, h1)
    att.W2.weight.value() = Tensor({2, 2}, {0, 1, 1, 0});        // W2 s = (s1, s0)
    att.v.weight.value() = Tensor({1, 2}, {1, -2});
    Var s(Tensor({1, 2}, {0.3, -0.1}));
    Var h(Tensor({1, 2, 3}, {0.5, 0.2, 9, -0.4, 0.1, 9}));
    Tensor e = att.score(s, att.prepare(h)).value();
    CHECK(e.shape() == Shape{1, 2});
    CHECK(e[0] == doctest::Approx(std::tanh(0.5 - 0.1) - 2 * std::tanh(0.2 + 0.3)).epsilon(test::tol(1e-14)));
    CHECK(e[1] == doctest::Approx(std::tanh(-0.4 - 0.1) - 2 * std::tanh(0.1 + 0.3)).epsilon(test::tol(1e-14)));
    auto names = att.named_parameters();
    REQUIRE(names.size() == 3);
    CHECK(names[0].first == "v.weight");  // nn.Linear(A, 1, bias=False), registered first
    CHECK(names[1].first == "W1.weight");
    CHECK(names[2].first == "W2.weight");
  }

  TEST_CASE("gradcheck: additive score w.r.t. query, keys and every parameter, through attend" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(3);
    AdditiveScore att(3, 4, 5, gen);
    Var s(Tensor::normal({2, 3}, 0, 1, gen), true), h(Tensor::normal({2, 4, 4}, 0, 1, gen), true);
    Tensor mask({2, 4}, {1, 1, 1, 0, 1, 1, 1, 1});
    auto f = [&] {
      Attention a = attend(att.score(s, att.prepare(h)), h, mask);
      return concat({a.context, a.weights}, 1);
    };
    GradcheckReport r = gradcheck(f, with(att.parameters(), {s, h}), {.name = "additive attention"});
    INFO(r.str());
    CHECK(r.ok);
  }

  TEST_CASE("additive score errors name the shapes") {
    Generator gen(4);
    AdditiveScore att(3, 4, 5, gen);
    CHECK_THROWS_WITH_AS(att.score(Var(Tensor::zeros({2, 2})), att.prepare(Var(Tensor::zeros({2, 6, 4})))),
                         doctest::Contains("additive attention: query [2, 2]"), Error);
    CHECK_THROWS_WITH_AS(make_score("hopfield", 2, 2, 2, 2, gen), doctest::Contains("unknown score 'hopfield'"), Error);
  }
}
