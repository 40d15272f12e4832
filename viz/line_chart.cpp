// svg_line_chart (declared in viz/svg.h): axes with "nice" ticks (1, 2 or 5 times a power of
// ten), light grid lines, one polyline per series, broken wherever a value is not finite, dashed
// vertical lines for the x markers, and a legend to the right of the plot so it never hides a line.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/svg.h"

namespace heed {
namespace {

constexpr real kCharW = 7.4;  // generous average width of a 13px sans-serif character
constexpr real kPlotW = 560, kPlotH = 320;

// Okabe & Ito's palette, distinguishable with the common colour-vision deficiencies.
const char* const kColours[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                "#e69f00", "#56b4e9", "#000000"};
const char* const kDashes[] = {"", "7 3", "2 3", "9 3 2 3"};
constexpr int kMarkers = 7;

std::string num(real v) {
  char out[32];
  std::snprintf(out, sizeof out, "%.1f", v);
  return out;
}

struct Axis {
  real lo, hi, step;
  int decimals;
};

// What an axis can show: values of magnitude up to kChartLimit (svg_line_chart refuses larger
// ones), and spans down to kChartResolution (a narrower one is drawn as a single value). Within
// these the steps, tick counts and decimals below are small integers, so converting them to
// int is defined behaviour; 1e308 and -1e308, or 5e-324 and 0, would not be.
constexpr real kChartLimit = 1e12;
constexpr real kChartResolution = 1e-9;

// Covers [lo, hi] with about five steps of 1, 2 or 5 times a power of ten.
// REQUIRES: |lo|, |hi| <= kChartLimit.
Axis nice_axis(real lo, real hi) {
  if (!(hi - lo >= kChartResolution)) {  // a single value (to the resolution), or no data at all
    real pad = lo == 0 ? 1 : std::max(std::abs(lo) * real(0.1), kChartResolution);
    lo -= pad;
    hi += pad;
  }
  real raw = (hi - lo) / 5;
  real magnitude = power_of_ten(decade_of(raw));
  real f = raw / magnitude;
  real step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * magnitude;
  int decimals = std::max(0, -decade_of(step));
  return {static_cast<real>(std::floor(lo / step + 1e-9) * step), static_cast<real>(std::ceil(hi / step - 1e-9) * step),
          step, decimals};
}

std::vector<real> ticks(const Axis& a) {
  std::vector<real> out;
  int n = static_cast<int>(std::lround((a.hi - a.lo) / a.step));
  for (int k = 0; k <= n; ++k) {
    real v = a.lo + k * a.step;
    out.push_back(std::abs(v) < a.step * 1e-6 ? 0 : v);
  }
  return out;
}

std::string tick_label(real v, int decimals) {
  char out[48];
  std::snprintf(out, sizeof out, "%.*f", decimals, v);
  return out;
}

// Marker `kind` centred at (x, y): circle, square, triangles, diamond, plus, cross.
std::string marker(int kind, real x, real y, const std::string& colour) {
  const real r = 4;
  std::string fill = "fill=\"" + colour + "\" stroke=\"#ffffff\" stroke-width=\"1\"";
  std::string line = "fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"2\"";
  auto pt = [](real px, real py) { return num(px) + "," + num(py) + " "; };
  switch (kind % kMarkers) {
    case 0:
      return "<circle cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"" + num(r) + "\" " + fill +
             "/>";
    case 1:
      return "<rect x=\"" + num(x - r) + "\" y=\"" + num(y - r) + "\" width=\"" + num(2 * r) +
             "\" height=\"" + num(2 * r) + "\" " + fill + "/>";
    case 2:
      return "<polygon points=\"" + pt(x, y - r - 1) + pt(x + r + 1, y + r) + pt(x - r - 1, y + r) +
             "\" " + fill + "/>";
    case 3:
      return "<polygon points=\"" + pt(x, y - r - 1) + pt(x + r + 1, y) + pt(x, y + r + 1) +
             pt(x - r - 1, y) + "\" " + fill + "/>";
    case 4:
      return "<polygon points=\"" + pt(x, y + r + 1) + pt(x + r + 1, y - r) + pt(x - r - 1, y - r) +
             "\" " + fill + "/>";
    case 5:
      return "<path d=\"M" + pt(x - r, y) + "H" + num(x + r) + " M" + pt(x, y - r) + "V" +
             num(y + r) + "\" " + line + "/>";
    default:
      return "<path d=\"M" + pt(x - r, y - r) + "L" + pt(x + r, y + r) + "M" + pt(x - r, y + r) +
             "L" + pt(x + r, y - r) + "\" " + line + "/>";
  }
}

}  // namespace

std::string svg_line_chart(const std::vector<Series>& series, const std::string& title,
                           const std::string& x_label, const std::string& y_label,
                           const std::vector<XMarker>& x_markers) {
  real x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
  std::size_t longest_name = 0;
  for (const Series& s : series) {
    if (s.x.size() != s.y.size()) {
      throw Error("svg_line_chart: series '" + s.name + "' has " + std::to_string(s.x.size()) +
                  " x values and " + std::to_string(s.y.size()) + " y values");
    }
    longest_name = std::max(longest_name, s.name.size());
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      if (std::abs(s.x[i]) > kChartLimit || std::abs(s.y[i]) > kChartLimit) {
        char point[96];
        std::snprintf(point, sizeof point, "(%g, %g)", static_cast<double>(s.x[i]), static_cast<double>(s.y[i]));
        throw Error("svg_line_chart: series '" + s.name + "' has the point " + point + " (point " + std::to_string(i) +
                    "); a chart draws values within +-1e12");
      }
      x_lo = std::min(x_lo, s.x[i]);
      x_hi = std::max(x_hi, s.x[i]);
      y_lo = std::min(y_lo, s.y[i]);
      y_hi = std::max(y_hi, s.y[i]);
    }
  }
  if (x_lo > x_hi) x_lo = x_hi = y_lo = y_hi = 0;  // nothing finite: empty axes
  for (const XMarker& m : x_markers) {  // the x axis reaches every marker
    if (!std::isfinite(m.x) || std::abs(m.x) > kChartLimit) {
      char at[48];
      std::snprintf(at, sizeof at, "%g", static_cast<double>(m.x));
      throw Error("svg_line_chart: the marker '" + m.label + "' is at x = " + at +
                  "; a chart draws markers at finite x within +-1e12");
    }
    x_lo = std::min(x_lo, m.x);
    x_hi = std::max(x_hi, m.x);
  }
  const Axis ax = nice_axis(x_lo, x_hi), ay = nice_axis(y_lo, y_hi);
  const std::vector<real> x_ticks = ticks(ax), y_ticks = ticks(ay);

