// Chapter 04: optimisers (SGD, Adam), gradient clipping, and training a small Module tree.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "nn/loss.h"
#include "nn/module.h"
#include "nn/optim.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

void check_values(const Tensor& got, const std::vector<real>& want, real tol) {
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    CHECK(std::fabs(got[i] - want[i]) <= tol);
  }
}

}  // namespace

TEST_SUITE("ch04_layers") {

// ---- optimisers. The golden values come from PyTorch 1.13 in float64:
//   import torch; torch.set_default_dtype(torch.float64)
//   x = torch.tensor([[.5, -1., 2.], [1.5, .25, -.5], [-2., 1., .75], [0., -.5, 1.25]]); t = torch.tensor([0, 1, 1, 0])
//   def run(make_opt):
//       lin = torch.nn.Linear(3, 2)
//       with torch.no_grad():
//           lin.weight.copy_(torch.tensor([[.1, -.2, .3], [.4, .5, -.6]])); lin.bias.copy_(torch.tensor([.05, -.05]))
//       opt = make_opt(lin.parameters())
//       for _ in range(3):
//           opt.zero_grad(); torch.nn.functional.cross_entropy(lin(x), t).backward(); opt.step()
//       return lin.weight.flatten().tolist() + lin.bias.tolist()
//   print(run(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01)))
//   print(run(lambda p: torch.optim.Adam(p, lr=0.01)))
//   print(run(lambda p: torch.optim.Adam(p, lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)))

namespace {

struct GoldenProblem {
  Generator gen{0};
  Linear lin{3, 2, true, gen};
  Var x{Tensor({4, 3}, {.5, -1, 2, 1.5, .25, -.5, -2, 1, .75, 0, -.5, 1.25})};
  std::vector<int64_t> t{0, 1, 1, 0};

  GoldenProblem() {
    lin.weight.value() = Tensor({2, 3}, {.1, -.2, .3, .4, .5, -.6});
    lin.bias.value() = Tensor({2}, {.05, -.05});
  }
  // Three steps of `opt`; returns weight then bias, flattened.
  Tensor run(Optimizer& opt) {
    for (int i = 0; i < 3; ++i) {
      opt.zero_grad();
      cross_entropy(lin.forward(x), t).backward();
      opt.step();
    }
    return concat({reshape(lin.weight.value(), {-1}), lin.bias.value()}, 0);
  }
};

}  // namespace

TEST_CASE("SGD with momentum and weight decay: three steps equal PyTorch's" * DOUBLE_ONLY(kPytorchFp64Reason)) {
  GoldenProblem p;
  SGD sgd(p.lin.parameters(), 0.1, 0.9, 0.01);
  check_values(p.run(sgd),
               {0.2224084677846822, -0.3196177351523402, 0.3037978222649344, 0.2747889317153178, 0.6179361748523402,
                -0.6021162619649345, -0.04221135468505967, 0.04221135468505965},
               1e-12);
}

TEST_CASE("Adam: three steps equal PyTorch's, with default and with custom settings" * DOUBLE_ONLY(kPytorchFp64Reason)) {
  GoldenProblem p;
  Adam adam(p.lin.parameters(), 0.01);
  check_values(p.run(adam),
               {0.12996458492497895, -0.22997642009526018, 0.33004167085593944, 0.3700354150750211,
                0.5299764200952601, -0.6300416708559393, 0.020015328825969042, -0.020015328825969042},
               1e-12);
  CHECK(adam.steps() == 3);
  GoldenProblem q;
  Adam custom(q.lin.parameters(), 0.01, 0.8, 0.99, 1e-6, 0.1);
  check_values(q.run(custom),
               {0.1298711092481239, -0.22994777939899033, 0.27151148205598824, 0.37010245720546187,
                0.529937939554644, -0.570437845340449, 0.020094654588650143, -0.020094654588650143},
               1e-12);
}

TEST_CASE("SGD: plain steps by hand; updates are in place; set_lr and zero_grad") {
  Var w(Tensor({2}, {1, -2}), true);
  const real* data = w.value().data();
  SGD sgd({w}, 0.1);
  for (int i = 0; i < 2; ++i) {
    sgd.zero_grad();
    sum(w * w).backward();  // dw = 2 w, so w <- 0.8 w
    sgd.step();
  }
  check_values(w.value(), {0.64, -1.28}, 1e-15);
  CHECK(w.value().data() == data);  // the parameter's own buffer, updated in place
  sgd.set_lr(0.5);
  CHECK(sgd.lr() == 0.5);
  sgd.zero_grad();
  CHECK(!w.has_grad());
  sum(w * w).backward();
  sgd.step();  // w <- (1 - 2 * 0.5) w = 0
  check_values(w.value(), {0, 0}, 0);
}

TEST_CASE("optimisers: a parameter with no gradient is treated as a zero gradient") {
  Var a(Tensor({2}, {1, -2}), true);
  SGD sgd({a}, 0.1, 0.9, 0.5);
  sgd.step();  // no backward: g = 0 + 0.5 a; buf = g; a <- a - 0.05 a
  check_values(a.value(), {0.95, -1.9}, 1e-15);
  CHECK(!a.has_grad());  // and no gradient was made for it
  Var b(Tensor({2}, {1, -2}), true);
  Adam adam({b}, 0.1);
  adam.step();
  check_values(b.value(), {1, -2}, 0);  // zero moments: no motion
}

TEST_CASE("optimisers: bad arguments and parameters throw") {
  Var w(Tensor({2}, {1, 2}), true);
  CHECK_THROWS_WITH_AS(SGD({w}, -0.1), doctest::Contains("SGD: lr = -0.1 must be finite and >= 0"), Error);
  CHECK_THROWS_WITH_AS(Adam({w}, 1e-3, 1.0), doctest::Contains("Adam: beta1 = 1 must be in [0, 1)"), Error);
  CHECK_THROWS_WITH_AS(Adam({w}, 1e-3, 0.9, 0.999, -1), doctest::Contains("eps = -1"), Error);
  CHECK_THROWS_WITH_AS(SGD({Var(Tensor({2}, {1, 2}))}, 0.1),
                       doctest::Contains("parameter 0 of shape [2] must be a leaf that requires grad"), Error);
  CHECK_THROWS_WITH_AS(SGD({w, w * 2.0}, 0.1), doctest::Contains("parameter 1 of shape [2] must be a leaf"), Error);
  CHECK_THROWS_WITH_AS(Adam({w, Var()}), doctest::Contains("parameter 1 is an empty Var"), Error);
  Adam adam({w});
  CHECK_THROWS_WITH_AS(adam.set_lr(NAN), doctest::Contains("lr = nan"), Error);
  w.grad() = Tensor::zeros({5});
  CHECK_THROWS_WITH_AS(adam.step(), doctest::Contains("Adam: parameter 0 of shape [2] has a gradient of shape [5]"),
                       Error);
  w.value() = Tensor::zeros({3});
  CHECK_THROWS_WITH_AS(adam.step(), doctest::Contains("Adam: parameter 0 now has shape [3]"), Error);
}

TEST_CASE("clip_grad_norm returns the norm before clipping and clips to max_norm") {
  Var a(Tensor({1}, {0}), true), b(Tensor({2}, {0, 0}), true), unused(Tensor({1}, {0}), true);
  a.grad() = Tensor({1}, {3});
  b.grad() = Tensor({2}, {0, 4});
  std::vector<Var> params{a, b, unused};
  CHECK(clip_grad_norm(params, 10) == 5);  // under the limit: untouched
  check_values(b.grad(), {0, 4}, 0);
  CHECK(!unused.has_grad());  // no gradient was made for it
  CHECK(clip_grad_norm(params, 1) == 5);
  real coef = 1 / (5 + 1e-6);  // max_norm / (norm + 1e-6), as torch
  check_values(a.grad(), {3 * coef}, 1e-16);
  check_values(b.grad(), {0, 4 * coef}, 1e-16);
  CHECK(std::fabs(clip_grad_norm(params, 1) - 1) <= 1e-6);  // the new norm is max_norm (less 1e-6)
  b.grad()[0] = NAN;
  CHECK_THROWS_WITH_AS(clip_grad_norm(params, 1), doctest::Contains("clip_grad_norm: the gradient norm is nan"),
                       Error);
}

namespace {

struct Decoder : Module {
  Embedding embed;
  Linear out;
  explicit Decoder(Generator& gen) : embed(6, 4, gen, 0), out(4, 6, true, gen) {
    register_module("embed", embed);
    register_module("out", out);
  }
};

struct Model : Module {
  Var scale;
  Linear proj;
  Decoder decoder;
  explicit Model(Generator& gen) : proj(4, 4, false, gen), decoder(gen) {
    scale = register_parameter("scale", Tensor::scalar(1));
    register_module("proj", proj);
    register_module("decoder", decoder);
  }
  Var loss(const std::vector<int64_t>& ids, const std::vector<int64_t>& targets) const {
    Var h = tanh(proj.forward(decoder.embed.forward(ids)) * scale);  // (N, E)
    return cross_entropy(decoder.out.forward(h), targets, 0);
  }
};

}  // namespace

TEST_CASE("Module tree: dotted names in a fixed order, and training reduces the loss") {
  Generator gen(17);
  Model m(gen);
  std::vector<std::string> names;
  for (auto& [name, v] : m.named_parameters()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"scale", "proj.weight", "decoder.embed.weight", "decoder.out.weight",
                                          "decoder.out.bias"});
  CHECK(m.num_parameters() == 1 + 16 + 24 + 24 + 6);

  std::vector<int64_t> ids{1, 2, 3, 4, 5, 0}, targets{2, 3, 4, 5, 1, 0};  // the last is PAD
  Adam adam(m.parameters(), 0.05);
  real first = m.loss(ids, targets).item();
  for (int i = 0; i < 20; ++i) {
    adam.zero_grad();
    Var l = m.loss(ids, targets);
    l.backward();
    clip_grad_norm(adam.params(), 1.0);
    adam.step();
  }
  real last = m.loss(ids, targets).item();
  INFO("loss " << first << " -> " << last);
  CHECK(last < 0.5 * first);
  check_values(slice(m.decoder.embed.weight.value(), 0, 0, 1), {0, 0, 0, 0}, 0);  // PAD row untouched
}

}  // TEST_SUITE
