// Pictures as standalone SVG text, written by hand (no plotting library): an attention heatmap
// and a line chart. Every document is well-formed XML (the tests hold it to tests/support/xml_check.h)
// with xmlns and a viewBox, so a browser opens it directly; every label is XML-escaped, so
// tokens such as "<eos>" or "&" are safe.
#pragma once

#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace heed {

// The two axis captions of a heatmap: what runs across (the columns) and down (the rows).
struct AxisCaptions {
  std::string across = "source";
  std::string down = "output";
};

// Source tokens across the top (rotated), output tokens down the left, one <rect> per weight
// coloured on a white-to-blue scale, a legend bar from 0 to 1, and on hover each cell's
// <title>: "output → source: 0.873". `weights` as for terminal_heatmap (heed::Error otherwise).
std::string svg_heatmap(const std::vector<std::string>& source,
                        const std::vector<std::string>& output,
                        const std::vector<std::vector<real>>& weights, const std::string& title,
                        const AxisCaptions& axes = {});

// The same picture as an <svg> element without the XML declaration, for inlining in HTML:
// output labels are focusable (tabindex) and every label and cell carries data-row/data-col.
std::string svg_heatmap_element(const std::vector<std::string>& source,
                                const std::vector<std::string>& output,
                                const std::vector<std::vector<real>>& weights,
                                const std::string& title, const AxisCaptions& axes = {});

// One panel of a grid of heatmaps: its label ("layer 1, head 3") and its weights.
struct HeatmapPanel {
  std::string label;
  std::vector<std::vector<real>> weights;
};

// Heatmaps of the same source and output side by side: panels[r][c] is drawn in row r, column c
// (a Transformer's layers down, its heads across), each as svg_heatmap draws it with its label
// as its title, under one `title`. heed::Error when there is no panel, a row is empty, or a
// panel's weights do not fit (as for terminal_heatmap, naming the panel).
std::string svg_heatmap_grid(const std::vector<std::string>& source, const std::vector<std::string>& output,
                             const std::vector<std::vector<HeatmapPanel>>& panels, const std::string& title,
                             const AxisCaptions& axes = {});

// One line of a chart; x and y have the same length (heed::Error otherwise). `colour` and
// `shape` (dash and marker) pick a style by number; -1 (the default) takes the series' position,
// so lines that belong together (one model measured twice) can share a colour.
struct Series {
  std::string name;
  std::vector<real> x, y;
  int colour = -1, shape = -1;
};

// A vertical line across the plot at `x`, its label written beside its top: a boundary the
// reader must not miss, such as the longest source a model was trained on.
struct XMarker {
  real x;
  std::string label;
};

// Axes with ticks and labels, a legend, a distinct colour, marker and dash per series (for loss
// curves, accuracy by length, ...). A point with a non-finite x or y is skipped and the line
// breaks there. A finite value beyond +-1e12 is refused (heed::Error naming the series and the
// point): no axis can hold it. Each of `x_markers` is drawn as a dashed grey line, and the x axis
// reaches it; a marker whose x is not finite or beyond +-1e12 is refused (heed::Error).
std::string svg_line_chart(const std::vector<Series>& series, const std::string& title,
                           const std::string& x_label, const std::string& y_label,
                           const std::vector<XMarker>& x_markers = {});

// `text` with & < > " ' replaced by entities, control characters and invalid UTF-8 by '?'.
// Safe inside XML (and HTML) text and attribute values.
std::string xml_escape(const std::string& text);

// The colour of weight w in [0, 1] on the heatmaps' scale, as "#rrggbb".
std::string weight_colour(real w);

// For the charts' axes, by comparison rather than by a logarithm (so no C library's log10 picks
// a tick): 10^d (exact for 0 <= d <= 22, one rounding of 1 / 10^-d below), and the decade of a
// finite v > 0, the d with power_of_ten(d) <= v < power_of_ten(d + 1) (0 for anything else).
real power_of_ten(int d);
int decade_of(real v);

}  // namespace heed
