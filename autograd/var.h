// Var: a handle to a node of the computation graph. A node owns its value, its gradient,
// the nodes it was computed from and a backward function. The backward function gets the
// node itself as an argument, so it never captures its own output: edges point only towards
// inputs and the graph has no reference cycles. Dropping the last Var of a graph frees it,
// iteratively, so a chain of 100,000 ops neither overflows the stack nor leaks.
// Nodes are numbered in one order for the whole process, so a graph may be built on several
// threads (one at a time) and backward() still runs every node after all of its users.
// Every node's value carries a version: changing a value in place (through the mutable value())
// after an op used it and before that op's backward reads it is a heed::Error naming the op and
// the input, never a wrong gradient.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tensor/ops.h"
#include "tensor/tensor.h"

namespace heed {

class Backward;
class Var;
struct GradcheckOptions;
struct GradcheckReport;
struct GraphNode;

// A node of the graph. Its fields are autograd's alone: layers and programs reach a node only
// through Var (value, grad, backward) and, inside an op's backward function, through Backward.
class Node {
 public:
  Node();
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  static int64_t live_count();  // nodes alive in the process right now: the leak check

 private:
  friend class Var;
  friend class Backward;
  friend Var make_var(Tensor, const char*, const std::vector<Var>&, std::function<void(Backward&)>);
  friend std::vector<GraphNode> graph_nodes(const Var&);

  struct Input {
    std::shared_ptr<Node> node;
    uint64_t version;  // node's version when this op used it: backward checks it is unchanged
  };
  Tensor value;
  Tensor grad;              // meaningful only when has_grad
  bool has_grad = false;    // false until a gradient arrives
  std::vector<Input> inputs;
  std::function<void(Backward&)> backward;  // adds d(out)/d(input) * grad into each input's grad
  const char* op = "leaf";
  bool requires_grad = false;
  bool retain_grad = false;  // keep grad on a non-leaf after backward()
  uint64_t sequence;         // creation order, one count for the process; backward() runs the newest first
  uint64_t version = 0;      // bumped by every mutable access to value

  // grad += g, allocating it on first use. REQUIRES: g has value's shape.
  void accumulate(const Tensor& g);
  void accumulate(Tensor&& g);
};

class Var {
 public:
  Var();  // an empty handle; most operations on it throw
  explicit Var(Tensor value, bool requires_grad = false);

  const Tensor& value() const;
  // For in-place updates of parameters between steps. Counts as a change (it bumps the value's
  // version): a graph that used this value before and reads it in backward() then refuses to run.
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
  // Whether a gradient has arrived (grad() would otherwise make zeros); a leaf has no backward;
  // how many inputs the graph recorded for this value (0 for a leaf or a constant).
  bool has_grad() const;
  bool is_leaf() const;
  size_t num_inputs() const;

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

// What a backward function sees of its node, and the only way it passes gradients on. With y the
// node's value and x_i its inputs (in make_var's order), a backward function adds dL/dx_i =
// (dy/dx_i)^T dL/dy into every input that wants it. Reading a value through input() or value()
// checks that it has not been changed in place since the forward: a heed::Error if it has.
class Backward {
 public:
  // dL/dy, complete (every user of y has added its share).
  const Tensor& grad() const { return n_.grad; }
  // y, the node's own value.
  const Tensor& value() const {
    if (n_.version != 0) changed_in_place(n_, -1, 0);
    return n_.value;
  }
  // x_i's value, as the forward used it.
  const Tensor& input(size_t i) const {
    const Node::Input& in = n_.inputs[i];
    if (in.node->version != in.version) changed_in_place(n_, static_cast<int64_t>(i), in.version);
    return in.node->value;
  }
  // Whether x_i wants a gradient: skip its work if not.
  bool wants(size_t i) const { return n_.inputs[i].node->requires_grad; }
  // dL/dx_i += g. REQUIRES: g has x_i's shape.
  void add(size_t i, const Tensor& g) { n_.inputs[i].node->accumulate(g); }
  void add(size_t i, Tensor&& g) { n_.inputs[i].node->accumulate(std::move(g)); }
  // dL/dx_i itself, for a kernel that adds into it in place: zeros of x_i's shape on first use.
  Tensor& buffer(size_t i);
  // The same for a kernel that can either write or add (gemm): on first use a fresh uninitialised
  // tensor with add = false (write every element), else dL/dx_i with add = true.
  Tensor& target(size_t i, bool& add);
  // dL/dy, moved out when the node will not keep it: for an op whose input gradient is dy itself
  // (add, reshape). Call it at most once, after every other read of grad().
  Tensor take_grad();

 private:
  friend class Var;
  explicit Backward(Node& n) : n_(n) {}
  // Throws the error for input i (-1: the node's own value) changed since the forward.
  [[noreturn]] static void changed_in_place(const Node& self, int64_t i, uint64_t used);
  Node& n_;
};

// Defining a differentiable op: the one interface, used by every op in heed (autograd/*.cpp,
// the fused steps of nn/rnn_cell.cpp, attention's fused ops) and open to layers and exercises.
//
// 1. Compute the forward value from the inputs' values with tensor kernels.
// 2. Return make_var(value, name, {inputs...}, backward): when grad mode is on and an input wants a
//    gradient, the node records the inputs and the backward function; otherwise the result is a
//    constant and the backward is dropped unrun.
// 3. The backward function receives a Backward& g when backward() reaches the node, after every
//    user of y has added its share to g.grad(). For each input i it adds the chain rule's term:
//    g.add(i, d) with d = (dy/dx_i)^T g.grad(), of x_i's shape. It is never called twice for one
//    backward() and must only add (+=): an input used twice receives both terms.
// What to save: g.input(i) and g.value() give the values the forward saw (no copy needed; a change
// in place since the forward is caught). Capture by value only what is not an input or the output
// (a mask, an index list, an intermediate such as softmax probabilities), with a comment saying why.
// Never capture a Var of the result itself: it would make a reference cycle.
//
//   // y = a * b elementwise (same shapes here; the library's mul also broadcasts)
//   Var times(const Var& a, const Var& b) {
//     return make_var(mul(a.value(), b.value()), "times", {a, b}, [](Backward& g) {
//       if (g.wants(0)) g.add(0, mul(g.grad(), g.input(1)));  // da += b dy
//       if (g.wants(1)) g.add(1, mul(g.grad(), g.input(0)));  // db += a dy
//     });
//   }
//
// Check every new op with gradcheck (autograd/gradcheck.h) in double precision.
Var make_var(Tensor value, const char* op, const std::vector<Var>& inputs, std::function<void(Backward&)> backward);

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
