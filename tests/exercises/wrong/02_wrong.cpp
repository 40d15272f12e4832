// Chapter 02: the solutions registered for the self-test, and wrong answers its checks must reject.
#include "exercises/check/02_check.h"
#include <algorithm>
#include <deque>
#include <unordered_set>

// The solution, compiled here in namespace heed::solution (one translation unit for both).
namespace heed::solution {
using student::GraphView;  // the view the backward pass is written on is the exercise's
}
#define student solution
#include "exercises/solutions/02_autograd/exercises.cpp"
#undef student

namespace heed::check {
namespace {

Tensor tanh_from_x(const Tensor& x, const Tensor&, const Tensor& dy) {
  return mul(dy, sub(Tensor::ones(x.shape()), mul(x, x)));  // 1 - x^2: the derivative read from the input
}
Tensor tanh_sign(const Tensor&, const Tensor& y, const Tensor& dy) {
  return mul(dy, sub(mul(y, y), Tensor::ones(y.shape())));  // y^2 - 1: a sign error
}
std::pair<Tensor, Tensor> mul_swapped(const Tensor& a, const Tensor& b, const Tensor& dy) {
  return {mul(dy, a), mul(dy, b)};  // each input's gradient uses itself, not the other input
}
std::pair<Tensor, Tensor> matmul_no_transpose(const Tensor& a, const Tensor& b, const Tensor& dy) {
  return {matmul_nt(dy, b), matmul(transpose(dy), a)};  // db = dy^T a: the transpose of the right one
}
std::pair<Tensor, Tensor> matmul_forgot_b(const Tensor&, const Tensor& b, const Tensor& dy) {
  return {matmul_nt(dy, b), Tensor::zeros(b.shape())};  // only a's gradient
}
// dy not put back along the summed axis: numpy's broadcast lines dy up with x's last axes, right
// only when the summed axis is the first one (or kept).
Tensor sum_unaligned(const Tensor& x, int64_t, bool, const Tensor& dy) { return broadcast_to(dy, x.shape()); }
Tensor sum_as_mean(const Tensor& x, int64_t axis, bool keepdim, const Tensor& dy) {  // mean's divide on sum
  const int64_t n = x.shape()[normalize_axis(axis, x.shape(), "sum_backward")];
  return mul(solution::sum_backward(x, axis, keepdim, dy), 1.0 / static_cast<real>(n));
}

// Backward passes with one classic mistake each (the solution's steps otherwise).
using student::GraphView;
std::vector<int64_t> reach(GraphView& g, bool once) {
  std::vector<int64_t> order{g.root()};
  std::unordered_set<int64_t> seen{g.root()};
  for (size_t i = 0; i < order.size(); ++i)
    for (int64_t in : g.inputs(order[i]))
      if (!once || seen.insert(in).second) order.push_back(in);
  return order;
}
void run_all(GraphView& g, const std::vector<int64_t>& order, const Tensor& seed, bool clear_inner, bool clear_leaves,
             bool drop) {
  for (int64_t n : order)
    if ((clear_inner && !g.is_leaf(n)) || (clear_leaves && g.is_leaf(n))) g.clear_grad(n);
  g.add_grad(g.root(), seed);
  for (int64_t n : order) {
    if (g.is_leaf(n) || !g.has_grad(n)) continue;
    g.run(n);
    if (drop && !g.keeps_grad(n)) g.clear_grad(n);
  }
}
void newest_first(GraphView& g, std::vector<int64_t>& order) {
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return g.made(a) > g.made(b); });
}
void pass_breadth_first(GraphView& g, const Tensor& seed) {  // the order met, not sorted
  run_all(g, reach(g, true), seed, true, false, true);
}
void pass_no_seen_set(GraphView& g, const Tensor& seed) {  // a node reached twice is run twice
  std::vector<int64_t> order = reach(g, false);
  newest_first(g, order);
  run_all(g, order, seed, true, false, true);
}
void pass_clears_leaves(GraphView& g, const Tensor& seed) {  // every gradient cleared: no accumulation
  std::vector<int64_t> order = reach(g, true);
  newest_first(g, order);
  run_all(g, order, seed, true, true, true);
}
void pass_keeps_stale(GraphView& g, const Tensor& seed) {  // inner gradients not cleared first
  std::vector<int64_t> order = reach(g, true);
  newest_first(g, order);
  run_all(g, order, seed, false, false, true);
}
void pass_never_drops(GraphView& g, const Tensor& seed) {  // inner gradients kept after use
  std::vector<int64_t> order = reach(g, true);
  newest_first(g, order);
  run_all(g, order, seed, true, false, false);
}
// A depth-first walk by recursion: a topological order (users before inputs), but the stack
// grows with the graph's depth.
void postorder(GraphView& g, int64_t n, std::unordered_set<int64_t>& seen, std::vector<int64_t>& out) {
  if (!seen.insert(n).second) return;
  for (int64_t in : g.inputs(n)) postorder(g, in, seen, out);
  out.push_back(n);
}
void pass_recursive(GraphView& g, const Tensor& seed) {
  std::unordered_set<int64_t> seen;
  std::vector<int64_t> order;
  postorder(g, g.root(), seen, order);
  std::reverse(order.begin(), order.end());
  run_all(g, order, seed, true, false, true);
}

