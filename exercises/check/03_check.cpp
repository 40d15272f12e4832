// Chapter 03's checks. numeric_gradient against derivatives known in closed form, at eps 1e-3,
// where a central difference is good to about 1e-6 and a one-sided one only to about 1e-3; the
// two backward functions become graph ops and are gradient-checked by the library's gradcheck.
#include <cmath>

#include "exercises/03_gradient_checking/exercises.h"
#include "exercises/check/03_check.h"

namespace heed::check {

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
const ForbiddenCalls kForbidden03 = {
    {"numeric_gradient", {"heed::gradcheck"}},
    {"softplus_backward", {"heed::Var::backward", "heed::gradcheck"}},
    {"div_backward", {"heed::div(heed::Var const&", "heed::Var::backward"}},
};

std::vector<Exercise> exercises_03(const Impl03& impl) {
  return {
      {"numeric_gradient",
       [impl] {
         Generator gen(seed(301));
         // f(x) = sum_i exp(x_i) * x_i^2, df/dx_i = exp(x_i) (x_i^2 + 2 x_i).
         auto f = [](const Tensor& x) {
           real s = 0;
           for (int64_t i = 0; i < x.numel(); ++i) s += std::exp(x[i]) * x[i] * x[i];
           return s;
         };
         for (Shape s : {Shape{2, 3}, Shape{1}, Shape{4}}) {
           Tensor x = random(s, gen, -1.5, 1.5);
           Tensor expected = Tensor::zeros(s);
           for (int64_t i = 0; i < x.numel(); ++i) expected[i] = std::exp(x[i]) * (x[i] * x[i] + 2 * x[i]);
           const Tensor before = x;
           Tensor got = impl.numeric_gradient(f, x, 1e-3);
           if (!equal(x, before)) wrong("numeric_gradient changed its input x");
           expect_close(got, expected, "numeric_gradient(f, x, 1e-3) for f(x) = sum exp(x) x^2",
                        describe("x", x), 1e-5, 1e-6);
         }
         // That f is a sum of one-element terms: a difference that leaves element i moved while it
         // probes element j still gets every g[j] right. f(x) = (sum_i x_i)^2 / 2 + sum_i x_i^3 / 3
         // couples them, df/dx_i = sum_j x_j + x_i^2: each element left at x_i -/+ eps moves every
         // later g[j] by eps = 1e-3, a hundred times the tolerance.
         auto coupled = [](const Tensor& x) {
           real total = 0, cubes = 0;
           for (int64_t i = 0; i < x.numel(); ++i) total += x[i], cubes += x[i] * x[i] * x[i] / 3;
           return total * total / 2 + cubes;
         };
         for (Shape s : {Shape{2, 3}, Shape{4}}) {
           Tensor x = random(s, gen, -1.5, 1.5);
           real total = 0;
           for (int64_t i = 0; i < x.numel(); ++i) total += x[i];
           Tensor expected = Tensor::zeros(s);
           for (int64_t i = 0; i < x.numel(); ++i) expected[i] = total + x[i] * x[i];
           expect_close(impl.numeric_gradient(coupled, x, 1e-3), expected,
                        "numeric_gradient(f, x, 1e-3) for f(x) = (sum x)^2 / 2 + sum x^3 / 3, whose elements are "
                        "coupled (is every element put back before the next is probed?)",
                        describe("x", x), 1e-5, 1e-6);
         }
       }},
      {"softplus_backward",
       [impl] {
         Generator gen(seed(302));
         for (Shape s : {Shape{2, 3}, Shape{1}}) {
           Tensor x = random(s, gen, -3, 3);
           expect_gradcheck(
               "softplus with your softplus_backward",
               [&](const std::vector<Var>& v) {
                 Tensor y = log(add(exp(v[0].value()), 1.0));
                 Var xv = v[0];
                 return custom_op("softplus", {xv}, y, [impl, xv](const Tensor& dy) {
                   return std::vector<Tensor>{impl.softplus_backward(xv.value(), dy)};
                 });
               },
               {x}, describe("x", x));
         }
         // Far from 0 a gradient check cannot follow (the forward overflows too), but the derivative
         // sigmoid(x) is between 0 and 1 everywhere: exp(x) / (1 + exp(x)) is inf / inf = NaN once
         // exp(x) overflows. Compared with the library's sigmoid, which never overflows.
         Tensor far({6}, {-1000, -100, -30, 30, 100, 1000}), dy({6}, {1, 2, -1, 1, 0.5, -2});
         expect_close(impl.softplus_backward(far, dy), mul(dy, sigmoid(far)),
                      "softplus_backward far from 0 (is sigmoid(x) computed without overflow?)",
                      describe("x", far) + "\n  " + describe("dy", dy), 1e-12, 0);
       }},
      {"div_backward",
       [impl] {
         Generator gen(seed(303));
         for (Shape s : {Shape{2, 3}, Shape{1}}) {
           Tensor a = random(s, gen, -2, 2), b = random(s, gen, 0.5, 2);
           expect_gradcheck(
               "a / b with your div_backward",
               [&](const std::vector<Var>& v) {
                 Var a = v[0], b = v[1];
                 return custom_op("div", {a, b}, div(a.value(), b.value()), [impl, a, b](const Tensor& dy) {
                   auto [da, db] = impl.div_backward(a.value(), b.value(), dy);
                   return std::vector<Tensor>{da, db};
                 });
               },
               {a, b}, describe("a", a) + "\n  " + describe("b", b));
         }
       }},
  };
}

static Register reg({"03", "exercises/03_gradient_checking", "student",
                     [] { return exercises_03(HEED_IMPL_03(heed::student)); }, kForbidden03});

}  // namespace heed::check
