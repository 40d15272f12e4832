// Chapter 04: initialisers, Linear, Embedding and the losses (optimisers: ch04_optim_test.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "tests/support/chapter_check.h"
#include "nn/embedding.h"
#include "nn/init.h"
#include "nn/linear.h"
#include "nn/loss.h"
#include "nn/module.h"
#include "nn/optim.h"  // Adam keeps the padding row at zero
#include "tests/support/precision.h"

using namespace heed;

namespace {

real max_abs(const Tensor& t) {
  real m = 0;
  for (real v : t.values()) m = std::max(m, std::fabs(v));
  return m;
}

void check_values(const Tensor& got, const std::vector<real>& want, real tol) {
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    CHECK(std::fabs(got[i] - want[i]) <= tol);
  }
}

// Sum of x * R for a fixed R: a scalar that depends on every element of x.
Var project(const Var& x, uint64_t seed = 7) {
  Generator gen(seed);
  return sum(x * Var(Tensor::uniform(x.shape(), -1, 1, gen)));
}

}  // namespace

TEST_SUITE("ch04_layers") {

TEST_CASE("init: bounds, distributions and determinism") {
  Generator g1(1), g2(1);
  Tensor w = linear_weight_init(50, 16, g1);  // bound 1/sqrt(16) = 0.25
  CHECK(w.shape() == Shape{50, 16});
  CHECK(max_abs(w) <= 0.25);
  CHECK(max_abs(w) > 0.24);  // the bound is nearly reached in 800 draws
  // Linear's rule is kaiming_uniform with a = sqrt(5): the same draws, the same bound. The bound
  // comes out as 0.25 - 1 ulp (sqrt(5)^2 rounds to 5 + 1 ulp), and lo + (hi - lo) u cancels
  // near 0 without a fused multiply-add, so values agree to a few ulps of 0.25, not relatively.
  CHECK(allclose(kaiming_uniform({50, 16}, std::sqrt(5.0), g2), w, 0, test::tol(1e-15)));

  Generator g3(2);
  Tensor x = xavier_uniform({4, 6}, g3);  // bound sqrt(6 / 10)
  CHECK(max_abs(x) <= std::sqrt(0.6));
  int64_t fan_in, fan_out;
  fan_in_fan_out({8, 3, 5}, fan_in, fan_out, "test");
  CHECK(fan_in == 15);
  CHECK(fan_out == 40);

  Generator g4(3);
  Tensor e = embedding_init(100, 100, g4);  // N(0, 1)
  real mean = 0, sq = 0;
  for (real v : e.values()) mean += v, sq += v * v;
  mean /= 10000;
  real std = std::sqrt(sq / 10000 - mean * mean);
  CHECK(std::fabs(mean) < 0.03);
  CHECK(std::fabs(std - 1) < 0.03);  // U(-1, 1) would give 0.577

  Generator a(9), b(9);
  CHECK(equal(uniform_init({3, 3}, 0.5, a), uniform_init({3, 3}, 0.5, b)));
  CHECK_THROWS_WITH_AS(uniform_init({2}, -1, a), doctest::Contains("bound -1"), Error);
  CHECK_THROWS_WITH_AS(xavier_uniform({5}, a), doctest::Contains("at least 2 axes, got [5]"), Error);
}

TEST_CASE("Linear: PyTorch's initialisation, weight drawn before bias") {
  Generator g1(5), g2(5);
  Linear lin(16, 4, true, g1);
  CHECK(lin.in_features() == 16);
  CHECK(lin.out_features() == 4);
  CHECK(equal(lin.weight.value(), linear_weight_init(4, 16, g2)));
  CHECK(equal(lin.bias.value(), linear_bias_init(4, 16, g2)));
  auto names = lin.named_parameters();
  REQUIRE(names.size() == 2);
  CHECK(names[0].first == "weight");
  CHECK(names[1].first == "bias");
  Linear no_bias(3, 2, false, g1);
  CHECK(!no_bias.bias.defined());
  CHECK(no_bias.named_parameters().size() == 1);
  CHECK_THROWS_WITH_AS(Linear(0, 3, true, g1), doctest::Contains("in_features 0"), Error);
}

TEST_CASE("Linear: forward values by hand, 2-D and 3-D") {
  Generator gen(0);
  Linear lin(2, 3, true, gen);
  lin.weight.value() = Tensor({3, 2}, {1, 2, 3, 4, 5, 6});
  lin.bias.value() = Tensor({3}, {0.5, -0.5, 1});
  Var x(Tensor({2, 2}, {1, -1, 2, 0.5}));
  Var y = lin.forward(x);
  CHECK(y.shape() == Shape{2, 3});
  // [1, -1] W^T + b = [1-2+0.5, 3-4-0.5, 5-6+1]; [2, 0.5] W^T + b = [2+1+0.5, 6+2-0.5, 10+3+1]
  check_values(y.value(), {-0.5, -1.5, 0, 3.5, 7.5, 14}, 1e-15);

  // (B, T, in): each batch row equals the 2-D result on its own.
  Generator g(1);
  Tensor x3 = Tensor::uniform({2, 4, 2}, -1, 1, g);
  Var y3 = lin.forward(Var(x3));
  CHECK(y3.shape() == Shape{2, 4, 3});
  for (int64_t b = 0; b < 2; ++b) {
    Tensor rows = lin.forward(Var(reshape(slice(x3, 0, b, b + 1), {4, 2}))).value();  // (T, out)
    CHECK(equal(reshape(slice(y3.value(), 0, b, b + 1), {4, 3}), rows));
  }
}

TEST_CASE("Linear: gradcheck w.r.t. input, weight and bias" * DOUBLE_ONLY(kGradcheckReason)) {
  Generator gen(11);
  Linear lin(3, 4, true, gen);
  for (Shape s : {Shape{5, 3}, Shape{2, 3, 3}}) {
    Var x(Tensor::uniform(s, -1, 1, gen), true);
    GradcheckOptions opt;
    opt.name = "Linear " + shape_str(s);
    GradcheckReport r = gradcheck([&] { return lin.forward(x); }, {x, lin.weight, lin.bias}, opt);
    INFO(r.str());
    CHECK(r.ok);
  }
  Linear no_bias(3, 2, false, gen);
  Var x(Tensor::uniform({4, 3}, -1, 1, gen), true);
  GradcheckReport r = gradcheck([&] { return no_bias.forward(x); }, {x, no_bias.weight});
  INFO(r.str());
  CHECK(r.ok);
}

TEST_CASE("linear(x, W, b): the numbers of matmul_nt(x, W) + b, bit for bit, values and gradients") {
  // A row count above the gemm's row block (96) and widths with edges, so every kernel path runs.
  for (Shape xs : {Shape{5, 3}, Shape{130, 37}}) {
    Generator gen(static_cast<uint64_t>(xs[0]));
    const int64_t out = xs[1] + 4;
    Tensor xv = Tensor::uniform(xs, -1, 1, gen), wv = Tensor::uniform({out, xs[1]}, -1, 1, gen),
           bv = Tensor::uniform({out}, -1, 1, gen), r = Tensor::uniform({xs[0], out}, -1, 1, gen);
    Var x1(xv, true), w1(wv, true), b1(bv, true), x2(xv, true), w2(wv, true), b2(bv, true);
    Var fused = linear(x1, w1, b1), composed = matmul_nt(x2, w2) + b2;
    CHECK(fused.op() == std::string("linear"));
    CHECK(equal(fused.value(), composed.value()));
    sum(fused * Var(r)).backward();
    sum(composed * Var(r)).backward();
    CHECK(equal(x1.grad(), x2.grad()));
    CHECK(equal(w1.grad(), w2.grad()));
    CHECK(equal(b1.grad(), b2.grad()));
  }
}

TEST_CASE("linear on tensors (tensor/ops.h): the value of matmul_nt(x, W) + b and of autograd's linear, bit for bit") {
  // The value the fused recurrent steps take their h W_hh^T + b_hh from (nn/rnn_cell.cpp).
  for (Shape xs : {Shape{5, 3}, Shape{130, 37}, Shape{4, 40, 37}}) {
    Generator gen(static_cast<uint64_t>(xs[0]));
    const int64_t in = xs.back(), out = in + 4;
    Tensor x = Tensor::uniform(xs, -1, 1, gen), w = Tensor::uniform({out, in}, -1, 1, gen),
           b = Tensor::uniform({out}, -1, 1, gen);
    Shape ys = xs;
    ys.back() = out;
    Tensor y = linear(x, w, &b);
    REQUIRE(y.shape() == ys);
    CHECK(equal(y, reshape(add(matmul_nt(reshape(x, {-1, in}), w), b), ys)));
    CHECK(equal(y, linear(Var(x), Var(w), Var(b)).value()));
    CHECK(equal(linear(x, w, nullptr), reshape(matmul_nt(reshape(x, {-1, in}), w), ys)));
  }
  Tensor x = Tensor::zeros({4, 3}), w = Tensor::zeros({2, 3}), b = Tensor::zeros({3});
  CHECK_THROWS_WITH_AS(linear(x, w, &b), doctest::Contains("linear: x [4, 3], weight [2, 3], bias [3] must be"), Error);
  CHECK_THROWS_WITH_AS(linear(x, Tensor::zeros({2, 4}), nullptr), doctest::Contains("weight [2, 4]"), Error);
}

TEST_CASE("linear: gradcheck with and without bias; shape mistakes name linear and the shapes" * DOUBLE_ONLY(kGradcheckReason)) {
  Generator gen(12);
  Var x(Tensor::uniform({4, 3}, -1, 1, gen), true), w(Tensor::uniform({2, 3}, -1, 1, gen), true),
      b(Tensor::uniform({2}, -1, 1, gen), true);
  GradcheckReport r = gradcheck([&] { return linear(x, w, b); }, {x, w, b}, {.name = "linear"});
  INFO(r.str());
  CHECK(r.ok);
  GradcheckReport r2 = gradcheck([&] { return linear(x, w, Var()); }, {x, w}, {.name = "linear, no bias"});
  INFO(r2.str());
  CHECK(r2.ok);
  CHECK_THROWS_WITH_AS(linear(x, Var(Tensor::zeros({2, 4})), b),
                       doctest::Contains("linear: x [4, 3], weight [2, 4], bias [2] must be (..., in), (out, in) and (out)"),
                       Error);
  CHECK_THROWS_WITH_AS(linear(x, w, Var(Tensor::zeros({3}))), doctest::Contains("bias [3]"), Error);
  CHECK_THROWS_WITH_AS(linear(Var(Tensor::scalar(1)), w, b), doctest::Contains("linear: x []"), Error);
  CHECK_THROWS_WITH_AS(linear(Var(Tensor::zeros({2, 4, 2})), w, b), doctest::Contains("x [2, 4, 2]"), Error);
}

TEST_CASE("linear: leading axes read in place, gradchecked (3-D, 4-D and 1-D inputs)" * DOUBLE_ONLY(kGradcheckReason)) {
  Generator gen(13);
  Var w(Tensor::uniform({2, 3}, -1, 1, gen), true), b(Tensor::uniform({2}, -1, 1, gen), true);
  for (Shape xs : {Shape{2, 4, 3}, Shape{2, 1, 2, 3}, Shape{3}}) {
    Var x(Tensor::uniform(xs, -1, 1, gen), true);
    GradcheckReport r = gradcheck([&] { return linear(x, w, b); }, {x, w, b}, {.name = "linear " + shape_str(xs)});
    INFO(r.str());
    CHECK(r.ok);
  }
}

TEST_CASE("linear on (B, T, in): the numbers of the (B T, in) product, bit for bit, with no reshape node") {
  // The rows of a (B, T, in) tensor lie one after another, so linear reads them as B T rows where
  // they are: the values and every gradient are those of reshaping to (B T, in) and back, to the
  // bit, and the graph holds one node where the reshapes made three (two of them copies).
  for (Shape xs : {Shape{2, 3, 5}, Shape{4, 40, 37}}) {
    Generator gen(static_cast<uint64_t>(xs[2]));
    const int64_t in = xs[2], out = in + 4;
    Tensor xv = Tensor::uniform(xs, -1, 1, gen), wv = Tensor::uniform({out, in}, -1, 1, gen),
           bv = Tensor::uniform({out}, -1, 1, gen), r = Tensor::uniform({xs[0], xs[1], out}, -1, 1, gen);
    Var x1(xv, true), w1(wv, true), b1(bv, true), x2(xv, true), w2(wv, true), b2(bv, true);
    Var direct = linear(x1, w1, b1);
    Var folded = reshape(linear(reshape(x2, {-1, in}), w2, b2), {xs[0], xs[1], out});
    CHECK(direct.shape() == Shape{xs[0], xs[1], out});
    CHECK(direct.op() == std::string("linear"));
    CHECK(direct.num_inputs() == 3);
    CHECK(equal(direct.value(), folded.value()));
    sum(direct * Var(r)).backward();
    sum(folded * Var(r)).backward();
    CHECK(equal(x1.grad(), x2.grad()));
    CHECK(equal(w1.grad(), w2.grad()));
    CHECK(equal(b1.grad(), b2.grad()));
  }
}

TEST_CASE("Linear: shape mistakes name Linear and the shapes") {
  Generator gen(0);
  Linear lin(2, 3, true, gen);
  CHECK_THROWS_WITH_AS(lin.forward(Var(Tensor::zeros({4, 5}))),
                       doctest::Contains("Linear: input [4, 5] does not end in in_features 2 (weight [3, 2])"), Error);
  CHECK_THROWS_WITH_AS(lin.forward(Var(Tensor::scalar(1))), doctest::Contains("Linear: input []"), Error);
}

TEST_CASE("Embedding: rows by id, gradcheck with a repeated id" * DOUBLE_ONLY(kGradcheckReason)) {
  Generator gen(3);
  Embedding emb(5, 3, gen);
  CHECK(emb.num_embeddings() == 5);
  CHECK(emb.embedding_dim() == 3);
  std::vector<int64_t> ids{2, 0, 2, 4};
  Var y = emb.forward(ids);
  CHECK(y.shape() == Shape{4, 3});
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t k = 0; k < 3; ++k) CHECK(y.value().at({r, k}) == emb.weight.value().at({ids[r], k}));
  GradcheckReport rep = gradcheck([&] { return emb.forward(ids); }, {emb.weight}, {.name = "Embedding"});
  INFO(rep.str());
  CHECK(rep.ok);
}