Impl02 solution() { return HEED_IMPL_02(heed::solution); }
template <class F>
std::function<std::vector<Exercise>()> with(F change) {
  return [change] {
    Impl02 impl = solution();
    change(impl);
    return exercises_02(impl);
  };
}

Register sol({"02", "exercises/02_autograd", "solution", [] { return exercises_02(solution()); }});
RegisterWrong w1({"02", "tanh_backward", "1 - x^2", with([](Impl02& i) { i.tanh_backward = tanh_from_x; })});
RegisterWrong w2({"02", "tanh_backward", "y^2 - 1", with([](Impl02& i) { i.tanh_backward = tanh_sign; })});
RegisterWrong w3({"02", "mul_backward", "da = dy a", with([](Impl02& i) { i.mul_backward = mul_swapped; })});
RegisterWrong w4({"02", "matmul_backward", "db = dy^T a", with([](Impl02& i) { i.matmul_backward = matmul_no_transpose; })});
RegisterWrong w5({"02", "matmul_backward", "db = 0", with([](Impl02& i) { i.matmul_backward = matmul_forgot_b; })});
RegisterWrong w12({"02", "sum_backward", "dy not put back along the axis", with([](Impl02& i) { i.sum_backward = sum_unaligned; })});
RegisterWrong w13({"02", "sum_backward", "divided by the count", with([](Impl02& i) { i.sum_backward = sum_as_mean; })});
RegisterWrong w6({"02", "backward_pass", "breadth-first order", with([](Impl02& i) { i.backward_pass = pass_breadth_first; }),
                  "before"});
RegisterWrong w7({"02", "backward_pass", "no seen set", with([](Impl02& i) { i.backward_pass = pass_no_seen_set; }),
                  "second time"});
RegisterWrong w8({"02", "backward_pass", "leaves cleared", with([](Impl02& i) { i.backward_pass = pass_clears_leaves; }),
                  "a leaf keeps its gradient"});
RegisterWrong w9({"02", "backward_pass", "inner not cleared", with([](Impl02& i) { i.backward_pass = pass_keeps_stale; }),
                  "starts each pass from nothing"});
RegisterWrong w10({"02", "backward_pass", "never drops", with([](Impl02& i) { i.backward_pass = pass_never_drops; }),
                   "still holds its gradient"});
RegisterWrong w11({"02", "backward_pass", "recursion", with([](Impl02& i) { i.backward_pass = pass_recursive; }),
                   "the pass recurses"});

}  // namespace
}  // namespace heed::check
