// Your heed's sum along an axis: heed::sum(x, axis, keepdim) on Vars with your sum_backward
// (exercise 02.5) as its backward rule. make yours links this file in place of heed's
// (autograd/reduce.cpp) when 02.5 has passed: the forward is heed's kernel, the gradient yours.
// What runs on it: the cosine score's norms (nn/attention.cpp) and every program's sum along an
// axis. mean(x, axis) is this sum times 1/n, called from inside autograd/reduce.cpp: with g++ -O2
// that call goes through the linker (objdump -dr shows the relocation), so your rule runs there
// too, and with it heed's layer norm (nn/layer_norm.cpp: the mean and the variance of each row,
// the Transformer's, unless your layer_norm piece replaces it); a compiler that inlined heed's sum
// into mean would keep heed's rule for mean. Not on it: sum(x) of everything (a piece replaces
// one function; that rule is dy copied to every element).
#include "autograd/reduce.h"
#include "exercises/02_autograd/exercises.h"

namespace heed {

Var sum(const Var& x, int64_t axis, bool keepdim) {
  axis = normalize_axis(axis, x.shape(), "sum");
  return make_var(sum(x.value(), axis, keepdim), "sum", {x}, [axis, keepdim](Backward& g) {
    // dx_i += dy of the sum x_i went into (dy repeated along the summed axis), yours
    Tensor dx = student::sum_backward(g.input(0), axis, keepdim, g.grad());
    if (dx.shape() != g.input(0).shape())
      throw Error("sum (yours, exercise 02.5): sum_backward returned " + shape_str(dx.shape()) + " for x " +
                  shape_str(g.input(0).shape()) + " summed along axis " + std::to_string(axis));
    g.add(0, std::move(dx));
  });
}

}  // namespace heed
