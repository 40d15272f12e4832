// Chapter 04's checks: softmax's backward gradient-checked as a graph op; cross-entropy's value
// and gradient against the library's fused op (nn/loss.h) on random logits, an ignored row, one
// row, logits of 1000 and a batch with every row ignored; linear_forward's values against the
// library's linear and its gradients by gradcheck; embedding_backward against the library's
// embedding op with repeated ids and padding; adam_step against nn/optim.h's Adam over 5 steps.
// Each also on larger inputs drawn per seed (sizes up to 99, a vocabulary past 64), held to the
// library's values and gradients.
#include <cmath>

#include "exercises/04_classifiers/exercises.h"
#include "exercises/check/04_check.h"
#include "nn/embedding.h"
#include "nn/loss.h"
#include "nn/optim.h"

namespace heed::check {

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
const ForbiddenCalls kForbidden04 = {
    {"softmax_backward", {"heed::softmax(heed::Var const&", "heed::Var::backward"}},
    {"cross_entropy_value", {"heed::cross_entropy", "heed::nll", "heed::log_softmax(heed::Var const&"}},
    {"cross_entropy_backward", {"heed::cross_entropy", "heed::nll", "heed::Var::backward"}},
    {"linear_forward", {"heed::linear", "heed::Linear"}},
    {"embedding_backward", {"heed::embedding", "heed::Embedding", "heed::Var::backward"}},
    {"adam_step", {"heed::Adam", "heed::Optimizer"}},
};

namespace {

std::string ids_str(const std::vector<int64_t>& ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", " : "") + std::to_string(ids[i]);
  return s + "]";
}

struct CeCase {
  Tensor logits;
  std::vector<int64_t> targets;
};

// A larger case, drawn per seed (check.h, odd_size): N rows over a vocabulary of V, about one
// target in five ignored.
CeCase large_ce_case(Generator& gen) {
  const int64_t N = odd_size(gen, 17, 63), V = odd_size(gen, 65, 99);
  CeCase c{random({N, V}, gen, -3, 3), {}};
  for (int64_t r = 0; r < N; ++r) c.targets.push_back(gen.randint(0, 4) == 0 ? -100 : gen.randint(0, V - 1));
  return c;
}

std::vector<CeCase> ce_cases() {
  Generator gen(seed(402));
  return {
      {random({4, 5}, gen, -2, 2), {1, 0, 4, 2}},
      {random({4, 5}, gen, -2, 2), {3, -100, 0, 3}},  // row 1 ignored
      {random({1, 3}, gen, -2, 2), {2}},
      {Tensor({2, 3}, {1000, 998, 990, -1000, -1003, -1001}), {0, 2}},  // exp(1000) overflows
      {random({2, 3}, gen, -2, 2), {-100, -100}},                          // nothing kept: 0
      large_ce_case(gen),
  };
}

}  // namespace