  std::size_t y_tick_chars = 0;
  for (real v : y_ticks) y_tick_chars = std::max(y_tick_chars, tick_label(v, ay.decimals).size());
  // With markers, a band above the plot holds their labels, where no line can run under them.
  const real left = 24 + 12 + y_tick_chars * kCharW, top = x_markers.empty() ? 48 : 68;
  const real right = left + kPlotW, bottom = top + kPlotH;
  const real width = right + 28 + 34 + std::min<std::size_t>(longest_name, 40) * kCharW + 16;
  const real height = std::max<real>(bottom + 56, top + 22 * series.size() + 16);
  auto px = [&](real x) { return left + (x - ax.lo) / (ax.hi - ax.lo) * kPlotW; };
  auto py = [&](real y) { return bottom - (y - ay.lo) / (ay.hi - ay.lo) * kPlotH; };

  std::string o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + num(width) + " " + num(height) +
       "\" width=\"" + num(width) + "\" height=\"" + num(height) +
       "\" font-family=\"sans-serif\" font-size=\"13\" class=\"heed-chart\">\n";
  o += "<title>" + xml_escape(title) + "</title>\n";
  o += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  o += "<text x=\"" + num(left) +
       "\" y=\"28\" font-size=\"16\" font-weight=\"bold\" fill=\"#222\">" + xml_escape(title) +
       "</text>\n";

