// Chapter 03: every differentiable op passes a central-difference gradient check in double
// precision with the default tolerances, and gradcheck itself catches a wrong backward.
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "tensor/random.h"
#include "tests/support/chapter_check.h"
#include "tests/support/precision.h"

using namespace heed;

// Runs a gradcheck and, on failure, prints its report (the report is how a failure is read).
#define CHECK_GRAD(label, ...)                                              \
  do {                                                                      \
    GradcheckOptions options_;                                              \
    options_.name = label;                                                  \
    const GradcheckReport report_ = gradcheck(__VA_ARGS__, options_);       \
    INFO(report_.str());                                                    \
    CHECK(report_.ok);                                                      \
  } while (0)

namespace {

using Inputs = const std::vector<Var>&;

// Inputs for the checks: normal values from a fixed seed, or uniform in [lo, hi) to stay
// inside a domain (log, sqrt) or away from a kink.
Tensor randn(const Shape& s, uint64_t seed) {
  Generator g(seed);
  return Tensor::normal(s, 0, 1, g);
}
Tensor rand_in(const Shape& s, real lo, real hi, uint64_t seed) {
  Generator g(seed);
  return Tensor::uniform(s, lo, hi, g);
}
// Values at least 0.1 apart in a random order, so that max has no ties within eps of each other.
Tensor distinct(const Shape& s, uint64_t seed) {
  Tensor t = Tensor::zeros(s);
  Generator g(seed);
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t j = g.randint(0, i);  // inside-out Fisher-Yates shuffle of 0.1 * [0, n)
    t[i] = t[j];
    t[j] = 0.1 * static_cast<real>(i) - 0.5;
  }
  return t;
}

}  // namespace

