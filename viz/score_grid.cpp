#include "viz/score_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/svg.h"  // xml_escape

namespace heed {

namespace {

constexpr int kCellW = 56, kCellH = 26, kLabelW = 88, kHeadH = 64, kGap = 36;

std::string format(const char* f, real v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, static_cast<double>(v));
  return buf;
}

// How far v is from the centre towards its end of the scale, 0 to 1.
real strength(real v, real lo, real hi, real centre) {
  if (!std::isfinite(v)) return 0;
  return v >= centre ? std::clamp<real>((v - centre) / (hi - centre), 0, 1)
                     : (lo < centre ? std::clamp<real>((v - centre) / (lo - centre), 0, 1) : 0);
}

int grid_width(const ScoreGrid& g) { return kLabelW + kCellW * static_cast<int>(g.cols.size()); }
int grid_height(const ScoreGrid& g) { return kHeadH + kCellH * static_cast<int>(g.rows.size()) + 24; }

}  // namespace

std::string score_colour(real v, real lo, real hi, real centre) {
  if (!std::isfinite(v)) return "#cccccc";
  // From white to ColorBrewer RdBu's darkest red (178, 24, 43) above 0, to its darkest blue
  // (33, 102, 172) below.
  static const int kWhite[3] = {247, 247, 247}, kRed[3] = {178, 24, 43}, kBlue[3] = {33, 102, 172};
  const real f = strength(v, lo, hi, centre);
  const int* end = v >= centre ? kRed : kBlue;
  int rgb[3];
  for (int c = 0; c < 3; ++c) rgb[c] = static_cast<int>(std::lround(kWhite[c] + f * (end[c] - kWhite[c])));
  char out[8];
  std::snprintf(out, sizeof out, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return out;
}

std::string svg_score_grids(const std::vector<ScoreGrid>& grids, const std::string& title, int per_row) {
  if (grids.empty()) throw Error("svg_score_grids: no grid to draw");
  if (per_row < 1) throw Error("svg_score_grids: per_row " + std::to_string(per_row) + " must be at least 1");
  for (const ScoreGrid& g : grids) {
    bool fits = !g.rows.empty() && !g.cols.empty() && g.values.size() == g.rows.size();
    for (const auto& row : g.values) fits = fits && row.size() == g.cols.size();
    if (!fits)
      throw Error("svg_score_grids: grid '" + g.title + "' has " + std::to_string(g.values.size()) +
                  " rows of values for " + std::to_string(g.rows.size()) + " row and " +
                  std::to_string(g.cols.size()) + " column labels");
    if (!(g.lo <= g.centre && g.hi > g.centre))
      throw Error("svg_score_grids: grid '" + g.title + "' has the scale [" + format("%g", g.lo) + ", " +
                  format("%g", g.hi) + "] about " + format("%g", g.centre) + ", which does not have lo <= centre < hi");
  }
  // Lay the grids out in rows of per_row: each row as tall as its tallest grid.
  std::vector<int> x(grids.size()), y(grids.size());
  int width = 0, top = 48;
  for (size_t start = 0; start < grids.size(); start += static_cast<size_t>(per_row)) {
    int left = 16, tallest = 0;
    for (size_t i = start; i < std::min(grids.size(), start + static_cast<size_t>(per_row)); ++i) {
      x[i] = left, y[i] = top;
      left += grid_width(grids[i]) + kGap;
      tallest = std::max(tallest, grid_height(grids[i]));
    }
    width = std::max(width, left);
    top += tallest + kGap / 2;
  }
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + std::to_string(width) + " " +
       std::to_string(top) + "\" width=\"" + std::to_string(width) + "\" height=\"" + std::to_string(top) +
       "\" font-family=\"sans-serif\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += "<text x=\"16\" y=\"28\" font-size=\"15\" font-weight=\"bold\">" + xml_escape(title) + "</text>\n";
  for (size_t i = 0; i < grids.size(); ++i) {
    const ScoreGrid& g = grids[i];
    const int gx = x[i], gy = y[i];
    s += "<g>\n<text x=\"" + std::to_string(gx) + "\" y=\"" + std::to_string(gy + 14) +
         "\" font-size=\"13\" font-weight=\"bold\">" + xml_escape(g.title) + "</text>\n";
    s += "<text x=\"" + std::to_string(gx) + "\" y=\"" + std::to_string(gy + 30) + "\" font-size=\"11\" fill=\"#555\">" +
         xml_escape(g.note) + "</text>\n";
    // Column caption and labels above the cells, row caption and labels to their left.
    s += "<text x=\"" + std::to_string(gx + kLabelW) + "\" y=\"" + std::to_string(gy + 46) +
         "\" font-size=\"11\" fill=\"#555\">" + xml_escape(g.col_caption) + "</text>\n";
    for (size_t c = 0; c < g.cols.size(); ++c)
      s += "<text x=\"" + std::to_string(gx + kLabelW + kCellW * static_cast<int>(c) + kCellW / 2) + "\" y=\"" +
           std::to_string(gy + kHeadH - 4) + "\" font-size=\"11\" text-anchor=\"middle\">" + xml_escape(g.cols[c]) +
           "</text>\n";
    s += "<text x=\"" + std::to_string(gx) + "\" y=\"" + std::to_string(gy + kHeadH - 4) +
         "\" font-size=\"11\" fill=\"#555\">" + xml_escape(g.row_caption) + "</text>\n";
    for (size_t r = 0; r < g.rows.size(); ++r) {
      const int cy = gy + kHeadH + kCellH * static_cast<int>(r);
      s += "<text x=\"" + std::to_string(gx + kLabelW - 6) + "\" y=\"" + std::to_string(cy + kCellH / 2 + 4) +
           "\" font-size=\"11\" text-anchor=\"end\">" + xml_escape(g.rows[r]) + "</text>\n";
      for (size_t c = 0; c < g.cols.size(); ++c) {
        const real v = g.values[r][c];
        const int cx = gx + kLabelW + kCellW * static_cast<int>(c);
        const std::string text = std::isfinite(v) ? format("%.2f", v) : "n/a";
        s += "<rect x=\"" + std::to_string(cx) + "\" y=\"" + std::to_string(cy) + "\" width=\"" +
             std::to_string(kCellW) + "\" height=\"" + std::to_string(kCellH) + "\" fill=\"" +
             score_colour(v, g.lo, g.hi, g.centre) + "\" stroke=\"white\"><title>" +
             xml_escape(g.row_caption + " " + g.rows[r] + ", " + g.col_caption + " " + g.cols[c] + ": " +
                        (std::isfinite(v) ? format("%.6g", v) : "n/a")) +
             "</title></rect>\n";
        s += "<text x=\"" + std::to_string(cx + kCellW / 2) + "\" y=\"" + std::to_string(cy + kCellH / 2 + 4) +
             "\" font-size=\"11\" text-anchor=\"middle\" fill=\"" + (strength(v, g.lo, g.hi, g.centre) > 0.6 ? "white" : "black") + "\">" +
             text + "</text>\n";
      }
    }
    s += "</g>\n";
  }
  s += "</svg>\n";
  return s;
}

}  // namespace heed
