#include "autograd/dot.h"

#include <sstream>
#include <unordered_map>

namespace heed {

std::vector<GraphNode> graph_nodes(const Var& root) {
  if (!root.defined()) throw Error("graph_nodes: the Var is empty");
  // Breadth first, iteratively (graphs can be long): `order` is also the queue.
  std::vector<const Node*> order{root.node()};
  std::unordered_map<const Node*, size_t> id{{root.node(), 0}};
  for (size_t next = 0; next < order.size(); ++next)
    for (const auto& in : order[next]->inputs)
      if (id.emplace(in.node.get(), order.size()).second) order.push_back(in.node.get());
  std::vector<GraphNode> out;
  out.reserve(order.size());
  for (const Node* n : order) {
    GraphNode g{n, n->op, n->value.shape(), static_cast<bool>(n->backward), {}};
    for (const auto& in : n->inputs) g.inputs.push_back(id[in.node.get()]);
    out.push_back(std::move(g));
  }
  return out;
}

std::string to_dot(const Var& root, const std::map<const Node*, std::string>& names) {
  std::ostringstream os;
  os << "digraph heed {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n";
  const std::vector<GraphNode> nodes = graph_nodes(root);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const GraphNode& n = nodes[i];
    auto named = names.find(n.node);
    std::string label = named != names.end() ? named->second + " (" + n.op + ")" : n.op;
    os << "  n" << i << " [label=\"" << label << "\\n" << shape_str(n.shape) << "\"";
    if (!n.has_backward) os << ", style=rounded";
    os << "];\n";
  }
  for (size_t i = 0; i < nodes.size(); ++i)
    for (size_t in : nodes[i].inputs) os << "  n" << in << " -> n" << i << ";\n";
  os << "}\n";
  return os.str();
}

}  // namespace heed
