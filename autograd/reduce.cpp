// Reductions: sum, mean and max, over everything or along one axis, each forward (a
// tensor/reduce.cpp kernel) with its backward right below and the derivative as a comment.
// Reference: each forward is one kernel call; tests/autograd/ch03_gradcheck_test.cpp checks every backward
// against central differences.
#include "autograd/reduce.h"
#include "autograd/elementwise.h"

namespace heed {

Var sum(const Var& x) {
  Shape s = x.shape();
  return make_var(sum(x.value()), "sum", {x}, [s](Backward& g) {
    g.add(0, Tensor::full(s, g.grad()[0]));  // dx_i += dy
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
  return make_var(sum(x.value(), axis, keepdim), "sum", {x}, [s, axis](Backward& g) {
    // dx_i += dy (repeated along the summed axis)
    g.add(0, broadcast_to(reshape(g.grad(), keepdim_shape(s, axis)), s));
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
  int64_t at = argmax_index(x.value());
  return make_var(max(x.value()), "max", {x}, [s, at](Backward& g) {
    Tensor d = Tensor::zeros(s);
    d[at] = g.grad()[0];  // dx_argmax += dy
    g.add(0, std::move(d));
  });
}

Var max(const Var& x, int64_t axis, bool keepdim) {
  Shape s = x.shape();
  axis = normalize_axis(axis, x.shape(), "max");
  Tensor at = argmax(x.value(), axis, false);  // saved: where each maximum came from
  return make_var(max(x.value(), axis, keepdim), "max", {x}, [s, axis, at](Backward& g) {
    int64_t outer, n, inner;
    split_at_axis(s, axis, outer, n, inner);
    Tensor d = Tensor::zeros(s);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < inner; ++j) {
        int64_t i = static_cast<int64_t>(at[o * inner + j]);
        d[(o * n + i) * inner + j] = g.grad()[o * inner + j];  // dx_argmax += dy
      }
    g.add(0, std::move(d));
  });
}

}  // namespace heed
