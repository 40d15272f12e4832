// Your heed's elementwise product: heed::mul(a, b) (and so a * b) with your mul_backward (exercise
// 02.2) as its backward rule. make yours links this file in place of heed's
// (autograd/elementwise.cpp) when 02.2 has passed. heed's mul broadcasts and your rule takes one
// shape: a broadcast input is repeated up to the output's shape for your rule, and its gradient
// summed back down to the input's shape, as heed's own backward does.
#include "autograd/elementwise.h"
#include "exercises/02_autograd/exercises.h"

namespace heed {

Var mul(const Var& a, const Var& b) {
  return make_var(mul(a.value(), b.value()), "mul", {a, b}, [](Backward& g) {
    const Tensor& av = g.input(0);
    const Tensor& bv = g.input(1);
    const Shape& s = g.grad().shape();
    auto [da, db] = student::mul_backward(av.shape() == s ? av : broadcast_to(av, s),
                                          bv.shape() == s ? bv : broadcast_to(bv, s), g.grad());  // yours: b dy, a dy
    if (da.shape() != s || db.shape() != s)
      throw Error("mul (yours, exercise 02.2): mul_backward returned " + shape_str(da.shape()) + " and " +
                  shape_str(db.shape()) + " for a and b of " + shape_str(s));
    if (g.wants(0)) g.add(0, sum_to(da, av.shape()));  // da += b dy, summed over a's broadcast axes
    if (g.wants(1)) g.add(1, sum_to(db, bv.shape()));  // db += a dy, likewise
  });
}

}  // namespace heed
