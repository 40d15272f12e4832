// Signed scores as labelled grids in one SVG: a layer x head map of one score per grid, or a
// composition matrix (an earlier layer's heads down, a later layer's across). Each cell is
// coloured on a diverging scale, blue below 0, white at 0, red above (ColorBrewer's "RdBu"
// reversed), and carries its value as text and as a hover <title>, so the picture reads without
// a legend. Well-formed XML, every label escaped (viz/svg.h's rules).
#pragma once

#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace heed {

struct ScoreGrid {
  std::string title;                      // "copying score"
  std::string note;                       // one line under the title: the scale, what 1 means
  std::string row_caption, col_caption;   // "layer", "head"
  std::vector<std::string> rows, cols;    // labels
  std::vector<std::vector<real>> values;  // [row][col]; a non-finite value is drawn grey, "n/a"
  real lo = -1, hi = 1;                   // the scale's ends: lo <= centre < hi; lo is blue, hi red
  real centre = 0;                        // white: 0, or a baseline the values are read against
};

// The colour of v on a scale from lo (blue) through centre (white) to hi (red), "#rrggbb",
// clamped to [lo, hi]; grey when not finite.
std::string score_colour(real v, real lo, real hi, real centre = 0);

// The grids under one title, `per_row` grids side by side. heed::Error when there is no grid, a
// grid's values do not fit its labels, or its scale is not lo <= centre < hi (naming the grid).
std::string svg_score_grids(const std::vector<ScoreGrid>& grids, const std::string& title, int per_row = 3);

}  // namespace heed
