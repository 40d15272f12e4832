#include "autograd/var.h"

#include <algorithm>
#include <atomic>
#include <unordered_set>

namespace heed {

namespace {
// One count for the whole process: a node's number says when it was made, whichever thread made
// it, so a graph built partly on another thread is still ordered (a per-thread count would give
// a second thread's nodes small numbers, and backward() would run them before their users).
std::atomic<int64_t> g_live_nodes{0};
std::atomic<uint64_t> g_next_sequence{0};
// Grad mode is per thread, as in PyTorch: a NoGradGuard on one thread leaves the others recording.
thread_local bool g_grad_enabled = true;
}  // namespace

Node::Node() : sequence(g_next_sequence.fetch_add(1, std::memory_order_relaxed) + 1) {
  g_live_nodes.fetch_add(1, std::memory_order_relaxed);
}

// Frees the graph below this node without recursion: a node whose last owner is this
// loop hands its inputs to the loop before it dies, so each destructor sees no inputs.
Node::~Node() {
  g_live_nodes.fetch_sub(1, std::memory_order_relaxed);
  std::vector<std::shared_ptr<Node>> pending;
  for (auto& in : inputs) pending.push_back(std::move(in.node));
  inputs.clear();
  while (!pending.empty()) {
    std::shared_ptr<Node> n = std::move(pending.back());
    pending.pop_back();
    if (n.use_count() == 1) {
      for (auto& in : n->inputs) pending.push_back(std::move(in.node));
      n->inputs.clear();
    }
  }
}

int64_t Node::live_count() { return g_live_nodes.load(std::memory_order_relaxed); }

void Node::accumulate(const Tensor& g) {
  if (!has_grad) {
    grad = g;
    has_grad = true;
  } else {
    add_inplace(grad, g);
  }
}

void Node::accumulate(Tensor&& g) {
  if (!has_grad) {
    grad = std::move(g);
    has_grad = true;
  } else {
    add_inplace(grad, g);
  }
}

Var::Var() = default;

Var::Var(Tensor value, bool requires_grad) : node_(std::make_shared<Node>()) {
  node_->value = std::move(value);
  node_->requires_grad = requires_grad;
}

static Node& checked(const std::shared_ptr<Node>& n) {
  if (!n) throw Error("Var: use of an empty Var");
  return *n;
}

const Tensor& Var::value() const { return checked(node_).value; }
Tensor& Var::value() {
  Node& n = checked(node_);
  ++n.version;  // the caller may change it: a backward that reads it will notice
  return n.value;
}

const Tensor& Var::grad() const {
  Node& n = checked(node_);
  if (!n.has_grad) {
    n.grad = Tensor::zeros(n.value.shape());
    n.has_grad = true;
  }
  return n.grad;
}

Tensor& Var::grad() { return const_cast<Tensor&>(static_cast<const Var*>(this)->grad()); }

bool Var::requires_grad() const { return node_ && node_->requires_grad; }

void Var::set_requires_grad(bool on) {
  Node& n = checked(node_);
  if (n.backward) throw Error(std::string("set_requires_grad: only a leaf can change it; this Var is the result of ") + n.op);
  n.requires_grad = on;
}

void Var::retain_grad() { checked(node_).retain_grad = true; }

const char* Var::op() const { return checked(node_).op; }
bool Var::has_grad() const { return checked(node_).has_grad; }
bool Var::is_leaf() const { return !checked(node_).backward; }
size_t Var::num_inputs() const { return checked(node_).inputs.size(); }

void Var::zero_grad() {
  Node& n = checked(node_);
  n.grad = Tensor();
  n.has_grad = false;
}

Var Var::detach() const { return Var(value(), false); }

void Var::backward() const {
  if (value().numel() != 1)
    throw Error("backward: output of shape " + shape_str(shape()) + " is not a scalar; pass a seed gradient");
  backward(Tensor::ones(shape()));
}

void Var::backward(const Tensor& seed) const {
  Node& root = checked(node_);
  if (!root.requires_grad) throw Error(std::string("backward: the output of ") + root.op + " does not require grad");
  if (seed.shape() != root.value.shape())
    throw Error("backward: seed " + shape_str(seed.shape()) + " for output " + shape_str(root.value.shape()));
  // Every node that wants a gradient, reached from the root breadth first through an explicit
  // list (no recursion: a chain of 100,000 steps must not overflow the call stack).
  std::vector<Node*> order{&root};
  std::unordered_set<Node*> seen{&root};
  for (size_t i = 0; i < order.size(); ++i)
    for (const auto& in : order[i]->inputs)
      if (in.node->requires_grad && seen.insert(in.node.get()).second) order.push_back(in.node.get());
  // Newest first. A node is always made after its inputs, so this is a topological order, and
  // one that does not depend on the rest of the graph: each gradient sums its parts in the same
  // order whether or not a sequence sits in a padded batch.
  std::sort(order.begin(), order.end(), [](const Node* a, const Node* b) { return a->sequence > b->sequence; });
  // Inner nodes start from zero on every call; leaves keep accumulating.
  for (Node* n : order)
    if (n->backward) n->has_grad = false;
  root.accumulate(seed);
  for (Node* n : order) {
    if (!n->backward || !n->has_grad) continue;
    Backward g(*n);
    n->backward(g);
    if (!n->retain_grad) {
      n->grad = Tensor();
      n->has_grad = false;
    }
  }
}

Var make_var(Tensor value, const char* op, const std::vector<Var>& inputs, std::function<void(Backward&)> backward) {
  Var out(std::move(value));
  if (!g_grad_enabled) return out;
  bool any = false;
  for (const Var& v : inputs) any = any || v.requires_grad();
  if (!any) return out;
  Node* n = out.node();
  n->op = op;
  n->requires_grad = true;
  n->backward = std::move(backward);
  n->inputs.reserve(inputs.size());
  for (const Var& v : inputs) {
    // backward() runs nodes newest first, which is right only if every input is older
    if (v.node()->sequence >= n->sequence)
      throw Error(std::string(op) + ": internal error: an input was numbered after its output");
    n->inputs.push_back({v.node_ptr(), v.node()->version});
  }
  return out;
}

// The message for a value changed in place between an op's forward and its backward.
void Backward::changed_in_place(const Node& self, int64_t i, uint64_t used) {
  const Node& n = i < 0 ? self : *self.inputs[i].node;
  std::string what = i < 0 ? std::string("its output") : "input " + std::to_string(i);
  throw Error(std::string("backward of ") + self.op + ": " + what + " (" +
              (n.backward ? std::string("the output of ") + n.op : std::string("a leaf")) + ", " +
              shape_str(n.value.shape()) + ") was changed in place after " + self.op + " used it (version " +
              std::to_string(n.version) + ", used at " + std::to_string(used) +
              "); change values only after backward(); to read a value, use a const Var (the mutable value() "
              "counts as a change)");
}

Tensor& Backward::buffer(size_t i) {
  Node& n = *n_.inputs[i].node;
  if (!n.has_grad) {
    n.grad = Tensor::zeros(n.value.shape());
    n.has_grad = true;
  }
  return n.grad;
}

Tensor& Backward::target(size_t i, bool& add) {
  Node& n = *n_.inputs[i].node;
  add = n.has_grad;
  if (!n.has_grad) {
    n.grad = Tensor::empty(n.value.shape());  // the first contribution writes every element
    n.has_grad = true;
  }
  return n.grad;
}

Tensor Backward::take_grad() { return n_.retain_grad ? n_.grad : std::move(n_.grad); }

bool grad_enabled() { return g_grad_enabled; }

NoGradGuard::NoGradGuard() : previous_(g_grad_enabled) { g_grad_enabled = false; }
NoGradGuard::~NoGradGuard() { g_grad_enabled = previous_; }

}  // namespace heed
