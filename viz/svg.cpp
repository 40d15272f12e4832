#include "viz/svg.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

#include "io/utf8.h"
#include "viz/heatmap.h"

namespace heed {

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    char c = text[i];
    unsigned char b = static_cast<unsigned char>(c);
    int len = static_cast<int>(utf8_length(text, i));
    const char* entity = c == '&'    ? "&amp;"
                         : c == '<'  ? "&lt;"
                         : c == '>'  ? "&gt;"
                         : c == '"'  ? "&quot;"
                         : c == '\'' ? "&apos;"
                                     : nullptr;
    if (entity) {
      out += entity;
    } else if (len == 0 || (b < 0x20 && c != '\t' && c != '\n') || b == 0x7F) {
      out += '?';  // not allowed in XML 1.0, or not UTF-8
    } else {
      out.append(text, i, len);
    }
    i += len == 0 ? 1 : len;
  }
  return out;
}

real power_of_ten(int d) {
  real p = 1;
  if (d >= 0) {
    for (int i = 0; i < d; ++i) p *= 10;
    return p;
  }
  // 1 / 10^-d while 10^-d fits the type; below that (float's 1e-38, double's 1e-308) a division by
  // 10 a step, into the subnormals, so that the decade of the tiniest value is still found.
  const int direct = std::min(-d, std::numeric_limits<real>::max_exponent10);
  for (int i = 0; i < direct; ++i) p *= 10;
  real q = 1 / p;
  for (int i = direct; i < -d; ++i) q /= 10;
  return q;
}

int decade_of(real v) {
  if (!(v > 0) || v > std::numeric_limits<real>::max()) return 0;
  int d = 0;
  while (power_of_ten(d) > v) --d;
  while (power_of_ten(d + 1) <= v) ++d;
  return d;
}