TEST_SUITE("ch03_gradcheck") {
  TEST_CASE("the float build refuses to gradcheck, and says why and where to read about it") {
    Tensor x = randn({2, 3}, 1);
    auto f = [](Inputs v) { return tanh(v[0]); };
    if (test::kFloatBuild) {
      CHECK_THROWS_WITH_AS(gradcheck(f, {x}), doctest::Contains("gradcheck: needs double precision"), Error);
      CHECK_THROWS_WITH_AS(gradcheck(f, {x}), doctest::Contains("tutorials/03_gradient_checking"), Error);
    } else {
      CHECK(gradcheck(f, {x}).ok);  // double: it runs
    }
  }

  TEST_CASE("unary ops" * DOUBLE_ONLY(kGradcheckReason)) {
    Tensor x = randn({2, 3}, 1);
    CHECK_GRAD("neg", [](Inputs v) { return neg(v[0]); }, {x});
    CHECK_GRAD("exp", [](Inputs v) { return exp(v[0]); }, {x});
    CHECK_GRAD("log", [](Inputs v) { return log(v[0]); }, {rand_in({2, 3}, 0.2, 3, 2)});
    CHECK_GRAD("tanh", [](Inputs v) { return tanh(v[0]); }, {x});
    CHECK_GRAD("sigmoid", [](Inputs v) { return sigmoid(v[0]); }, {x});
    CHECK_GRAD("sqrt", [](Inputs v) { return sqrt(v[0]); }, {rand_in({2, 3}, 0.2, 3, 3)});
    CHECK_GRAD("pow 3", [](Inputs v) { return pow(v[0], 3); }, {x});
    CHECK_GRAD("pow -0.5", [](Inputs v) { return pow(v[0], -0.5); }, {rand_in({2, 3}, 0.2, 3, 4)});
    // relu has a kink at 0: there the central difference sees half of each side's slope (0.5)
    // while backward reports 0, so a check at 0 fails however right relu is (see the test
    // "a kink fails the check" below). Inputs keep |x| >= 0.1 >> eps, on either side of the kink.
    Tensor away = rand_in({2, 3}, 0.1, 2, 5);
    away[1] = -away[1];
    away[3] = -away[3];
    away[4] = -away[4];
    CHECK_GRAD("relu", [](Inputs v) { return relu(v[0]); }, {away});
  }

  TEST_CASE("binary ops, with broadcast shapes" * DOUBLE_ONLY(kGradcheckReason)) {
    Tensor a = randn({2, 3}, 10), b = randn({2, 3}, 11), row = randn({3}, 12);
    CHECK_GRAD("add", [](Inputs v) { return v[0] + v[1]; }, {a, b});
    CHECK_GRAD("add [2,3]+[3]", [](Inputs v) { return v[0] + v[1]; }, {a, row});
    CHECK_GRAD("sub", [](Inputs v) { return v[0] - v[1]; }, {a, b});
    CHECK_GRAD("sub [3]-[2,3]", [](Inputs v) { return v[0] - v[1]; }, {row, a});
    CHECK_GRAD("mul", [](Inputs v) { return v[0] * v[1]; }, {a, b});
    CHECK_GRAD("mul [2,1]*[1,4]", [](Inputs v) { return v[0] * v[1]; }, {randn({2, 1}, 13), randn({1, 4}, 14)});
    CHECK_GRAD("mul []*[2,3]", [](Inputs v) { return v[0] * v[1]; }, {randn({}, 15), a});
    CHECK_GRAD("div", [](Inputs v) { return v[0] / v[1]; }, {a, rand_in({2, 3}, 0.5, 2, 16)});
    CHECK_GRAD("div [2,3]/[2,1]", [](Inputs v) { return v[0] / v[1]; }, {a, rand_in({2, 1}, 0.5, 2, 17)});
    CHECK_GRAD("div [3]/[2,3]", [](Inputs v) { return v[0] / v[1]; }, {row, rand_in({2, 3}, -2, -0.5, 18)});
    // [2, 1, 3] with [4, 1]: both inputs broadcast at once, to [2, 4, 3].
    CHECK_GRAD("mul [2,1,3]*[4,1]", [](Inputs v) { return v[0] * v[1]; }, {randn({2, 1, 3}, 19), randn({4, 1}, 20)});
  }

  TEST_CASE("ops with a plain number" * DOUBLE_ONLY(kGradcheckReason)) {
    Tensor a = randn({2, 3}, 21);
    CHECK_GRAD("x + 2", [](Inputs v) { return v[0] + 2; }, {a});
    CHECK_GRAD("2 + x", [](Inputs v) { return 2 + v[0]; }, {a});
    CHECK_GRAD("x - 2", [](Inputs v) { return v[0] - 2; }, {a});
    CHECK_GRAD("2 - x", [](Inputs v) { return 2 - v[0]; }, {a});
    CHECK_GRAD("3 x", [](Inputs v) { return 3 * v[0]; }, {a});
    CHECK_GRAD("x 3", [](Inputs v) { return v[0] * 3; }, {a});
    CHECK_GRAD("x / 4", [](Inputs v) { return v[0] / 4; }, {a});
    CHECK_GRAD("-x", [](Inputs v) { return -v[0]; }, {a});
  }

  TEST_CASE("an input used more than once: x * x, a + a, tanh(x) * x" * DOUBLE_ONLY(kGradcheckReason)) {
    Tensor x = randn({2, 3}, 30);
    CHECK_GRAD("x * x", [](Inputs v) { return v[0] * v[0]; }, {x});
    CHECK_GRAD("a + a", [](Inputs v) { return v[0] + v[0]; }, {x});
    CHECK_GRAD("tanh(x) * x", [](Inputs v) { return tanh(v[0]) * v[0]; }, {x});
    CHECK_GRAD("x / (x*x + 1)", [](Inputs v) { return v[0] / (v[0] * v[0] + 1); }, {x});
    CHECK_GRAD("u = x * 2; u * u - u", [](Inputs v) {
      Var u = v[0] * 2;
      return u * u - u;
    }, {x});
  }

  TEST_CASE("reductions" * DOUBLE_ONLY(kGradcheckReason)) {
    Tensor a = randn({2, 3, 4}, 40);
    CHECK_GRAD("sum", [](Inputs v) { return sum(v[0]); }, {a});
    CHECK_GRAD("sum axis 0", [](Inputs v) { return sum(v[0], 0); }, {a});
    CHECK_GRAD("sum axis 1 keepdim", [](Inputs v) { return sum(v[0], 1, true); }, {a});
    CHECK_GRAD("sum axis -1", [](Inputs v) { return sum(v[0], -1); }, {a});
    CHECK_GRAD("mean", [](Inputs v) { return mean(v[0]); }, {a});
    CHECK_GRAD("mean axis 1", [](Inputs v) { return mean(v[0], 1); }, {a});
    CHECK_GRAD("mean axis 2 keepdim", [](Inputs v) { return mean(v[0], 2, true); }, {a});
    // max: the values are 0.1 apart, so no perturbation by eps changes which one is largest.
    Tensor d = distinct({2, 3, 4}, 41);
    CHECK_GRAD("max", [](Inputs v) { return max(v[0]); }, {d});
    CHECK_GRAD("max axis 0", [](Inputs v) { return max(v[0], 0); }, {d});
    CHECK_GRAD("max axis 1 keepdim", [](Inputs v) { return max(v[0], 1, true); }, {d});
    CHECK_GRAD("max axis 2", [](Inputs v) { return max(v[0], 2); }, {d});
  }

  TEST_CASE("matmul: 2-D and batched 3-D, in all three forms" * DOUBLE_ONLY(kGradcheckReason)) {
    CHECK_GRAD("matmul 2-D", [](Inputs v) { return matmul(v[0], v[1]); }, {randn({2, 3}, 50), randn({3, 4}, 51)});
    CHECK_GRAD("matmul_nt 2-D", [](Inputs v) { return matmul_nt(v[0], v[1]); }, {randn({2, 3}, 52), randn({4, 3}, 53)});
    CHECK_GRAD("matmul_tn 2-D", [](Inputs v) { return matmul_tn(v[0], v[1]); }, {randn({3, 2}, 54), randn({3, 4}, 55)});
    CHECK_GRAD("matmul 3-D", [](Inputs v) { return matmul(v[0], v[1]); }, {randn({2, 2, 3}, 56), randn({2, 3, 4}, 57)});
    CHECK_GRAD("matmul_nt 3-D", [](Inputs v) { return matmul_nt(v[0], v[1]); },
               {randn({2, 2, 3}, 58), randn({2, 4, 3}, 59)});
    CHECK_GRAD("matmul_tn 3-D", [](Inputs v) { return matmul_tn(v[0], v[1]); },
               {randn({2, 3, 2}, 60), randn({2, 3, 4}, 61)});
    // A A^T uses one input on both sides.
    CHECK_GRAD("matmul_nt(a, a)", [](Inputs v) { return matmul_nt(v[0], v[0]); }, {randn({3, 2}, 62)});
    CHECK_GRAD("linear", [](Inputs v) { return linear(v[0], v[1], v[2]); },
               {randn({3, 2}, 63), randn({4, 2}, 64), randn({4}, 65)});
    CHECK_GRAD("linear 3-D x", [](Inputs v) { return linear(v[0], v[1], v[2]); },
               {randn({2, 3, 2}, 68), randn({4, 2}, 69), randn({4}, 48)});
    CHECK_GRAD("linear(x, x, b)", [](Inputs v) { return linear(v[0], v[0], v[1]); }, {randn({3, 2}, 66), randn({3}, 67)});
  }

  TEST_CASE("layout ops" * DOUBLE_ONLY(kGradcheckReason)) {
    Tensor a = randn({2, 3, 4}, 70);
    CHECK_GRAD("transpose 2-D", [](Inputs v) { return transpose(v[0]); }, {randn({2, 3}, 71)});
    CHECK_GRAD("transpose 3-D", [](Inputs v) { return transpose(v[0]); }, {a});
    CHECK_GRAD("reshape", [](Inputs v) { return reshape(v[0], {4, -1}); }, {a});
    CHECK_GRAD("concat axis 0", [](Inputs v) { return concat({v[0], v[1]}, 0); }, {randn({1, 3}, 72), randn({2, 3}, 73)});
    CHECK_GRAD("concat axis 1 of 3", [](Inputs v) { return concat({v[0], v[1], v[0]}, 1); },
               {randn({2, 1}, 74), randn({2, 3}, 75)});
    CHECK_GRAD("stack axis 0", [](Inputs v) { return stack({v[0], v[1]}, 0); }, {randn({2, 3}, 76), randn({2, 3}, 77)});
    CHECK_GRAD("stack axis 1", [](Inputs v) { return stack({v[0], v[1], v[0]}, 1); },
               {randn({2, 3}, 78), randn({2, 3}, 79)});
    CHECK_GRAD("stack axis -1", [](Inputs v) { return stack({v[0], v[1]}, -1); }, {randn({2, 3}, 80), randn({2, 3}, 81)});
    CHECK_GRAD("slice axis 1", [](Inputs v) { return slice(v[0], 1, 1, 3); }, {a});
    CHECK_GRAD("slice axis 2", [](Inputs v) { return slice(v[0], 2, 0, 1); }, {a});
    CHECK_GRAD("index_select with repeats", [](Inputs v) { return index_select(v[0], {2, 0, 2, 2}); },
               {randn({3, 2}, 82)});
  }

  TEST_CASE("softmax, log_softmax and masked_fill" * DOUBLE_ONLY(kGradcheckReason)) {
    Tensor a = randn({2, 3, 4}, 90);
    CHECK_GRAD("softmax axis 0", [](Inputs v) { return softmax(v[0], 0); }, {a});
    CHECK_GRAD("softmax axis 1", [](Inputs v) { return softmax(v[0], 1); }, {a});
    CHECK_GRAD("softmax axis -1", [](Inputs v) { return softmax(v[0], -1); }, {a});
    CHECK_GRAD("log_softmax axis 0", [](Inputs v) { return log_softmax(v[0], 0); }, {a});
    CHECK_GRAD("log_softmax axis 1", [](Inputs v) { return log_softmax(v[0], 1); }, {a});
    CHECK_GRAD("log_softmax axis 2", [](Inputs v) { return log_softmax(v[0], 2); }, {a});
    Tensor mask({1, 4}, {0, 1, 0, 1});  // broadcast over [2, 3, 4]
    CHECK_GRAD("masked_fill", [&](Inputs v) { return masked_fill(v[0], mask, -3); }, {a});
    CHECK_GRAD("softmax of masked_fill", [&](Inputs v) { return softmax(masked_fill(v[0], mask, -1e9), 2); }, {a});
  }

  TEST_CASE("softmax and log_softmax at logits of +-1e4: finite values, right gradients" * DOUBLE_ONLY(kGradcheckReason)) {
    // Row 0: two logits 1 apart near 1e4 share the mass e : 1; row 1 puts it all on one.
    Tensor x({2, 3}, {1e4, 1e4 - 1, -1e4, -1e4, 1e4, -1e4});
    Var v(x, true);
    Var p = softmax(v, 1);
    sum(p * Var(Tensor({2, 3}, {1, 2, 3, 4, 5, 6}))).backward();
    for (real g : v.grad().values()) CHECK(std::isfinite(g));
    // Here the numeric side is the limit, not the backward: doubles near 1e4 are 1.8e-12 apart, so
    // x +- eps (eps 1e-6) is off by up to 1e-12 and the quotient by ~1e-6 relative (measured: 3.9e-6
    // on a derivative of 1.5). The default rtol 1e-6 assumes inputs near 1; these get 1e-5.
    for (auto [name, f] : {std::pair<const char*, Var (*)(const Var&, int64_t)>{"softmax at 1e4", softmax},
                           {"log_softmax at 1e4", log_softmax}}) {
      GradcheckOptions o;
      o.name = name;
      o.rtol = 1e-5;
      auto* op = f;  // clang before 16 cannot capture a structured binding
      GradcheckReport r = gradcheck([op](Inputs v) { return op(v[0], 1); }, {x}, o);
      INFO(r.str());
      CHECK(r.ok);
    }
  }

  TEST_CASE("a composite: scaled dot-product attention weights applied to values" * DOUBLE_ONLY(kGradcheckReason)) {
    // softmax(q k^T / sqrt(3)) v: the shape of what later chapters build, [2, 3] x [4, 3] -> [2, 4] -> [2, 3].
    CHECK_GRAD("attention", [](Inputs v) { return matmul(softmax(matmul_nt(v[0], v[1]) / std::sqrt(3.0), 1), v[2]); },
               {randn({2, 3}, 100), randn({4, 3}, 101), randn({4, 3}, 102)});
  }

  TEST_CASE("a backward 0.05 % off fails with the defaults (PyTorch's would pass it) and shows a table" * DOUBLE_ONLY(kGradcheckReason)) {
    // y = x^2 with dx = 2.001 x dy: the analytic side is 1.0005 times the truth everywhere.
    auto slightly_off = [](const Var& x) {
      Tensor xv = x.value();
      return make_var(mul(xv, xv), "slightly_off", {x}, [xv](Backward& g) {
        g.add(0, mul(mul(g.grad(), xv), 2.001));  // dx += 2.001 x dy  (WRONG: 2 x dy)
      });
    };
    Tensor x = randn({2, 3}, 130);
    GradcheckOptions o;
    o.name = "slightly_off";
    GradcheckReport r = gradcheck([&](Inputs v) { return slightly_off(v[0]); }, {x}, o);
    CHECK(!r.ok);
    CHECK(r.worst.size() == 6);
    for (size_t k = 1; k < r.worst.size(); ++k) CHECK(r.worst[k - 1].excess >= r.worst[k].excess);  // worst first
    const std::string s = r.str();
    CHECK(s.find("input  element") != std::string::npos);  // the table's header
    CHECK(s.find("analytic") != std::string::npos);
    for (const GradcheckEntry& e : r.worst) CHECK(s.find(shape_str(e.index)) != std::string::npos);  // a row each
    o.atol = 1e-5;  // PyTorch's defaults let it through
    o.rtol = 1e-3;
    CHECK(gradcheck([&](Inputs v) { return slightly_off(v[0]); }, {x}, o).ok);
  }

  TEST_CASE("a passing report counts every element and names the op" * DOUBLE_ONLY(kGradcheckReason)) {
    GradcheckOptions o;
    o.name = "tanh";
    GradcheckReport r = gradcheck([](Inputs v) { return tanh(v[0] * v[1]); }, {randn({2, 3}, 110), randn({3}, 111)}, o);
    INFO(r.str());
    CHECK(r.ok);
    CHECK(r.name == "tanh");
    CHECK(r.elements == 9);
    CHECK(r.max_abs_err < 1e-8);  // central differences in double: errors near 1e-10
    CHECK(r.str().rfind("gradcheck tanh: passed (9 elements;", 0) == 0);
  }

  TEST_CASE("gradcheck leaves its inputs as it found them, without gradients" * DOUBLE_ONLY(kGradcheckReason)) {
    Var x(randn({3}, 120), true);
    Tensor before = x.value();
    GradcheckReport r = gradcheck([&] { return exp(x); }, {x});
    CHECK(r.ok);
    CHECK(equal(x.value(), before));  // perturbed and restored exactly
    CHECK(!x.has_grad());
    Var y = x * 2;
    CHECK_THROWS_WITH_AS(gradcheck([&] { return y; }, {y}), "gradcheck: input 0 must be a leaf that requires grad", Error);
  }
}

