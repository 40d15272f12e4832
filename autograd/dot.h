// Reading a graph from the outside, and exporting it in Graphviz DOT: one box per node with its
// op and shape, arrows from inputs to the op that used them. `dot -Tsvg graph.dot > graph.svg`
// draws it; viz/diagram.h draws the same list as an SVG of its own.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "autograd/var.h"

namespace heed {

// One node of a graph as seen from outside autograd: what a picture of the graph needs.
struct GraphNode {
  const Node* node;             // identity only (to look up a name); its fields stay autograd's
  const char* op;               // "leaf" for a leaf or a constant
  Shape shape;                  // of the node's value
  bool has_backward;            // false for leaves and constants
  std::vector<size_t> inputs;   // indices into the list, in the op's order (repeats kept)
};

// The nodes reachable from root, breadth first (root first, each input after its first user).
std::vector<GraphNode> graph_nodes(const Var& root);

// `names` labels chosen nodes (e.g. the leaves x, w, b) by their Var.
std::string to_dot(const Var& root, const std::map<const Node*, std::string>& names = {});

}  // namespace heed
