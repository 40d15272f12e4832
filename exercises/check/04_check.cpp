// Chapter 04's checks: softmax's backward gradient-checked as a graph op; cross-entropy's value
// and gradient against the library's fused op (nn/loss.h) on random logits, an ignored row, one
// row, logits of 1000 and a batch with every row ignored; linear_forward's values against the
// library's linear and its gradients by gradcheck; embedding_backward against the library's
// embedding op with repeated ids and padding; adam_step against nn/optim.h's Adam over 5 steps.
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

std::vector<CeCase> ce_cases() {
  Generator gen(seed(402));
  return {
      {random({4, 5}, gen, -2, 2), {1, 0, 4, 2}},
      {random({4, 5}, gen, -2, 2), {3, -100, 0, 3}},  // row 1 ignored
      {random({1, 3}, gen, -2, 2), {2}},
      {Tensor({2, 3}, {1000, 998, 990, -1000, -1003, -1001}), {0, 2}},  // exp(1000) overflows
      {random({2, 3}, gen, -2, 2), {-100, -100}},                          // nothing kept: 0
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
       }},
      {"embedding_backward",
       [impl] {
         Generator gen(seed(405));
         struct Case {
           std::vector<int64_t> ids;
           int64_t padding_idx;
         };
         for (const Case& c : {Case{{1, 3, 1, 0}, -1}, Case{{2, 2, 2}, -1}, Case{{0, 4, 0, 3, 4}, 0}, Case{{4}, 4}}) {
           const int64_t V = 5, E = 3;
           Tensor dy = random({static_cast<int64_t>(c.ids.size()), E}, gen);
           Var W(random({V, E}, gen), true);
           embedding(W, c.ids, c.padding_idx).backward(dy);
           expect_close(impl.embedding_backward(c.ids, dy, V, c.padding_idx), W.grad(), "embedding_backward",
                        "ids " + ids_str(c.ids) + ", V 5, padding_idx " + std::to_string(c.padding_idx) + "\n  " +
                            describe("dy", dy),
                        1e-12, 1e-15);
         }
       }},
      {"adam_step",
       [impl] {
         Generator gen(seed(406));
         const real lr = 0.1, b1 = 0.9, b2 = 0.999, eps = 1e-8;
         Tensor p0 = random({2, 3}, gen);
         Var ref(p0, true);
         Adam adam({ref}, lr, b1, b2, eps);
         Tensor p = p0, m = Tensor::zeros(p0.shape()), v = Tensor::zeros(p0.shape());
         for (int64_t t = 1; t <= 5; ++t) {
           Tensor g = random({2, 3}, gen, -1, 1);
           adam.zero_grad();
           sum(ref * Var(g)).backward();  // the gradient is g
           adam.step();
           impl.adam_step(p, g, m, v, t, lr, b1, b2, eps);
           expect_close(p, ref.value(), "p after adam_step at step t = " + std::to_string(t),
                        "lr 0.1, b1 0.9, b2 0.999, eps 1e-8, " + describe("p at the start", p0) + "\n  " + describe("g", g),
                        1e-10, 1e-12);
         }
       }},
  };
}

static Register reg({"04", "exercises/04_classifiers", "student",
                     [] { return exercises_04(HEED_IMPL_04(heed::student)); }, kForbidden04});

}  // namespace heed::check
