// Elementwise functions, reductions, softmax and masking, with their backward.
#include <cmath>

#include "autograd/functions.h"
#include "autograd/node_util.h"

namespace heed {

namespace {

// out = f(x) elementwise; backward: dx += dy * g(x, y), where `g` is the local derivative.
// Nothing is copied for the backward: x is the input node's value and y the node's own, both
// alive as long as the graph is.
template <class Deriv>
Var unary(const Var& x, Tensor y, const char* op, Deriv g) {
  return make_var(std::move(y), op, {x}, [g](Node& self) {
    Node* a = wants_grad(self, 0);
    const Tensor& xv = a->value;
    const Tensor& yv = self.value;
    Tensor d = self.grad;
    for (int64_t i = 0; i < d.numel(); ++i) d[i] *= g(xv[i], yv[i]);
    a->accumulate(std::move(d));
  });
}

}  // namespace

Var neg(const Var& x) {
  return make_var(neg(x.value()), "neg", {x}, [](Node& self) {
    wants_grad(self, 0)->accumulate(neg(self.grad));  // dx += -dy
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
               [p](real x, real) { return p * std::pow(x, p - 1); });  // dx += p x^(p-1) dy
}

Var add(const Var& a, const Var& b) {
  Shape sa = a.shape(), sb = b.shape();
  return make_var(add(a.value(), b.value()), "add", {a, b}, [sa, sb](Node& self) {
    Node *na = wants_grad(self, 0), *nb = wants_grad(self, 1);
    if (na) na->accumulate(nb || sa != self.grad.shape() ? sum_to(self.grad, sa) : take_grad(self));  // da += dy
    if (nb) nb->accumulate(sb != self.grad.shape() ? sum_to(self.grad, sb) : take_grad(self));        // db += dy
  });
}

Var sub(const Var& a, const Var& b) {
  Shape sa = a.shape(), sb = b.shape();
  return make_var(sub(a.value(), b.value()), "sub", {a, b}, [sa, sb](Node& self) {
    if (Node* n = wants_grad(self, 0)) n->accumulate(sum_to(self.grad, sa));       // da += dy
    if (Node* n = wants_grad(self, 1)) n->accumulate(neg(sum_to(self.grad, sb)));  // db += -dy
  });
}

Var mul(const Var& a, const Var& b) {
  return make_var(mul(a.value(), b.value()), "mul", {a, b}, [](Node& self) {
    const Tensor& av = self.inputs[0]->value;  // each is the other's derivative
    const Tensor& bv = self.inputs[1]->value;
    if (Node* n = wants_grad(self, 0)) n->accumulate(sum_to(mul(self.grad, bv), av.shape()));  // da += b dy
    if (Node* n = wants_grad(self, 1)) n->accumulate(sum_to(mul(self.grad, av), bv.shape()));  // db += a dy
  });
}

Var div(const Var& a, const Var& b) {
  return make_var(div(a.value(), b.value()), "div", {a, b}, [](Node& self) {
    const Tensor& av = self.inputs[0]->value;
    const Tensor& bv = self.inputs[1]->value;
    if (Node* n = wants_grad(self, 0)) n->accumulate(sum_to(div(self.grad, bv), av.shape()));  // da += dy / b
    if (Node* n = wants_grad(self, 1))  // db += -a dy / b^2
      n->accumulate(sum_to(neg(div(mul(self.grad, av), mul(bv, bv))), bv.shape()));
  });
}

Var add(const Var& a, real b) {
  return make_var(add(a.value(), b), "add", {a}, [](Node& self) {
    wants_grad(self, 0)->accumulate(self.grad);  // da += dy
  });
}

Var mul(const Var& a, real b) {
  return make_var(mul(a.value(), b), "mul", {a}, [b](Node& self) {
    wants_grad(self, 0)->accumulate(mul(self.grad, b));  // da += b dy
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

Var sum(const Var& x) {
  Shape s = x.shape();
  return make_var(sum(x.value()), "sum", {x}, [s](Node& self) {
    wants_grad(self, 0)->accumulate(Tensor::full(s, self.grad[0]));  // dx_i += dy
  });
}

namespace {

Shape keepdim_shape(Shape s, int64_t axis) {
  s[axis] = 1;
  return s;
}

}  // namespace

Var sum(const Var& x, int64_t axis, bool keepdim) {
  Shape s = x.shape();
  axis = normalize_axis(axis, x.shape(), "sum");
  return make_var(sum(x.value(), axis, keepdim), "sum", {x}, [s, axis](Node& self) {
    // dx_i += dy (repeated along the summed axis)
    wants_grad(self, 0)->accumulate(broadcast_to(reshape(self.grad, keepdim_shape(s, axis)), s));
  });
}

Var mean(const Var& x) {
  if (x.value().numel() == 0) throw Error("mean: tensor of shape " + shape_str(x.shape()) + " is empty");
  return sum(x) * (1.0 / static_cast<real>(x.value().numel()));  // dx_i += dy / n
}

Var mean(const Var& x, int64_t axis, bool keepdim) {
  axis = normalize_axis(axis, x.shape(), "mean");
  if (x.shape()[axis] == 0) throw Error("mean: cannot reduce an empty axis of shape " + shape_str(x.shape()));
  return sum(x, axis, keepdim) * (1.0 / static_cast<real>(x.shape()[axis]));  // dx_i += dy / n
}

Var max(const Var& x) {
  Shape s = x.shape();
  int64_t at = static_cast<int64_t>(argmax(x.value()).item());
  return make_var(max(x.value()), "max", {x}, [s, at](Node& self) {
    Tensor d = Tensor::zeros(s);
    d[at] = self.grad[0];  // dx_argmax += dy
    wants_grad(self, 0)->accumulate(std::move(d));
  });
}

Var max(const Var& x, int64_t axis, bool keepdim) {
  Shape s = x.shape();
  axis = normalize_axis(axis, x.shape(), "max");
  Tensor at = argmax(x.value(), axis, false);  // saved: where each maximum came from
  return make_var(max(x.value(), axis, keepdim), "max", {x}, [s, axis, at](Node& self) {
    int64_t outer, n, inner;
    split_at_axis(s, axis, outer, n, inner);
    Tensor d = Tensor::zeros(s);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < inner; ++j) {
        int64_t i = static_cast<int64_t>(at[o * inner + j]);
        d[(o * n + i) * inner + j] = self.grad[o * inner + j];  // dx_argmax += dy
      }
    wants_grad(self, 0)->accumulate(std::move(d));
  });
}

Var softmax(const Var& x, int64_t axis) {
  axis = normalize_axis(axis, x.shape(), "softmax");
  return make_var(softmax(x.value(), axis), "softmax", {x}, [axis](Node& self) {
    // dx = y * (dy - sum(dy * y)); the derivative needs only y, the node's own value
    const Tensor& y = self.value;
    Tensor dot = sum(mul(self.grad, y), axis, true);
    wants_grad(self, 0)->accumulate(mul(y, sub(self.grad, dot)));
  });
}

Var log_softmax(const Var& x, int64_t axis) {
  axis = normalize_axis(axis, x.shape(), "log_softmax");
  return make_var(log_softmax(x.value(), axis), "log_softmax", {x}, [axis](Node& self) {
    // dx = dy - exp(y) * sum(dy); exp(y) is the softmax
    const Tensor& y = self.value;
    Tensor total = sum(self.grad, axis, true);
    wants_grad(self, 0)->accumulate(sub(self.grad, mul(exp(y), total)));
  });
}

Var masked_fill(const Var& x, const Tensor& mask, real value) {
  return make_var(masked_fill(x.value(), mask, value), "masked_fill", {x}, [mask](Node& self) {
    wants_grad(self, 0)->accumulate(masked_fill(self.grad, mask, 0));  // dx += dy where not masked
  });
}

Var where(const Tensor& cond, const Var& a, const Var& b) {
  Tensor y = where(cond, a.value(), b.value());
  Tensor c = broadcast_to(cond, a.shape());  // saved: it routes the gradient
  return make_var(std::move(y), "where", {a, b}, [c](Node& self) {
    Tensor zero = Tensor::zeros(self.grad.shape());
    if (Node* n = wants_grad(self, 0)) n->accumulate(where(c, self.grad, zero));  // da += dy where cond
    if (Node* n = wants_grad(self, 1)) n->accumulate(where(c, zero, self.grad));  // db += dy elsewhere
  });
}

}  // namespace heed
