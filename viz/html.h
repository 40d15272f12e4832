// The attention explorer: one self-contained HTML file (inline CSS, JS and SVG; no network, no
// external fonts) that works offline in any browser. It shows the source and output sentences
// and the heatmap; hovering, tapping or focusing (Tab) an output token, or a heatmap cell,
// shades each source token by the weight it received and prints the weight under it.
// "#3" at the end of the URL selects output token 3 on load (useful for screenshots).
#pragma once

#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace heed {

// `weights` as for terminal_heatmap (heed::Error otherwise). The weights are embedded as JSON
// at full precision (%.17g), so the file also serves as a record of the run.
std::string html_explorer(const std::vector<std::string>& source,
                          const std::vector<std::string>& output,
                          const std::vector<std::vector<real>>& weights, const std::string& title);

}  // namespace heed
