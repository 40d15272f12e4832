// Your heed's loss: heed::cross_entropy(logits, targets, ignore_index) on your cross_entropy_value
// and cross_entropy_backward (exercises 04.2 and 04.3). make yours links this file in place of
// heed's (autograd/softmax.cpp) when both have passed: every model's training loss is then yours,
// its value and its gradient. The targets are checked here as heed checks them.
#include <string>

#include "exercises/04_classifiers/exercises.h"

namespace heed {

Var cross_entropy(const Var& logits, const std::vector<int64_t>& targets, int64_t ignore_index) {
  const Tensor& x = logits.value();  // (N, V)
  if (x.dim() != 2)
    throw Error("cross_entropy (yours, exercises 04.2-04.3): input " + shape_str(x.shape()) + " must be 2-D (N, V)");
  const int64_t N = x.size(0), V = x.size(1);
  if (static_cast<int64_t>(targets.size()) != N)
    throw Error("cross_entropy (yours, exercises 04.2-04.3): input " + shape_str(x.shape()) + " has " +
                std::to_string(N) + " rows but there are " + std::to_string(targets.size()) + " targets");
  for (int64_t r = 0; r < N; ++r)
    if (targets[r] != ignore_index && (targets[r] < 0 || targets[r] >= V))
      throw Error("cross_entropy (yours, exercises 04.2-04.3): target[" + std::to_string(r) + "] = " +
                  std::to_string(targets[r]) + " is out of range for V = " + std::to_string(V));
  const real loss = student::cross_entropy_value(x, targets, ignore_index);
  return make_var(Tensor::scalar(loss), "cross_entropy", {logits}, [targets, ignore_index](Backward& g) {
    // dx += dloss/dx * dy: your gradient of the mean loss, scaled by the scalar arriving from above
    g.add(0, mul(student::cross_entropy_backward(g.input(0), targets, ignore_index), g.grad()[0]));
  });
}

}  // namespace heed
