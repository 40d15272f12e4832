// Box-and-arrow diagrams as standalone SVG, for the figures of the chapters: the caller places
// boxes on a grid (column, row; fractions allowed) and joins them with arrows, and svg_diagram
// draws them, every label XML-escaped, arrows clipped to the boxes' edges. graph_diagram lays
// out the graph that autograd recorded for an expression, inputs below the ops that use them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "autograd/var.h"

namespace heed {

struct DiagramBox {
  std::string label;  // '\n' separates lines
  real col = 0, row = 0;  // the box's centre, in grid units (column across, row down)
  std::string fill = "#ffffff";
  bool rounded = false;
};

struct DiagramArrow {
  int from = 0, to = 0;  // indices into Diagram::boxes
  std::string label;     // drawn at the arrow's middle; may be empty
  bool dashed = false;
};

struct Diagram {
  std::string title;
  std::string caption;  // one line under the drawing; may be empty
  std::vector<DiagramBox> boxes;
  std::vector<DiagramArrow> arrows;
  int add(DiagramBox b);  // returns its index
  void arrow(int from, int to, const std::string& label = "", bool dashed = false);
};

// heed::Error if an arrow names a box that does not exist.
std::string svg_diagram(const Diagram& d);

// The recorded graph of `root`: one box per node ("name (op)" or "op", then its shape), leaves
// rounded and shaded, each node below every op that uses it, arrows from each input
// to the op that used it (labelled x2 when the op uses it twice).
Diagram graph_diagram(const Var& root, const std::map<const Node*, std::string>& names, const std::string& title);

}  // namespace heed