namespace {

// The must-fail lesson: sigmoid with a plausible mistake in its backward. The derivative of
// y = sigmoid(x) is y (1 - y); this one forgets the (1 - y).
Var wrong_sigmoid(const Var& x) {
  Tensor y = sigmoid(x.value());
  return make_var(y, "wrong_sigmoid", {x}, [y](Backward& g) {
    g.add(0, mul(g.grad(), y));  // dx += y dy   (WRONG: y (1 - y) dy)
  });
}

// a * b whose backward is right for a and 1% off for b: small mistakes are caught too.
Var off_mul(const Var& a, const Var& b) {
  Tensor av = a.value(), bv = b.value();
  return make_var(mul(av, bv), "off_mul", {a, b}, [av, bv](Backward& g) {
    if (g.wants(0)) g.add(0, mul(g.grad(), bv));           // da += b dy
    if (g.wants(1)) g.add(1, mul(mul(g.grad(), av), 1.01));  // db += 1.01 a dy (WRONG)
  });
}

// x^2 elementwise whose backward is wrong at one output element only.
Var one_bad_square(const Var& x) {
  Tensor xv = x.value();
  return make_var(mul(xv, xv), "one_bad_square", {x}, [xv](Backward& g) {
    Tensor d = mul(mul(g.grad(), xv), 2);  // dx += 2 x dy
    d[3] = 0;                               // (WRONG at element 3)
    g.add(0, std::move(d));
  });
}

}  // namespace

