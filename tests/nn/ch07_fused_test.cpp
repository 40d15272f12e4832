// Chapter 07: the fused additive score and weighted sum against the composed ops they replace.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "nn/attention.h"
#include "tensor/random.h"
#include "tests/support/fused_check.h"
#include "tests/support/precision.h"

using namespace heed;

TEST_SUITE("ch07_additive_attention") {
  TEST_CASE("fused additive score equals the composed one: values and gradients, to 1e-12 relative") {
    Generator gen(31);
    for (Shape s : {Shape{1, 1, 1}, Shape{2, 3, 4}, Shape{5, 7, 16}}) {
      const std::string shape = shape_str(s);
      CAPTURE(shape);
      const int64_t B = s[0], A = s[2];
      Var prepared(Tensor::normal(s, 0, 1, gen), true), q(Tensor::normal({B, A}, 0, 1, gen), true);
      Var v(Tensor::normal({A}, 0, 1, gen), true);
      Var weights(Tensor::uniform({B, s[1]}, -1, 1, gen));
      std::vector<Var> inputs{prepared, q, v};
      std::vector<Tensor> want, got;
      Var composed = additive_score_composed(prepared, q, v);
      sum(composed * weights).backward();
      for (Var& x : inputs) want.push_back(x.grad()), x.zero_grad();
      Var fused = additive_score(prepared, q, v);
      sum(fused * weights).backward();
      for (Var& x : inputs) got.push_back(x.grad()), x.zero_grad();
      CHECK(std::string(fused.op()) == "additive_score");
      check_rel(fused.value(), composed.value(), "score");
      for (size_t i = 0; i < inputs.size(); ++i) check_rel(got[i], want[i], "gradient " + std::to_string(i));
    }
  }

  TEST_CASE("gradcheck: the fused additive score w.r.t. prepared keys, q and v" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(32);
    GradcheckReport r = gradcheck([](const std::vector<Var>& x) { return additive_score(x[0], x[1], x[2]); },
                                  {Tensor::normal({2, 3, 4}, 0, 1, gen), Tensor::normal({2, 4}, 0, 1, gen),
                                   Tensor::normal({4}, 0, 1, gen)},
                                  {.name = "additive_score"});
    INFO(r.str());
    CHECK(r.ok);
  }

  TEST_CASE("AdditiveScore::score runs the fused op; a row's scores do not depend on the others") {
    Generator gen(33);
    AdditiveScore att(3, 4, 5, gen);
    Var s(Tensor::normal({3, 3}, 0, 1, gen)), h(Tensor::normal({3, 6, 4}, 0, 1, gen));
    Var e = att.score(s, att.prepare(h));
    CHECK(std::string(e.op()) == "additive_score");
    for (int64_t b = 0; b < 3; ++b) {
      Var one = att.score(slice(s, 0, b, b + 1), att.prepare(slice(h, 0, b, b + 1)));
      CHECK(equal(one.value(), slice(e.value(), 0, b, b + 1)));
    }
  }

  TEST_CASE("weighted_sum equals the batched product it replaces: values and gradients, to 1e-12 relative" *
            DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(34);
    for (Shape s : {Shape{1, 1, 1}, Shape{2, 3, 4}, Shape{5, 7, 16}}) {
      const std::string shape = shape_str(s);
      CAPTURE(shape);
      const int64_t B = s[0], S = s[1], D = s[2];
      Var w(Tensor::uniform({B, S}, 0, 1, gen), true), values(Tensor::normal(s, 0, 1, gen), true);
      Var seed(Tensor::normal({B, D}, 0, 1, gen));
      Var composed = reshape(matmul(reshape(w, {B, 1, S}), values), {B, D});
      sum(composed * seed).backward();
      Tensor dw = w.grad(), dv = values.grad();
      w.zero_grad();
      values.zero_grad();
      Var fused = weighted_sum(w, values);
      sum(fused * seed).backward();
      CHECK(std::string(fused.op()) == "weighted_sum");
      check_rel(fused.value(), composed.value(), "context");
      check_rel(w.grad(), dw, "weights' gradient");
      check_rel(values.grad(), dv, "values' gradient");
    }
    GradcheckReport r = gradcheck([](const std::vector<Var>& x) { return weighted_sum(x[0], x[1]); },
                                  {Tensor::uniform({2, 3}, 0, 1, gen), Tensor::normal({2, 3, 4}, 0, 1, gen)},
                                  {.name = "weighted_sum"});
    INFO(r.str());
    CHECK(r.ok);
    // A value used twice: the same tensor as weights and (reshaped) values.
    Var x(Tensor::normal({2, 3}, 0, 1, gen), true);
    GradcheckReport twice = gradcheck([&] { return weighted_sum(x, reshape(x, {2, 3, 1})); }, {x},
                                      {.name = "weighted_sum(x, x)"});
    INFO(twice.str());
    CHECK(twice.ok);
    CHECK(std::string(attend(Var(Tensor::zeros({2, 3}), true), Var(Tensor::ones({2, 3, 4})), Tensor::ones({2, 3}))
                          .context.op()) == "weighted_sum");
  }

  TEST_CASE("fused additive score errors name the shapes") {
    Var p(Tensor::zeros({2, 3, 4}));
    CHECK_THROWS_WITH_AS(additive_score(p, Var(Tensor::zeros({2, 5})), Var(Tensor::zeros({4}))),
                         doctest::Contains("additive_score: prepared [2, 3, 4], q [2, 5] and v [4] must be (B, S, A), "
                                           "(B, A) and (A)"),
                         Error);
    CHECK_THROWS_WITH_AS(additive_score_composed(p, Var(Tensor::zeros({2, 4})), Var(Tensor::zeros({3}))),
                         doctest::Contains("additive_score_composed: prepared [2, 3, 4], q [2, 4] and v [3]"), Error);
    CHECK_THROWS_WITH_AS(weighted_sum(Var(Tensor::zeros({2, 4})), p),
                         doctest::Contains("weighted_sum: weights [2, 4] and values [2, 3, 4] must be (B, S) and "
                                           "(B, S, D)"),
                         Error);
  }
}
