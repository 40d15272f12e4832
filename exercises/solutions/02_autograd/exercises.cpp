// Chapter 02's solutions.
#include "exercises/02_autograd/exercises.h"

#include <algorithm>
#include <unordered_set>

namespace heed::student {

Tensor tanh_backward(const Tensor&, const Tensor& y, const Tensor& dy) {
  return mul(dy, sub(Tensor::ones(y.shape()), mul(y, y)));  // dx = dy (1 - y^2)
}

std::pair<Tensor, Tensor> mul_backward(const Tensor& a, const Tensor& b, const Tensor& dy) {
  return {mul(dy, b), mul(dy, a)};  // da = dy b, db = dy a
}

std::pair<Tensor, Tensor> matmul_backward(const Tensor& a, const Tensor& b, const Tensor& dy) {
  return {matmul_nt(dy, b), matmul_tn(a, dy)};  // da = dy b^T, db = a^T dy
}

Tensor sum_backward(const Tensor& x, int64_t axis, bool keepdim, const Tensor& dy) {
  axis = normalize_axis(axis, x.shape(), "sum_backward");
  Shape kept = x.shape();
  kept[axis] = 1;  // y's shape with the summed axis kept as 1 (dy's own when keepdim)
  (void)keepdim;   // the same numbers either way: only the shape differs
  return broadcast_to(reshape(dy, kept), x.shape());  // dx_i = dy of x_i's sum, repeated along the axis
}

void backward_pass(GraphView& graph, const Tensor& seed) {
  // 1. Every node reached from the root, each once (a seen set: a node used twice is reached twice),
  //    through a list that grows as it is read: no recursion, so a chain of 100,000 ops is fine.
  const int64_t root = graph.root();
  std::vector<int64_t> order{root};
  std::unordered_set<int64_t> seen{root};
  for (size_t i = 0; i < order.size(); ++i)
    for (int64_t in : graph.inputs(order[i]))
      if (seen.insert(in).second) order.push_back(in);
  // 2. Newest first. Every node is made after its inputs, so each node comes after all of its
  //    users: a topological order, and heed's own, so the gradients sum in heed's order.
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return graph.made(a) > graph.made(b); });
  // 3. Inner nodes start from nothing; leaves keep what they hold (gradients accumulate).
  for (int64_t n : order)
    if (!graph.is_leaf(n)) graph.clear_grad(n);
  graph.add_grad(root, seed);
  // 4. Each rule once, after all of its node's users; an inner gradient is dropped once used.
  for (int64_t n : order) {
    if (graph.is_leaf(n) || !graph.has_grad(n)) continue;
    graph.run(n);
    if (!graph.keeps_grad(n)) graph.clear_grad(n);
  }
}

}  // namespace heed::student
