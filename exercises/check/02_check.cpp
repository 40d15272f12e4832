// Chapter 02's checks: each backward becomes an op of the graph (forward from tensor/ops.h,
// backward the student's) and is gradient-checked in double by central differences, on several
// shapes including 1 x 1, and once with an input used twice (x * x: the gradients must add up).
#include "exercises/02_autograd/exercises.h"
#include "exercises/check/02_check.h"

namespace heed::check {

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
const ForbiddenCalls kForbidden02 = {
    {"tanh_backward", {"heed::tanh(heed::Var const&)", "heed::Var::backward"}},
    {"mul_backward", {"heed::mul(heed::Var const&", "heed::Var::backward"}},
    {"matmul_backward", {"heed::matmul(heed::Var const&", "heed::Var::backward"}},
};

std::vector<Exercise> exercises_02(const Impl02& impl) {
  auto tanh_op = [impl](const Var& x) {
    Tensor y = tanh(x.value());
    return custom_op("tanh", {x}, y, [impl, x, y](const Tensor& dy) {
      return std::vector<Tensor>{impl.tanh_backward(x.value(), y, dy)};
    });
  };
  auto mul_op = [impl](const Var& a, const Var& b) {
    return custom_op("mul", {a, b}, mul(a.value(), b.value()), [impl, a, b](const Tensor& dy) {
      auto [da, db] = impl.mul_backward(a.value(), b.value(), dy);
      return std::vector<Tensor>{da, db};
    });
  };
  auto matmul_op = [impl](const Var& a, const Var& b) {
    return custom_op("matmul", {a, b}, matmul(a.value(), b.value()), [impl, a, b](const Tensor& dy) {
      auto [da, db] = impl.matmul_backward(a.value(), b.value(), dy);
      return std::vector<Tensor>{da, db};
    });
  };
  return {
      {"tanh_backward",
       [tanh_op] {
         Generator gen(seed(201));
         for (Shape s : {Shape{3, 4}, Shape{1, 1}, Shape{5}}) {
           Tensor x = random(s, gen, -2, 2);
           expect_gradcheck("tanh with your tanh_backward", [&](const std::vector<Var>& v) { return tanh_op(v[0]); },
                            {x}, describe("x", x));
         }
       }},
      {"mul_backward",
       [mul_op] {
         Generator gen(seed(202));
         for (Shape s : {Shape{2, 3}, Shape{1, 1}, Shape{4}}) {
           Tensor a = random(s, gen, -2, 2), b = random(s, gen, -2, 2);
           expect_gradcheck("a * b with your mul_backward",
                            [&](const std::vector<Var>& v) { return mul_op(v[0], v[1]); }, {a, b},
                            describe("a", a) + "\n  " + describe("b", b));
         }
         Tensor x = random({3}, gen, -2, 2);
         expect_gradcheck("x * x (one input used twice) with your mul_backward",
                          [&](const std::vector<Var>& v) { return mul_op(v[0], v[0]); }, {x}, describe("x", x));
       }},
      {"matmul_backward",
       [matmul_op] {
         Generator gen(seed(203));
         const std::vector<std::array<int64_t, 3>> cases = {{3, 3, 3}, {2, 3, 4}, {1, 4, 1}, {4, 1, 2}};
         for (auto [M, K, N] : cases) {
           Tensor a = random({M, K}, gen), b = random({K, N}, gen);
           expect_gradcheck("a b with your matmul_backward",
                            [&](const std::vector<Var>& v) { return matmul_op(v[0], v[1]); }, {a, b},
                            describe("a", a) + "\n  " + describe("b", b));
         }
       }},
  };
}

static Register reg({"02", "exercises/02_autograd", "student", [] { return exercises_02(HEED_IMPL_02(heed::student)); }, kForbidden02});

}  // namespace heed::check
