#include "viz/diagram.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <unordered_map>

#include "autograd/dot.h"
#include "viz/svg.h"

namespace heed {

int Diagram::add(DiagramBox b) {
  boxes.push_back(std::move(b));
  return static_cast<int>(boxes.size()) - 1;
}

void Diagram::arrow(int from, int to, const std::string& label, bool dashed) {
  arrows.push_back({from, to, label, dashed});
}

namespace {

constexpr real kFont = 13, kCharW = 7.6, kLineH = 17;  // monospace at 13 px
constexpr real kColW = 150, kRowH = 86, kMargin = 24, kTop = 48;

std::string num(real v) {
  char out[32];
  std::snprintf(out, sizeof out, "%.1f", v);
  return out;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  if (out.empty()) out.push_back("");
  return out;
}

size_t code_points(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

struct Rect {
  real cx, cy, w, h;
};

Rect rect_of(const DiagramBox& b) {
  size_t widest = 0;
  std::vector<std::string> lines = lines_of(b.label);
  for (const std::string& l : lines) widest = std::max(widest, code_points(l));
  return {kMargin + kColW / 2 + b.col * kColW, kTop + kRowH / 2 + b.row * kRowH,
          std::max<real>(48, static_cast<real>(widest) * kCharW + 18), static_cast<real>(lines.size()) * kLineH + 12};
}

// Where the segment from r's centre towards (x, y) leaves r.
void clip(const Rect& r, real x, real y, real& ox, real& oy) {
  real dx = x - r.cx, dy = y - r.cy;
  real t = 1;
  if (dx != 0) t = std::min(t, (r.w / 2) / std::fabs(dx));
  if (dy != 0) t = std::min(t, (r.h / 2) / std::fabs(dy));
  ox = r.cx + dx * t;
  oy = r.cy + dy * t;
}

}  // namespace

std::string svg_diagram(const Diagram& d) {
  std::vector<Rect> rects;
  real width = 0, height = 0;
  for (const DiagramBox& b : d.boxes) {
    rects.push_back(rect_of(b));
    width = std::max(width, rects.back().cx + rects.back().w / 2 + kMargin);
    height = std::max(height, rects.back().cy + rects.back().h / 2 + kMargin);
  }
  width = std::max<real>(width, 2 * kMargin + static_cast<real>(code_points(d.title)) * 9.5);
  if (!d.caption.empty()) {
    width = std::max<real>(width, 2 * kMargin + static_cast<real>(code_points(d.caption)) * 7.2);
    height += 20;
  }
  std::string o;
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\" width=\"" +
       num(width) + "\" height=\"" + num(height) + "\" font-family=\"monospace\" font-size=\"" + num(kFont) +
       "\" class=\"heed-diagram\">\n";
  o += "<title>" + xml_escape(d.title) + "</title>\n";
  o += "<defs><marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" "
       "orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#444\"/></marker></defs>\n";
  o += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  o += "<text x=\"" + num(kMargin) + "\" y=\"28\" font-family=\"sans-serif\" font-size=\"16\" font-weight=\"bold\" "
       "fill=\"#222\">" + xml_escape(d.title) + "</text>\n";
  o += "<g class=\"arrows\" stroke=\"#444\" stroke-width=\"1.5\" fill=\"none\">\n";
  std::string labels;
  for (const DiagramArrow& a : d.arrows) {
    if (a.from < 0 || a.to < 0 || a.from >= static_cast<int>(rects.size()) || a.to >= static_cast<int>(rects.size()))
      throw Error("svg_diagram: an arrow joins box " + std::to_string(a.from) + " to box " + std::to_string(a.to) +
                  ", but the diagram has " + std::to_string(rects.size()) + " boxes");
    const Rect &f = rects[a.from], &t = rects[a.to];
    real x1, y1, x2, y2;
    clip(f, t.cx, t.cy, x1, y1);
    clip(t, f.cx, f.cy, x2, y2);
    o += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
         "\" marker-end=\"url(#head)\"" + (a.dashed ? " stroke-dasharray=\"5 4\"" : "") + "/>\n";
    if (!a.label.empty())
      labels += "<text x=\"" + num((x1 + x2) / 2 + 4) + "\" y=\"" + num((y1 + y2) / 2 - 4) + "\">" +
                xml_escape(a.label) + "</text>\n";
  }
  o += "</g>\n<g class=\"boxes\" stroke=\"#333\" stroke-width=\"1.2\">\n";
  for (size_t i = 0; i < d.boxes.size(); ++i) {
    const Rect& r = rects[i];
    o += "<rect x=\"" + num(r.cx - r.w / 2) + "\" y=\"" + num(r.cy - r.h / 2) + "\" width=\"" + num(r.w) +
         "\" height=\"" + num(r.h) + "\"" + (d.boxes[i].rounded ? " rx=\"12\"" : " rx=\"2\"") + " fill=\"" +
         xml_escape(d.boxes[i].fill) + "\"/>\n";
  }
  o += "</g>\n<g class=\"labels\" fill=\"#111\" text-anchor=\"middle\">\n";
  for (size_t i = 0; i < d.boxes.size(); ++i) {
    const Rect& r = rects[i];
    std::vector<std::string> lines = lines_of(d.boxes[i].label);
    real y = r.cy - (static_cast<real>(lines.size()) - 1) * kLineH / 2;
    for (const std::string& l : lines) {
      o += "<text x=\"" + num(r.cx) + "\" y=\"" + num(y) + "\" dy=\"0.35em\">" + xml_escape(l) + "</text>\n";
      y += kLineH;
    }
  }
  o += "</g>\n<g class=\"arrow-labels\" fill=\"#555\" font-size=\"12\">\n" + labels + "</g>\n";
  if (!d.caption.empty())
    o += "<text x=\"" + num(kMargin) + "\" y=\"" + num(height - 14) + "\" font-family=\"sans-serif\" fill=\"#444\">" +
         xml_escape(d.caption) + "</text>\n";
  o += "</svg>\n";
  return o;
}

Diagram graph_diagram(const Var& root, const std::map<const Node*, std::string>& names, const std::string& title) {
  // Breadth first from the root (graph_nodes, as to_dot), then each node's row: its longest
  // distance from the root, so that every node sits below all its users and as close under them
  // as it can.
  const std::vector<GraphNode> nodes = graph_nodes(root);
  const size_t N = nodes.size();
  std::vector<int> depth(N, 0);
  std::vector<std::vector<size_t>> users(N);
  for (size_t i = 0; i < N; ++i)
    for (size_t in : nodes[i].inputs) users[in].push_back(i);
  for (bool changed = true; changed;) {  // relaxed until nothing changes: the graphs drawn are small
    changed = false;
    for (size_t i = 0; i < N; ++i)
      for (size_t u : users[i])
        if (depth[i] < depth[u] + 1) depth[i] = depth[u] + 1, changed = true;
  }
  const int bottom = *std::max_element(depth.begin(), depth.end());
  std::vector<std::vector<size_t>> rows(bottom + 1);
  for (size_t i = 0; i < N; ++i) rows[depth[i]].push_back(i);
  size_t widest = 0;
  for (const auto& r : rows) widest = std::max(widest, r.size());
  // Row by row from the root down, each node under the mean column of its users (then in the
  // order the inputs were written), the row centred.
  std::vector<real> col(N, 0);
  for (auto& r : rows) {
    std::vector<std::pair<real, size_t>> keyed;
    for (size_t i : r) {
      real mean = 0;
      for (size_t u : users[i]) mean += col[u];
      keyed.push_back({users[i].empty() ? 0 : mean / static_cast<real>(users[i].size()), i});
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const real offset = static_cast<real>(widest - r.size()) / 2;
    for (size_t k = 0; k < keyed.size(); ++k) col[keyed[k].second] = offset + static_cast<real>(k);
  }
  Diagram d;
  d.title = title;
  for (size_t i = 0; i < N; ++i) {
    const GraphNode& n = nodes[i];
    auto named = names.find(n.node);
    DiagramBox b;
    b.label = (named != names.end() ? named->second + " (" + n.op + ")" : std::string(n.op)) + "\n" + shape_str(n.shape);
    b.col = col[i];
    b.row = static_cast<real>(depth[i]);
    b.rounded = !n.has_backward;
    b.fill = n.has_backward ? "#ffffff" : "#eef4fb";
    d.add(b);
  }
  // One arrow per (input, user) pair, labelled with the count when an op uses an input twice.
  for (size_t u = 0; u < N; ++u) {
    std::map<size_t, int> uses;
    for (size_t in : nodes[u].inputs) ++uses[in];
    for (const auto& [i, k] : uses)
      d.arrow(static_cast<int>(i), static_cast<int>(u), k > 1 ? "x" + std::to_string(k) : "");
  }
  return d;
}

}  // namespace heed
