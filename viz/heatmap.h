// Attention matrices as text: source tokens across, output tokens down, one shaded cell per
// weight, readable without colour. Long source tokens are written on a staircase of header
// lines (token j starts above column j, a rule leads down to it), so a 12-word German sentence
// reads in order from top to bottom; tokens of at most two characters fit on one header line.
// Each row's largest weight is marked and named at the end of the row with its value
// (an exact tie, as in a uniform row, is reported as such).
// Takes plain data: viz/ knows nothing of models.
#pragma once

#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace heed {

// `weights` has one row per output token and one weight per source token, each in [0, 1]
// (heed::Error naming `fn` and the sizes otherwise). Shared by every picture in viz/.
void check_attention(const std::string& fn, const std::vector<std::string>& source,
                     const std::vector<std::string>& output,
                     const std::vector<std::vector<real>>& weights);

// The heatmap as lines of text ending in '\n', followed by a one-line legend of the scale.
// unicode: shades ' ', '░', '▒', '▓', '█' for weights below 0.05, 0.25, 0.5, 0.75 and up to 1;
// otherwise plain ASCII ' ', '.', ':', '+', '#' (for files, pipes and logs).
std::string terminal_heatmap(const std::vector<std::string>& source,
                             const std::vector<std::string>& output,
                             const std::vector<std::vector<real>>& weights, bool unicode);

// True when standard output is a terminal (isatty), i.e. when unicode shading is safe to use.
bool stdout_is_terminal();

}  // namespace heed