  o += "<g class=\"grid\" stroke=\"#e4e4e4\" stroke-width=\"1\">\n";
  for (real v : y_ticks) {
    o += "<line x1=\"" + num(left) + "\" y1=\"" + num(py(v)) + "\" x2=\"" + num(right) +
         "\" y2=\"" + num(py(v)) + "\"/>\n";
  }
  o += "</g>\n<g class=\"axes\" fill=\"#222\" stroke=\"#444\">\n";
  o += "<path d=\"M" + num(left) + "," + num(top) + " V" + num(bottom) + " H" + num(right) +
       "\" fill=\"none\"/>\n";
  for (real v : x_ticks) {
    real x = px(v);
    o += "<line x1=\"" + num(x) + "\" y1=\"" + num(bottom) + "\" x2=\"" + num(x) + "\" y2=\"" +
         num(bottom + 5) + "\"/><text x=\"" + num(x) + "\" y=\"" + num(bottom + 19) +
         "\" text-anchor=\"middle\" stroke=\"none\">" + tick_label(v, ax.decimals) + "</text>\n";
  }
  for (real v : y_ticks) {
    real y = py(v);
    o += "<line x1=\"" + num(left - 5) + "\" y1=\"" + num(y) + "\" x2=\"" + num(left) + "\" y2=\"" +
         num(y) + "\"/><text x=\"" + num(left - 8) + "\" y=\"" + num(y) +
         "\" dy=\"0.35em\" text-anchor=\"end\" stroke=\"none\">" + tick_label(v, ay.decimals) +
         "</text>\n";
  }
  o += "<text x=\"" + num((left + right) / 2) + "\" y=\"" + num(bottom + 42) +
       "\" text-anchor=\"middle\" stroke=\"none\">" + xml_escape(x_label) + "</text>\n";
  o += "<text transform=\"translate(18 " + num((top + bottom) / 2) +
       ") rotate(-90)\" text-anchor=\"middle\" stroke=\"none\">" + xml_escape(y_label) +
       "</text>\n</g>\n";

  // The markers, under the series: a dashed grey line from just above the plot to the x axis,
  // its label centred over its top, in the band above the plot.
  for (const XMarker& m : x_markers) {
    const real x = px(m.x);
    o += "<g class=\"x-marker\"><line x1=\"" + num(x) + "\" y1=\"" + num(top - 4) + "\" x2=\"" + num(x) + "\" y2=\"" +
         num(bottom) + "\" stroke=\"#777\" stroke-width=\"1.5\" stroke-dasharray=\"5 4\"/><text x=\"" + num(x) +
         "\" y=\"" + num(top - 9) + "\" text-anchor=\"middle\" fill=\"#555\">" + xml_escape(m.label) + "</text></g>\n";
  }

  const real legend_x = right + 28;
  for (std::size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    const std::size_t ci = s.colour >= 0 ? static_cast<std::size_t>(s.colour) : k;
    const int shape = s.shape >= 0 ? s.shape : static_cast<int>(k);
    const std::string colour = kColours[ci % std::size(kColours)];
    const std::string dash = kDashes[static_cast<std::size_t>(shape) % std::size(kDashes)];
    const std::string stroke = "fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"2\"" +
                               (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"");
    o += "<g class=\"series\">\n";
    std::string points;  // the current unbroken run of finite points
    std::size_t finite = 0;
    for (std::size_t i = 0; i <= s.x.size(); ++i) {
      bool ok = i < s.x.size() && std::isfinite(s.x[i]) && std::isfinite(s.y[i]);
      if (ok) {
        points += num(px(s.x[i])) + "," + num(py(s.y[i])) + " ";
        ++finite;
      } else if (!points.empty()) {
        points.pop_back();
        o += "<polyline points=\"" + points + "\" " + stroke + "/>\n";
        points.clear();
      }
    }
    // Every point gets a marker when there are few; otherwise about a dozen, staggered so the
    // markers of different series do not sit on top of each other.
    std::size_t stride = finite <= 40 ? 1 : (finite + 11) / 12;
    std::size_t offset = stride * k / std::max<std::size_t>(series.size(), 1);
    for (std::size_t i = 0, seen = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      if (seen++ % stride != offset) continue;
      char tip[96];
      std::snprintf(tip, sizeof tip, ": (%g, %g)", s.x[i], s.y[i]);
      o += "<g>" + marker(shape, px(s.x[i]), py(s.y[i]), colour) + "<title>" +
           xml_escape(s.name) + tip + "</title></g>\n";
    }
    real ly = top + 8 + 22 * k;
    o += "<path d=\"M" + num(legend_x) + "," + num(ly) + " h28\" " + stroke + "/>" +
         marker(shape, legend_x + 14, ly, colour) + "<text x=\"" +
         num(legend_x + 36) + "\" y=\"" + num(ly) + "\" dy=\"0.35em\" fill=\"#222\">" +
         xml_escape(s.name) + "</text>\n</g>\n";
  }
  o += "</svg>\n";
  return o;
}

}  // namespace heed
