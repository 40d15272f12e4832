#include "autograd/dot.h"

#include <sstream>
#include <unordered_map>
#include <vector>

namespace heed {

std::string to_dot(const Var& root, const std::map<const Node*, std::string>& names) {
  std::ostringstream os;
  os << "digraph heed {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n";
  std::unordered_map<const Node*, int> id;
  std::vector<const Node*> stack{root.node()};
  id[root.node()] = 0;
  std::vector<const Node*> order;
  while (!stack.empty()) {  // iterative: graphs can be long
    const Node* n = stack.back();
    stack.pop_back();
    order.push_back(n);
    for (const auto& in : n->inputs)
      if (id.emplace(in.get(), static_cast<int>(id.size())).second) stack.push_back(in.get());
  }
  for (const Node* n : order) {
    auto named = names.find(n);
    std::string label = named != names.end() ? named->second + " (" + n->op + ")" : n->op;
    os << "  n" << id[n] << " [label=\"" << label << "\\n" << shape_str(n->value.shape()) << "\"";
    if (!n->backward) os << ", style=rounded";
    os << "];\n";
  }
  for (const Node* n : order)
    for (const auto& in : n->inputs) os << "  n" << id[in.get()] << " -> n" << id[n] << ";\n";
  os << "}\n";
  return os.str();
}

}  // namespace heed