std::vector<Exercise> exercises_04(const Impl04& impl) {
  return {
      {"softmax_backward",
       [impl] {
         Generator gen(seed(401));
         for (Shape s : {Shape{3, 4}, Shape{1, 5}, Shape{2, 1}}) {
           Tensor x = random(s, gen, -2, 2);
           expect_gradcheck(
               "softmax with your softmax_backward",
               [&](const std::vector<Var>& v) {
                 Tensor y = softmax(v[0].value(), 1);
                 return custom_op("softmax", {v[0]}, y, [impl, y](const Tensor& dy) {
                   return std::vector<Tensor>{impl.softmax_backward(y, dy)};
                 });
               },
               {x}, describe("x", x));
         }
         // A larger x, drawn per seed (check.h, odd_size): the gradient against heed's softmax's.
         Tensor x = random({odd_size(gen, 17, 63), odd_size(gen, 65, 99)}, gen, -2, 2);
         expect_same_as(
             "softmax with your softmax_backward",
             [&](const std::vector<Var>& v) {
               Tensor y = softmax(v[0].value(), 1);
               return custom_op("softmax", {v[0]}, y,
                                [impl, y](const Tensor& dy) { return std::vector<Tensor>{impl.softmax_backward(y, dy)}; });
             },
             [](const std::vector<Var>& v) { return softmax(v[0], 1); }, {x}, describe("x", x), gen);
       }},
      {"cross_entropy_value",
       [impl] {
         for (const CeCase& c : ce_cases()) {
           real expected = cross_entropy(Var(c.logits), c.targets, -100).item();
           real got = impl.cross_entropy_value(c.logits, c.targets, -100);
           expect_close(Tensor::scalar(got), Tensor::scalar(expected), "cross_entropy_value",
                        describe("logits", c.logits) + "\n  targets " + ids_str(c.targets) + " (ignore_index -100)",
                        1e-10, 1e-12);
         }
       }},
      {"cross_entropy_backward",
       [impl] {
         for (const CeCase& c : ce_cases()) {
           Var logits(c.logits, true);
           cross_entropy(logits, c.targets, -100).backward();
           expect_close(impl.cross_entropy_backward(c.logits, c.targets, -100), logits.grad(),
                        "cross_entropy_backward (the gradient of the mean loss)",
                        describe("logits", c.logits) + "\n  targets " + ids_str(c.targets) + " (ignore_index -100)",
                        1e-10, 1e-12);
         }
       }},
      {"linear_forward",
       [impl] {
         Generator gen(seed(404));
         for (int64_t N : {3, 1}) {
           Tensor x = random({N, 3}, gen), W = random({4, 3}, gen), b = random({4}, gen);
           const std::string in = describe("x", x) + "\n  " + describe("W", W) + "\n  " + describe("b", b);
           Var got = impl.linear_forward(Var(x), Var(W), Var(b));
           expect_close(got.value(), linear(Var(x), Var(W), Var(b)).value(), "linear_forward(x, W, b)", in, 1e-12, 1e-14);
           expect_gradcheck("linear_forward", [&](const std::vector<Var>& v) { return impl.linear_forward(v[0], v[1], v[2]); },
                            {x, W, b}, in + "\n  (input 0 is x, 1 is W, 2 is b)");
         }
         // Larger ones, drawn per seed: values and gradients against heed's linear.
         for (auto [lo, hi] : {std::pair<int64_t, int64_t>{17, 63}, {65, 99}}) {
           const int64_t N = odd_size(gen, lo, hi), I = odd_size(gen, lo, hi), O = odd_size(gen, lo, hi);
           Tensor x = random({N, I}, gen), W = random({O, I}, gen), b = random({O}, gen);
           expect_same_as("linear_forward(x, W, b)",
                          [&](const std::vector<Var>& v) { return impl.linear_forward(v[0], v[1], v[2]); },
                          [](const std::vector<Var>& v) { return linear(v[0], v[1], v[2]); }, {x, W, b},
                          describe("x", x) + "\n  " + describe("W", W) + "\n  " + describe("b", b), gen, 1e-12, 1e-13);
         }
       }},
      {"embedding_backward",
       [impl] {
         Generator gen(seed(405));
         auto check = [&](const std::vector<int64_t>& ids, int64_t padding_idx, int64_t V, int64_t E) {
           Tensor dy = random({static_cast<int64_t>(ids.size()), E}, gen);
           Var W(random({V, E}, gen), true);
           embedding(W, ids, padding_idx).backward(dy);
           expect_close(impl.embedding_backward(ids, dy, V, padding_idx), W.grad(), "embedding_backward",
                        "ids " + ids_str(ids) + ", V " + std::to_string(V) + ", padding_idx " + std::to_string(padding_idx) +
                            "\n  " + describe("dy", dy),
                        1e-12, 1e-15);
         };
         check({1, 3, 1, 0}, -1, 5, 3);
         check({2, 2, 2}, -1, 5, 3);
         check({0, 4, 0, 3, 4}, 0, 5, 3);
         check({4}, 4, 5, 3);
         // A larger one, drawn per seed (check.h, odd_size): ids with repeats into V rows of E.
         const int64_t V = odd_size(gen, 65, 99), E = odd_size(gen, 17, 63);
         std::vector<int64_t> ids(static_cast<size_t>(odd_size(gen, 65, 99)));
         for (int64_t& id : ids) id = gen.randint(0, V - 1);
         check(ids, gen.randint(0, V - 1), V, E);
       }},
      {"adam_step",
       [impl] {
         Generator gen(seed(406));
         const real lr = 0.1, b1 = 0.9, b2 = 0.999, eps = 1e-8;
         auto check = [&](const Shape& shape) {
           Tensor p0 = random(shape, gen);
           Var ref(p0, true);
           Adam adam({ref}, lr, b1, b2, eps);
           Tensor p = p0, m = Tensor::zeros(p0.shape()), v = Tensor::zeros(p0.shape());
           for (int64_t t = 1; t <= 5; ++t) {
             Tensor g = random(shape, gen, -1, 1);
             adam.zero_grad();
             sum(ref * Var(g)).backward();  // the gradient is g
             adam.step();
             impl.adam_step(p, g, m, v, t, lr, b1, b2, eps);
             expect_close(p, ref.value(), "p after adam_step at step t = " + std::to_string(t),
                          "lr 0.1, b1 0.9, b2 0.999, eps 1e-8, " + describe("p at the start", p0) + "\n  " + describe("g", g),
                          1e-10, 1e-12);
           }
         };
         check({2, 3});
         check({odd_size(gen, 33, 99), odd_size(gen, 33, 99)});  // a larger one, drawn per seed (check.h)
       }},
  };
}

static Register reg({"04", "exercises/04_classifiers", "student",
                     [] { return exercises_04(HEED_IMPL_04(heed::student)); }, kForbidden04});

}  // namespace heed::check
