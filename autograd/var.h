// Var: a handle to a node of the computation graph. A node owns its value, its gradient,
// the nodes it was computed from and a backward function. The backward function gets the
// node itself as an argument, so it never captures its own output: edges point only towards
// inputs and the graph has no reference cycles. Dropping the last Var of a graph frees it,
// iteratively, so a chain of 100,000 ops neither overflows the stack nor leaks.
// Graphs are not shared between threads: each thread builds, runs backward on and drops its
// own (so separate models may train on separate threads).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tensor/ops.h"
#include "tensor/tensor.h"

namespace heed {

struct Node {
  Tensor value;
  Tensor grad;              // meaningful only when has_grad
  bool has_grad = false;    // false until a gradient arrives
  std::vector<std::shared_ptr<Node>> inputs;
  std::function<void(Node&)> backward;  // adds d(out)/d(input) * grad into each input's grad
  const char* op = "leaf";
  bool requires_grad = false;
  bool retain_grad = false;  // keep grad on a non-leaf after backward()
  uint64_t sequence;         // creation order; backward() runs the newest node first

  Node();
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // grad += g, allocating it on first use. REQUIRES: g has value's shape.
  void accumulate(const Tensor& g);
  void accumulate(Tensor&& g);

  static int64_t live_count();  // nodes alive on this thread right now: the leak check
};

class Var {
 public:
  Var();  // an empty handle; most operations on it throw
  explicit Var(Tensor value, bool requires_grad = false);

  const Tensor& value() const;
  // For in-place updates of parameters between steps. A value that a live graph has used must
  // not change before that graph's backward(): backward functions read it from the node.
  Tensor& value();
  // The gradient accumulated by backward(); zeros of value's shape if none arrived yet.
  const Tensor& grad() const;
  Tensor& grad();
  const Shape& shape() const { return value().shape(); }
  real item() const { return value().item(); }
  bool requires_grad() const;
  void set_requires_grad(bool on);
  // Keeps this (non-leaf) node's gradient after backward(), for inspection.
  void retain_grad();
  const char* op() const;
  bool defined() const { return node_ != nullptr; }

  // Backpropagates from this scalar (seed 1), or from any shape with an explicit seed.
  // Gradients accumulate: calling backward() twice adds twice.
  void backward() const;
  void backward(const Tensor& seed) const;
  void zero_grad();
  // The same value, cut from the graph: no gradient flows through it.
  Var detach() const;

  Node* node() const { return node_.get(); }
  const std::shared_ptr<Node>& node_ptr() const { return node_; }

 private:
  std::shared_ptr<Node> node_;
};

// Builds the result of a differentiable op. When grad mode is on and an input requires a
// gradient, the node records `inputs` and `backward`; otherwise it is a plain constant.
Var make_var(Tensor value, const char* op, const std::vector<Var>& inputs, std::function<void(Node&)> backward);

// Grad mode: the one global switch. Change it only through NoGradGuard.
bool grad_enabled();

// While one exists, no graph is recorded (as torch.no_grad()).
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace heed