TEST_CASE("Embedding: the padding row starts at zero and gets no gradient") {
  Generator g1(4), g2(4);
  Embedding pad(5, 3, g1, 1), plain(5, 3, g2);
  CHECK(pad.padding_idx() == 1);
  check_values(slice(pad.weight.value(), 0, 1, 2), {0, 0, 0}, 0);
  plain.weight.value() = pad.weight.value();
  std::vector<int64_t> ids{1, 2, 1, 4};
  project(pad.forward(ids)).backward();
  project(plain.forward(ids)).backward();
  const Tensor &gp = pad.weight.grad(), &gq = plain.weight.grad();
  for (int64_t r = 0; r < 5; ++r)
    for (int64_t k = 0; k < 3; ++k) {
      INFO("row " << r << ", column " << k);
      CHECK(gp.at({r, k}) == (r == 1 ? 0.0 : gq.at({r, k})));
    }
  CHECK(max_abs(slice(gq, 0, 1, 2)) > 0);  // without padding_idx the row would have learned
  // Under Adam without weight decay the padding row stays exactly zero.
  Adam adam(pad.parameters(), 0.1);
  for (int i = 0; i < 3; ++i) {
    adam.zero_grad();
    project(pad.forward(ids)).backward();
    adam.step();
  }
  check_values(slice(pad.weight.value(), 0, 1, 2), {0, 0, 0}, 0);
}