std::string weight_colour(real w) {
  // ColorBrewer's sequential "Blues", white for 0 to dark blue for 1, as equally spaced anchors.
  static const int kAnchors[9][3] = {{247, 251, 255}, {222, 235, 247}, {198, 219, 239},
                                     {158, 202, 225}, {107, 174, 214}, {66, 146, 198},
                                     {33, 113, 181},  {8, 81, 156},    {8, 48, 107}};
  real x = std::isfinite(w) ? std::clamp<real>(w, 0, 1) * 8 : 0;
  int k = std::min(7, static_cast<int>(x));
  real f = x - k;
  char out[8];
  int rgb[3];
  for (int c = 0; c < 3; ++c)
    rgb[c] =
        static_cast<int>(std::lround(kAnchors[k][c] + f * (kAnchors[k + 1][c] - kAnchors[k][c])));
  std::snprintf(out, sizeof out, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return out;
}

namespace {

constexpr real kFont = 13;    // label font size, px
constexpr real kCharW = 7.4;  // generous average width of a character at kFont in sans-serif
constexpr real kCell = 28;    // side of one heatmap cell, px
constexpr std::size_t kMaxLabel = 30;  // longer tokens are cut, ending in "…"

std::string num(real v) {
  char out[32];
  std::snprintf(out, sizeof out, "%.1f", v);
  return out;
}

std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// A label cut to kMaxLabel characters, then escaped.
std::string label(const std::string& token) {
  if (code_points(token) <= kMaxLabel) return xml_escape(token);
  std::size_t i = 0;
  for (std::size_t kept = 0; i < token.size() && kept < kMaxLabel - 1; ++kept) {
    int len = static_cast<int>(utf8_length(token, i));
    i += len == 0 ? 1 : len;
  }
  return xml_escape(token.substr(0, i)) + "…";
}

// Punctuation alone ("," "." "?") is a speck at the label size: such labels are drawn larger
// and bold, so a sentence's commas and full stops can be read and told apart.
bool punctuation_only(const std::string& token) {
  if (token.empty()) return false;
  for (char c : token)
    if (!std::ispunct(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string label_attributes(const std::string& token) {
  return punctuation_only(token) ? " font-size=\"20\" font-weight=\"bold\"" : "";
}

real text_width(const std::string& token) {
  return static_cast<real>(std::min(code_points(token), kMaxLabel)) * kCharW;
}

// The heatmap's <svg>; its size goes to *size when given. `scale_id` names the legend's gradient,
// unique within a document that holds several heatmaps.
struct Size {
  real width = 0, height = 0;
};
std::string heatmap(const std::vector<std::string>& source, const std::vector<std::string>& output,
                    const std::vector<std::vector<real>>& weights, const std::string& title,
                    bool for_html, const AxisCaptions& axes, Size* size = nullptr,
                    const std::string& scale_id = "heed-scale") {
  const real kCos45 = std::sqrt(real(0.5));
  real src_width = 0, out_width = 0;
  for (const auto& s : source) src_width = std::max(src_width, text_width(s));
  for (const auto& t : output) out_width = std::max(out_width, text_width(t));

  const real S = static_cast<real>(source.size()), T = static_cast<real>(output.size());
  // The title (HTML has its own heading), the axis caption "source", then the source labels
  // rising at 45 degrees; the caption "output" runs up the left edge.
  const real caption_y = (for_html ? 8 : 44) + kFont;
  const real top = caption_y + 6 + src_width * kCos45 + kFont;
  const real left = 16 + 20 + out_width + 10;
  const real grid_w = S * kCell, grid_h = T * kCell;
  const real bar_x = left + grid_w + 28, bar_h = std::max<real>(grid_h, 120);
  real width = bar_x + 14 + 40;
  for (std::size_t s = 0; s < source.size(); ++s)
    width = std::max<real>(width, left + (s + 0.5) * kCell + text_width(source[s]) * kCos45 + 16);
  if (!for_html) width = std::max<real>(width, 24 + code_points(title) * 9.0);
  const real height = top + bar_h + 24;
  if (size) *size = {width, height};

  std::string o;
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + num(width) + " " + num(height) +
       "\" width=\"" + num(width) + "\" height=\"" + num(height) +
       "\" font-family=\"sans-serif\" font-size=\"" + num(kFont) + "\" class=\"heed-heatmap\">\n";
  o += "<style>.cell:hover{stroke:#000;stroke-width:2}</style>\n";
  o += "<title>" + xml_escape(title) + "</title>\n";
  o += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  if (!for_html) {
    o += "<text x=\"16\" y=\"26\" font-size=\"16\" font-weight=\"bold\" fill=\"#222\">" +
         xml_escape(title) + "</text>\n";
  }

  o += "<g class=\"axis-captions\" fill=\"#555\" font-style=\"italic\" text-anchor=\"middle\">\n";
  o += "<text x=\"" + num(left + grid_w / 2) + "\" y=\"" + num(caption_y) + "\">" + xml_escape(axes.across) + "</text>\n";
  o += "<text transform=\"translate(" + num(16 + kFont) + " " + num(top + grid_h / 2) +
       ") rotate(-90)\">" + xml_escape(axes.down) + "</text>\n";
  o += "</g>\n";
  o += "<g class=\"source-labels\" fill=\"#222\">\n";
  for (std::size_t s = 0; s < source.size(); ++s) {
    // The glyphs of a rotated line sit up and to the left of its baseline: nudge it right.
    real x = left + (s + 0.5) * kCell + 4, y = top - 6;
    o += "<text class=\"src\" data-col=\"" + std::to_string(s) + "\" transform=\"translate(" +
         num(x) + " " + num(y) + ") rotate(-45)\"" + label_attributes(source[s]) + ">" + label(source[s]) +
         "</text>\n";
  }
  o += "</g>\n<g class=\"output-labels\" fill=\"#222\" text-anchor=\"end\">\n";
  for (std::size_t t = 0; t < output.size(); ++t) {
    o += "<text class=\"out\" data-row=\"" + std::to_string(t) + "\"" +
         (for_html ? " tabindex=\"0\"" : "") + " x=\"" + num(left - 8) + "\" y=\"" +
         num(top + (t + 0.5) * kCell) + "\" dy=\"0.35em\"" + label_attributes(output[t]) + ">" + label(output[t]) +
         "</text>\n";
  }
  o += "</g>\n<g class=\"cells\" stroke=\"#ffffff\" stroke-width=\"1\">\n";
  for (std::size_t t = 0; t < output.size(); ++t) {
    for (std::size_t s = 0; s < source.size(); ++s) {
      char value[32];
      std::snprintf(value, sizeof value, "%.3f", weights[t][s]);
      o += "<rect class=\"cell\" data-row=\"" + std::to_string(t) + "\" data-col=\"" +
           std::to_string(s) + "\" x=\"" + num(left + s * kCell) + "\" y=\"" +
           num(top + t * kCell) + "\" width=\"" + num(kCell) + "\" height=\"" + num(kCell) +
           "\" fill=\"" + weight_colour(weights[t][s]) + "\"><title>" + xml_escape(output[t]) +
           " → " + xml_escape(source[s]) + ": " + value + "</title></rect>\n";
    }
  }
  o += "</g>\n<rect x=\"" + num(left - 0.5) + "\" y=\"" + num(top - 0.5) + "\" width=\"" +
       num(grid_w + 1) + "\" height=\"" + num(grid_h + 1) +
       "\" fill=\"none\" stroke=\"#999\" stroke-width=\"1\"/>\n";
  if (for_html) {  // outlines the selected row; the explorer's script moves and shows it
    o += "<rect class=\"rowmark\" x=\"" + num(left - 1) + "\" y=\"" + num(top - 1) + "\" width=\"" +
         num(grid_w + 2) + "\" height=\"" + num(kCell + 2) +
         "\" fill=\"none\" stroke=\"#d55e00\" stroke-width=\"2\" visibility=\"hidden\"/>\n";
  }

  // The legend: a bar whose colour runs from 1 at the top to 0 at the bottom.
  o += "<defs><linearGradient id=\"" + scale_id + "\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";
  for (int k = 0; k <= 8; ++k) {
    char offset[16];
    std::snprintf(offset, sizeof offset, "%g", k / 8.0);
    o += "<stop offset=\"" + std::string(offset) + "\" stop-color=\"" + weight_colour(k / 8.0) +
         "\"/>";
  }
  o += "</linearGradient></defs>\n<g class=\"legend\" fill=\"#222\">\n";
  o += "<rect x=\"" + num(bar_x) + "\" y=\"" + num(top) + "\" width=\"14\" height=\"" + num(bar_h) +
       "\" fill=\"url(#" + scale_id + ")\" stroke=\"#999\"/>\n";
  const char* ticks[] = {"1", "0.5", "0"};
  for (int k = 0; k < 3; ++k) {
    real y = top + bar_h * k / 2;
    o += "<line x1=\"" + num(bar_x + 14) + "\" y1=\"" + num(y) + "\" x2=\"" + num(bar_x + 18) +
         "\" y2=\"" + num(y) + "\" stroke=\"#999\"/><text x=\"" + num(bar_x + 21) + "\" y=\"" +
         num(y) + "\" dy=\"0.35em\">" + ticks[k] + "</text>\n";
  }
  o += "</g>\n</svg>\n";
  return o;
}

}  // namespace

std::string svg_heatmap(const std::vector<std::string>& source,
                        const std::vector<std::string>& output,
                        const std::vector<std::vector<real>>& weights, const std::string& title,
                        const AxisCaptions& axes) {
  check_attention("svg_heatmap", source, output, weights);
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" +
         heatmap(source, output, weights, title, false, axes);
}

std::string svg_heatmap_element(const std::vector<std::string>& source,
                                const std::vector<std::string>& output,
                                const std::vector<std::vector<real>>& weights,
                                const std::string& title, const AxisCaptions& axes) {
  check_attention("svg_heatmap_element", source, output, weights);
  return heatmap(source, output, weights, title, true, axes);
}

std::string svg_heatmap_grid(const std::vector<std::string>& source, const std::vector<std::string>& output,
                             const std::vector<std::vector<HeatmapPanel>>& panels, const std::string& title,
                             const AxisCaptions& axes) {
  if (panels.empty()) throw Error("svg_heatmap_grid: no panels to draw");
  for (std::size_t r = 0; r < panels.size(); ++r) {
    if (panels[r].empty()) throw Error("svg_heatmap_grid: row " + std::to_string(r) + " has no panels");
    for (const HeatmapPanel& p : panels[r]) check_attention("svg_heatmap_grid, panel '" + p.label + "'", source, output, p.weights);
  }
  // Each panel is a whole heatmap (same tokens, so the same size), nested at its place as an
  // <svg> of its own; the panels' legends name their gradients apart.
  std::vector<std::vector<std::string>> drawn(panels.size());
  Size cell;
  for (std::size_t r = 0; r < panels.size(); ++r)
    for (std::size_t c = 0; c < panels[r].size(); ++c)
      drawn[r].push_back(heatmap(source, output, panels[r][c].weights, panels[r][c].label, false, axes, &cell,
                                 "heed-scale-" + std::to_string(r) + "-" + std::to_string(c)));
  std::size_t columns = 0;
  for (const auto& row : panels) columns = std::max(columns, row.size());
  const real top = 40;
  const real width = std::max<real>(cell.width * static_cast<real>(columns), 24 + code_points(title) * 9.0);
  const real height = top + cell.height * static_cast<real>(panels.size());
  std::string o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\" width=\"" +
       num(width) + "\" height=\"" + num(height) + "\" font-family=\"sans-serif\" font-size=\"" + num(kFont) +
       "\" class=\"heed-heatmap-grid\">\n";
  o += "<title>" + xml_escape(title) + "</title>\n";
  o += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  o += "<text x=\"16\" y=\"26\" font-size=\"18\" font-weight=\"bold\" fill=\"#222\">" + xml_escape(title) + "</text>\n";
  for (std::size_t r = 0; r < drawn.size(); ++r)
    for (std::size_t c = 0; c < drawn[r].size(); ++c) {
      const std::string& panel = drawn[r][c];
      const std::string body = panel.substr(panel.find("<svg") + 4);  // after the XML declaration's line
      o += "<svg x=\"" + num(cell.width * static_cast<real>(c)) + "\" y=\"" + num(top + cell.height * static_cast<real>(r)) +
           "\"" + body;
    }
  o += "</svg>\n";
  return o;
}

}  // namespace heed
