#include "autograd/dot.h"

#include <sstream>
#include <unordered_map>
#include <vector>

namespace heed {

std::string to_dot(const Var& root, const std::map<const Node*, std::string>& names) {
  std::ostringstream os;
  os << "digraph heed {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n";
  std::unordered_map<const Node*, int> id;
  // Breadth first from the root, iteratively (graphs can be long): `order` is also the queue,
  // so nodes are listed in the order of their ids, each input after its first user.
  std::vector<const Node*> order{root.node()};
  id[root.node()] = 0;
  for (size_t next = 0; next < order.size(); ++next)
    for (const auto& in : order[next]->inputs)
      if (id.emplace(in.node.get(), static_cast<int>(id.size())).second) order.push_back(in.node.get());
  for (const Node* n : order) {
    auto named = names.find(n);
    std::string label = named != names.end() ? named->second + " (" + n->op + ")" : n->op;
    os << "  n" << id[n] << " [label=\"" << label << "\\n" << shape_str(n->value.shape()) << "\"";
    if (!n->backward) os << ", style=rounded";
    os << "];\n";
  }
  for (const Node* n : order)
    for (const auto& in : n->inputs) os << "  n" << id[in.node.get()] << " -> n" << id[n] << ";\n";
  os << "}\n";
  return os.str();
}

}  // namespace heed