TEST_CASE("Embedding: ids out of range name the id and the vocabulary size") {
  Generator gen(0);
  Embedding emb(10, 2, gen);
  CHECK_THROWS_WITH_AS(emb.forward({3, 10}),
                       doctest::Contains("Embedding: id 10 at position 1 is out of range for a vocabulary of 10"),
                       Error);
  CHECK_THROWS_WITH_AS(emb.forward({-1}), doctest::Contains("id -1"), Error);
  CHECK_THROWS_WITH_AS(Embedding(4, 2, gen, 4), doctest::Contains("padding_idx 4 is out of range for a vocabulary of 4"),
                       Error);
}

TEST_CASE("cross_entropy: values against PyTorch, and the gradient" * DOUBLE_ONLY(kPytorchFp64Reason)) {
  // import torch; torch.set_default_dtype(torch.float64)
  // z = torch.tensor([[1., 2., .5, -1.], [0., -3., 2.5, 1.], [4., 1., -2., 0.]], requires_grad=True)
  // loss = torch.nn.functional.cross_entropy(z, torch.tensor([1, -100, 3])); loss.backward()
  // print(loss.item(), z.grad.flatten().tolist())
  Var z(Tensor({3, 4}, {1, 2, .5, -1, 0, -3, 2.5, 1, 4, 1, -2, 0}), true);
  Var loss = cross_entropy(z, {1, -100, 3});
  CHECK(loss.shape() == Shape{});
  CHECK(std::fabs(loss.item() - 2.2816919094957817) <= 1e-14);
  loss.backward();
  check_values(z.grad(),
               {0.11210390902410057, -0.19526998120056144, 0.06799445789675276, 0.015171614279708113, 0, 0, 0, 0,
                0.46703592295039925, 0.023252349426179958, 0.001157666310594684, -0.4914459386871738},
               1e-15);
  // Another ignore_index ignores the same row (there, target 2).
  CHECK(std::fabs(cross_entropy(z, {1, 2, 3}, 2).item() - 2.2816919094957817) <= 1e-14);
  // By hand: equal logits over V classes give log V.
  CHECK(std::fabs(cross_entropy(Var(Tensor::zeros({2, 5})), {0, 4}).item() - std::log(5.0)) <= 1e-15);
}

