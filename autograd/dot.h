// Graph export in Graphviz DOT: one box per node with its op and shape, arrows from
// inputs to the op that used them. `dot -Tsvg graph.dot > graph.svg` draws it.
#pragma once

#include <map>
#include <string>

#include "autograd/var.h"

namespace heed {

// `names` labels chosen nodes (e.g. the leaves x, w, b) by their Var.
std::string to_dot(const Var& root, const std::map<const Node*, std::string>& names = {});

}  // namespace heed
