// Elementwise ops, unary and binary with broadcasting, and where / masked_fill: each one forward
// (a tensor/elementwise.cpp kernel) and its backward right below, the derivative as a comment.
// Reference: none needed, each forward is one kernel call; tests/autograd/ch03_gradcheck_test.cpp checks
// every backward against central differences.
#include <cmath>

#include "autograd/elementwise.h"
#include "tensor/math.h"

namespace heed {

namespace {

// out = f(x) elementwise; backward: dx += dy * g(x, y), where `g` is the local derivative.
// Nothing is copied for the backward: x is the input node's value and y the node's own, both
// alive as long as the graph is.
template <class Deriv>
Var unary(const Var& x, Tensor y, const char* op, Deriv deriv) {
  return make_var(std::move(y), op, {x}, [deriv](Backward& g) {
    const Tensor& xv = g.input(0);
    const Tensor& yv = g.value();
    Tensor d = g.grad();
    for (int64_t i = 0; i < d.numel(); ++i) d[i] *= deriv(xv[i], yv[i]);
    g.add(0, std::move(d));
  });
}

}  // namespace

Var neg(const Var& x) {
  return make_var(neg(x.value()), "neg", {x}, [](Backward& g) {
    g.add(0, neg(g.grad()));  // dx += -dy
  });
}

Var exp(const Var& x) {
  return unary(x, exp(x.value()), "exp", [](real, real y) { return y; });  // dx += y * dy
}

Var log(const Var& x) {
  return unary(x, log(x.value()), "log", [](real x, real) { return 1 / x; });  // dx += dy / x
}

Var tanh(const Var& x) {
  return unary(x, tanh(x.value()), "tanh", [](real, real y) { return std::fma(-y, y, 1); });  // dx += (1 - y^2) dy
}

Var sigmoid(const Var& x) {
  return unary(x, sigmoid(x.value()), "sigmoid", [](real, real y) { return y * (1 - y); });  // dx += y(1-y) dy
}

Var relu(const Var& x) {
  return unary(x, relu(x.value()), "relu", [](real x, real) { return x > 0 ? 1.0 : 0.0; });  // dx += [x > 0] dy
}

Var sqrt(const Var& x) {
  return unary(x, sqrt(x.value()), "sqrt", [](real, real y) { return 0.5 / y; });  // dx += dy / (2 y)
}

Var pow(const Var& x, real p) {
  return unary(x, pow(x.value(), p), "pow",
               [p](real x, real) { return p * math::pow(x, p - 1); });  // dx += p x^(p-1) dy
}

Var add(const Var& a, const Var& b) {
  Shape sa = a.shape(), sb = b.shape();
  return make_var(add(a.value(), b.value()), "add", {a, b}, [sa, sb](Backward& g) {
    const bool wa = g.wants(0), wb = g.wants(1);
    if (wa) g.add(0, wb || sa != g.grad().shape() ? sum_to(g.grad(), sa) : g.take_grad());  // da += dy
    if (wb) g.add(1, sb != g.grad().shape() ? sum_to(g.grad(), sb) : g.take_grad());        // db += dy
  });
}

Var sub(const Var& a, const Var& b) {
  Shape sa = a.shape(), sb = b.shape();
  return make_var(sub(a.value(), b.value()), "sub", {a, b}, [sa, sb](Backward& g) {
    if (g.wants(0)) g.add(0, sum_to(g.grad(), sa));       // da += dy
    if (g.wants(1)) g.add(1, neg(sum_to(g.grad(), sb)));  // db += -dy
  });
}

Var mul(const Var& a, const Var& b) {
  return make_var(mul(a.value(), b.value()), "mul", {a, b}, [](Backward& g) {
    const Tensor& av = g.input(0);  // each is the other's derivative
    const Tensor& bv = g.input(1);
    if (g.wants(0)) g.add(0, sum_to(mul(g.grad(), bv), av.shape()));  // da += b dy
    if (g.wants(1)) g.add(1, sum_to(mul(g.grad(), av), bv.shape()));  // db += a dy
  });
}

Var div(const Var& a, const Var& b) {
  return make_var(div(a.value(), b.value()), "div", {a, b}, [](Backward& g) {
    const Tensor& av = g.input(0);
    const Tensor& bv = g.input(1);
    if (g.wants(0)) g.add(0, sum_to(div(g.grad(), bv), av.shape()));  // da += dy / b
    if (g.wants(1))  // db += -a dy / b^2
      g.add(1, sum_to(neg(div(mul(g.grad(), av), mul(bv, bv))), bv.shape()));
  });
}

Var add(const Var& a, real b) {
  return make_var(add(a.value(), b), "add", {a}, [](Backward& g) {
    g.add(0, g.grad());  // da += dy
  });
}

Var mul(const Var& a, real b) {
  return make_var(mul(a.value(), b), "mul", {a}, [b](Backward& g) {
    g.add(0, mul(g.grad(), b));  // da += b dy
  });
}

Var operator+(const Var& a, const Var& b) { return add(a, b); }
Var operator-(const Var& a, const Var& b) { return sub(a, b); }
Var operator*(const Var& a, const Var& b) { return mul(a, b); }
Var operator/(const Var& a, const Var& b) { return div(a, b); }
Var operator-(const Var& a) { return neg(a); }
Var operator+(const Var& a, real b) { return add(a, b); }
Var operator+(real a, const Var& b) { return add(b, a); }
Var operator-(const Var& a, real b) { return add(a, -b); }
Var operator-(real a, const Var& b) { return add(neg(b), a); }
Var operator*(const Var& a, real b) { return mul(a, b); }
Var operator*(real a, const Var& b) { return mul(b, a); }
Var operator/(const Var& a, real b) { return mul(a, 1 / b); }

Var masked_fill(const Var& x, const Tensor& mask, real value) {
  return make_var(masked_fill(x.value(), mask, value), "masked_fill", {x}, [mask](Backward& g) {
    g.add(0, masked_fill(g.grad(), mask, 0));  // dx += dy where not masked
  });
}

Var where(const Tensor& cond, const Var& a, const Var& b) {
  Tensor y = where(cond, a.value(), b.value());
  Tensor c = broadcast_to(cond, a.shape());  // saved: it routes the gradient
  return make_var(std::move(y), "where", {a, b}, [c](Backward& g) {
    Tensor zero = Tensor::zeros(g.grad().shape());
    if (g.wants(0)) g.add(0, where(c, g.grad(), zero));  // da += dy where cond
    if (g.wants(1)) g.add(1, where(c, zero, g.grad()));  // db += dy elsewhere
  });
}

}  // namespace heed