TEST_CASE("cross_entropy: equals nll of log_softmax, and stays finite on huge logits") {
  Generator gen(21);
  Tensor zv = Tensor::uniform({6, 5}, -3, 3, gen);
  std::vector<int64_t> t{4, 0, -100, 2, 2, 1};
  Var a(zv, true), b(zv, true);
  Var fused = cross_entropy(a, t), composed = nll(log_softmax(b, 1), t);
  CHECK(std::fabs(fused.item() - composed.item()) <= test::tol(1e-14));
  fused.backward();
  composed.backward();
  CHECK(allclose(a.grad(), b.grad(), 0, test::tol(1e-15)));

  Var big(Tensor({2, 2}, {1000, 0, -1000, 0}), true);
  Var l = cross_entropy(big, {1, 1});  // row 0: -log softmax = 1000; row 1: log(1 + e^-1000) ~ 0
  CHECK(l.item() == 500);
  l.backward();
  check_values(big.grad(), {0.5, -0.5, 0, 0}, 1e-15);
}

TEST_CASE("cross_entropy: gradcheck, with ignored targets and with all but one ignored" * DOUBLE_ONLY(kGradcheckReason)) {
  Generator gen(8);
  struct Case {
    const char* name;
    std::vector<int64_t> targets;
    int64_t ignore;
  };
  for (const Case& c : {Case{"all kept", {0, 3, 1, 1, 2}, -100}, Case{"ignored", {0, -100, 1, -100, 2}, -100},
                        Case{"all but one ignored", {-100, -100, 3, -100, -100}, -100},
                        Case{"ignore PAD = 0", {0, 3, 0, 2, 0}, 0}}) {
    Var z(Tensor::uniform({5, 4}, -2, 2, gen), true);
    GradcheckReport r = gradcheck([&] { return cross_entropy(z, c.targets, c.ignore); }, {z},
                                  {.name = std::string("cross_entropy ") + c.name});
    INFO(r.str());
    CHECK(r.ok);
  }
}

