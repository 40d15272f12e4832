// Your heed's backward pass: heed::Var::backward(seed) on your backward_pass (exercise 02.4). make
// yours links this file in place of heed's (autograd/var.cpp) when 02.4 has passed: every
// loss.backward() of every model then walks the graph your way. The root and the seed are checked
// here as heed checks them; your pass sees the graph through the view below, which numbers heed's
// nodes as your pass meets them and runs each node's own backward rule (the op's, from make_var).
#include <string>
#include <unordered_map>

#include "autograd/var.h"
#include "exercises/02_autograd/exercises.h"

namespace heed {

void Var::backward(const Tensor& seed) const {
  if (!node_) throw Error("Var: use of an empty Var");
  Node& root = *node_;
  if (!root.requires_grad) throw Error(std::string("backward: the output of ") + root.op + " does not require grad");
  if (seed.shape() != root.value.shape())
    throw Error("backward: seed " + shape_str(seed.shape()) + " for output " + shape_str(root.value.shape()));

  // (A class inside Var's member function may read the nodes' fields, as Var itself may.)
  class HeedGraph final : public student::GraphView {
   public:
    explicit HeedGraph(Node* root) { number(root); }
    int64_t root() const override { return 0; }
    std::vector<int64_t> inputs(int64_t n) const override {
      std::vector<int64_t> ids;
      for (const auto& in : at(n, "inputs").inputs)
        if (in.node->requires_grad) ids.push_back(number(in.node.get()));
      return ids;
    }
    uint64_t made(int64_t n) const override { return at(n, "made").sequence; }
    bool is_leaf(int64_t n) const override { return !at(n, "is_leaf").backward; }
    bool has_grad(int64_t n) const override { return at(n, "has_grad").has_grad; }
    bool keeps_grad(int64_t n) const override { return at(n, "keeps_grad").retain_grad; }
    void add_grad(int64_t n, const Tensor& g) override {
      Node& node = at(n, "add_grad");
      if (g.shape() != node.value.shape())
        throw Error("backward (yours, exercise 02.4): add_grad of " + shape_str(g.shape()) + " to " + node.op + " " +
                    shape_str(node.value.shape()));
      node.accumulate(g);
    }
    void clear_grad(int64_t n) override {
      Node& node = at(n, "clear_grad");
      node.grad = Tensor();
      node.has_grad = false;
    }
    void run(int64_t n) override {
      Node& node = at(n, "run");
      if (!node.backward) throw Error("backward (yours, exercise 02.4): run(" + std::to_string(n) + ") on a leaf");
      if (!node.has_grad)
        throw Error(std::string("backward (yours, exercise 02.4): run(") + std::to_string(n) + ") on " + node.op +
                    ", which has no gradient");
      Backward g(node);
      node.backward(g);
    }

   private:
    // A node's number: the next one the first time the pass meets it.
    int64_t number(Node* node) const {
      const auto [it, fresh] = ids_.emplace(node, static_cast<int64_t>(nodes_.size()));
      if (fresh) nodes_.push_back(node);
      return it->second;
    }
    Node& at(int64_t n, const char* call) const {
      if (n < 0 || n >= static_cast<int64_t>(nodes_.size()))
        throw Error(std::string("backward (yours, exercise 02.4): ") + call + "(" + std::to_string(n) +
                    "): no node has that number");
      return *nodes_[n];
    }
    mutable std::vector<Node*> nodes_;
    mutable std::unordered_map<Node*, int64_t> ids_;
  };

  HeedGraph graph(&root);
  student::backward_pass(graph, seed);
}

}  // namespace heed
