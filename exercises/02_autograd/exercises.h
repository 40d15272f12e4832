// Chapter 02's exercises: backward functions, written on plain tensors (the checker turns each
// into a graph op, its forward the library's, and gradient-checks it by central differences), and
// the backward pass itself, written on a small view of the graph (GraphView, below).
// What each must do, and how it is checked: README.md in this folder.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "exercises/not_done.h"
#include "tensor/ops.h"

namespace heed::student {

// y = tanh(x) elementwise. Given x, y and dy = dL/dy (all the same shape), return dx = dL/dx.
Tensor tanh_backward(const Tensor& x, const Tensor& y, const Tensor& dy);

// y = a * b elementwise, a, b and dy of one shape (no broadcasting). Return {da, db}.
std::pair<Tensor, Tensor> mul_backward(const Tensor& a, const Tensor& b, const Tensor& dy);

// y (M, N) = a (M, K) b (K, N). Given dy (M, N), return {da (M, K), db (K, N)}.
std::pair<Tensor, Tensor> matmul_backward(const Tensor& a, const Tensor& b, const Tensor& dy);

// y = sum(x, axis, keepdim): x summed along one axis (negative counts from the end, -1 the last).
// dy has y's shape: x's with that axis gone, or kept as 1 when keepdim. Return dx, of x's shape:
// each element of x went into one sum, and its gradient is that sum's dy (dy repeated along the
// summed axis). mean's rule is the same, divided by the count summed (x's size along the axis).
Tensor sum_backward(const Tensor& x, int64_t axis, bool keepdim, const Tensor& dy);

// ---- 02.4, the chapter's capstone: the backward pass itself (Var::backward, autograd/var.cpp)
//
// The graph as a backward pass sees it. The view numbers the nodes as you meet them: root() is the
// node backward starts from (the loss), and inputs(n) hands out the numbers of n's inputs. Each
// node that is not a leaf has a backward rule (the one its op gave make_var): run(n) calls it, and
// the rule reads n's gradient and adds its share into the gradient of each of n's inputs.
class GraphView {
 public:
  virtual ~GraphView() = default;
  // The node backward starts from.
  virtual int64_t root() const = 0;
  // n's inputs that want a gradient, in the op's order. An input the op used twice (x * x) is
  // listed twice; an input that wants no gradient (data, a constant) is not listed.
  virtual std::vector<int64_t> inputs(int64_t n) const = 0;
  // When n was made: a larger number is a newer node. A node is always made after its inputs.
  virtual uint64_t made(int64_t n) const = 0;
  // A leaf (a parameter, an input that wants a gradient) has no rule: its gradient is the result.
  virtual bool is_leaf(int64_t n) const = 0;
  // Whether a gradient has arrived at n (since its last clear_grad).
  virtual bool has_grad(int64_t n) const = 0;
  // Whether n keeps its gradient after the pass (Var::retain_grad), for inspection.
  virtual bool keeps_grad(int64_t n) const = 0;
  // n's gradient += g (the first contribution is stored as it is). REQUIRES: g has n's shape.
  virtual void add_grad(int64_t n, const Tensor& g) = 0;
  // Forgets n's gradient: has_grad(n) is false until one arrives.
  virtual void clear_grad(int64_t n) = 0;
  // Runs n's backward rule once. REQUIRES: n is not a leaf and has its complete gradient (every
  // node that uses n has run).
  virtual void run(int64_t n) = 0;
};

// Backpropagates `seed` (the gradient of the loss with respect to the root, of the root's shape)
// through the graph: afterwards every leaf reached from the root holds its gradient added to what
// it held before. See README.md, 02.4, for what heed's own pass does and why.
void backward_pass(GraphView& graph, const Tensor& seed);

}  // namespace heed::student