TEST_CASE("cross_entropy and nll: all targets ignored give 0 and a zero gradient, not NaN") {
  Var z(Tensor({2, 3}, {1, 2, 3, 4, 5, 6}), true);
  Var l = cross_entropy(z, {-100, -100});
  CHECK(l.item() == 0);
  l.backward();
  check_values(z.grad(), {0, 0, 0, 0, 0, 0}, 0);
  Var lp(Tensor({1, 2}, {-0.5, -1}), true);
  Var n = nll(lp, {7}, 7);
  CHECK(n.item() == 0);
  n.backward();
  check_values(lp.grad(), {0, 0}, 0);
  CHECK(cross_entropy(Var(Tensor::zeros({0, 3})), {}).item() == 0);
}

TEST_CASE("losses: bad targets and shapes name the index, the value and V") {
  Var z(Tensor::zeros({3, 4}));
  CHECK_THROWS_WITH_AS(cross_entropy(z, {0, 4, 1}),
                       doctest::Contains("cross_entropy: target[1] = 4 is out of range for V = 4"), Error);
  CHECK_THROWS_WITH_AS(cross_entropy(z, {0, -1, 1}), doctest::Contains("target[1] = -1"), Error);
  CHECK_THROWS_WITH_AS(nll(z, {0, 1, 9}), doctest::Contains("nll: target[2] = 9 is out of range for V = 4"), Error);
  CHECK_THROWS_WITH_AS(cross_entropy(z, {0, 1}), doctest::Contains("[3, 4] has 3 rows but there are 2 targets"),
                       Error);
  CHECK_THROWS_WITH_AS(cross_entropy(Var(Tensor::zeros({2, 3, 4})), {0, 1}),
                       doctest::Contains("cross_entropy: input [2, 3, 4] must be 2-D (N, V)"), Error);
  CHECK_THROWS_WITH_AS(mse(Var(Tensor::zeros({2, 3})), Var(Tensor::zeros({3, 2}))),
                       doctest::Contains("mse: input [2, 3] and target [3, 2] differ in shape"), Error);
  CHECK_THROWS_WITH_AS(mse(Var(Tensor::zeros({0})), Var(Tensor::zeros({0}))), doctest::Contains("empty"), Error);
}