TEST_SUITE("ch03_gradcheck") {
  TEST_CASE("a wrong backward is caught, and the report says where and by how much" * DOUBLE_ONLY(kGradcheckReason)) {
    Tensor x({2, 3}, {-1.5, -0.5, 0.2, 0.7, 1.1, 2.0});
    GradcheckOptions o;
    o.name = "wrong_sigmoid";
    GradcheckReport r = gradcheck([](Inputs v) { return sum(wrong_sigmoid(v[0])); }, {x}, o);
    CHECK(!r.ok);
    // The gap y - y (1 - y) = y^2 grows with x: the worst element is the largest x, at [1, 2].
    CHECK(r.input == 0);
    CHECK(r.element == 5);
    CHECK(r.index == Shape{1, 2});
    CHECK(r.input_shape == Shape{2, 3});
    real y = 1 / (1 + std::exp(-2.0));
    CHECK(r.analytic == doctest::Approx(y).epsilon(1e-15));               // what backward said
    CHECK(r.numeric == doctest::Approx(y * (1 - y)).epsilon(1e-8));       // the truth, numerically
    std::string s = r.str();
    INFO(s);
    CHECK(s.find("gradcheck wrong_sigmoid: FAILED") == 0);
    CHECK(s.find("worst element: input 0 of shape [2, 3], element [1, 2]") != std::string::npos);
    CHECK(s.find("analytic 0.880797") != std::string::npos);
    CHECK(s.find("numeric 0.104993") != std::string::npos);
  }

  TEST_CASE("a 1% mistake in the second input's gradient is caught and blamed on that input" * DOUBLE_ONLY(kGradcheckReason)) {
    GradcheckOptions o;
    o.name = "off_mul";
    GradcheckReport r = gradcheck([](Inputs v) { return off_mul(v[0], v[1]); }, {randn({2, 2}, 130), randn({2, 2}, 131)}, o);
    INFO(r.str());
    CHECK(!r.ok);
    CHECK(r.input == 1);
    CHECK(r.analytic == doctest::Approx(1.01 * r.numeric).epsilon(1e-6));
  }

  TEST_CASE("a mistake at one output element is caught: the projection sees every output" * DOUBLE_ONLY(kGradcheckReason)) {
    GradcheckReport r = gradcheck([](Inputs v) { return one_bad_square(v[0]); }, {randn({2, 3}, 140)});
    INFO(r.str());
    CHECK(!r.ok);
    CHECK(r.element == 3);
    CHECK(r.analytic == 0);
  }

  TEST_CASE("a kink fails the check: relu at exactly 0" * DOUBLE_ONLY(kGradcheckReason)) {
    // This is why the relu gradcheck above keeps its inputs away from 0. At x = 0,
    // (relu(eps) - relu(-eps)) / (2 eps) = 0.5: the average of the slopes 0 and 1 on either
    // side, which no single derivative can match. The math has no derivative there; backward
    // picks 0 (as PyTorch does), a choice, not a mistake, so the check must avoid the point.
    GradcheckReport r = gradcheck([](Inputs v) { return sum(relu(v[0])); }, {Tensor({3}, {-1, 0, 1})});
    INFO(r.str());
    CHECK(!r.ok);
    CHECK(r.element == 1);
    CHECK(r.analytic == 0);
    CHECK(r.numeric == doctest::Approx(0.5).epsilon(1e-9));
  }

  TEST_CASE("chapter 03 shows what its program prints" * DOUBLE_ONLY(kChapterTextReason)) { check_chapter("tutorials/03_gradient_checking"); }
}
