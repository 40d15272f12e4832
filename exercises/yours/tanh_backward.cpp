// Your heed's tanh: heed::tanh(x) with your tanh_backward (exercise 02.1) as its backward rule.
// make yours links this file in place of heed's (autograd/elementwise.cpp) when 02.1 has passed:
// the forward is heed's kernel, every gradient through a tanh is yours.
#include "autograd/elementwise.h"
#include "exercises/02_autograd/exercises.h"

namespace heed {

Var tanh(const Var& x) {
  return make_var(tanh(x.value()), "tanh", {x}, [](Backward& g) {
    Tensor dx = student::tanh_backward(g.input(0), g.value(), g.grad());  // dx += dy (1 - y^2), yours
    if (dx.shape() != g.grad().shape())
      throw Error("tanh (yours, exercise 02.1): tanh_backward returned " + shape_str(dx.shape()) + " for x " +
                  shape_str(g.grad().shape()));
    g.add(0, std::move(dx));
  });
}

}  // namespace heed