TEST_CASE("nll and mse: values by hand and gradcheck" * DOUBLE_ONLY(kGradcheckReason)) {
  // nll: -(log p[0, 1] + log p[1, 0]) / 2 = (2 + 0.5) / 2
  CHECK(nll(Var(Tensor({2, 2}, {-1, -2, -0.5, -3})), {1, 0}).item() == 1.25);
  // mse: (0 + 4 + 9) / 3
  CHECK(std::fabs(mse(Var(Tensor({3}, {1, 2, 3})), Var(Tensor({3}, {1, 0, 0}))).item() - 13.0 / 3) <= 1e-15);

  Generator gen(13);
  Var lp(Tensor::uniform({4, 3}, -3, 0, gen), true);
  GradcheckReport r1 = gradcheck([&] { return nll(lp, {2, -100, 0, 2}); }, {lp}, {.name = "nll"});
  INFO(r1.str());
  CHECK(r1.ok);
  Var a(Tensor::uniform({2, 3}, -1, 1, gen), true), b(Tensor::uniform({2, 3}, -1, 1, gen), true);
  GradcheckReport r2 = gradcheck([&] { return mse(a, b); }, {a, b}, {.name = "mse"});
  INFO(r2.str());
  CHECK(r2.ok);
}

}  // TEST_SUITE

TEST_SUITE("ch04_layers") {
  TEST_CASE("chapter 04 shows what its program prints" * DOUBLE_ONLY(kChapterTextReason)) { check_chapter("tutorials/04_classifiers"); }
}
