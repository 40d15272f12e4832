#include "viz/heatmap.h"

#include <cmath>
#include <cstdio>

#include "io/os.h"
#include "io/utf8.h"

namespace heed {

void check_attention(const std::string& fn, const std::vector<std::string>& source,
                     const std::vector<std::string>& output,
                     const std::vector<std::vector<real>>& weights) {
  if (weights.size() != output.size()) {
    throw Error(fn + ": " + std::to_string(weights.size()) + " rows of weights for " +
                std::to_string(output.size()) + " output tokens");
  }
  for (std::size_t t = 0; t < weights.size(); ++t) {
    if (weights[t].size() != source.size()) {
      throw Error(fn + ": row " + std::to_string(t) + " of weights has " +
                  std::to_string(weights[t].size()) + " values for " +
                  std::to_string(source.size()) + " source tokens");
    }
    for (std::size_t s = 0; s < source.size(); ++s) {
      real w = weights[t][s];
      // A little slack above 1 for weights that went through sums or products of roundings.
      if (!(w >= 0 && w <= 1 + 1e-9)) {
        char value[32];
        std::snprintf(value, sizeof value, "%g", w);
        throw Error(fn + ": weights[" + std::to_string(t) + "][" + std::to_string(s) +
                    "] = " + value + " is not in [0, 1]");
      }
    }
  }
}

namespace {

constexpr std::size_t kMaxLabel = 16;   // output tokens longer than this are cut
constexpr std::size_t kMaxHeader = 24;  // source tokens likewise, on the staircase
constexpr int kCell = 3;                // columns per source token: two shade characters, one gap

struct Glyphs {
  const char* shade[5];
  const char* rule;  // leads from a source token down to its column
  const char* max;   // sits right of each row's largest weight
  const char* ellipsis;
  const char* legend;
};

const Glyphs kUnicode = {
    {" ", "░", "▒", "▓", "█"},
    "│",
    "◂",
    "…",
    "scale: blank <0.05  ░ <0.25  ▒ <0.50  ▓ <0.75  █ up to 1   ◂ row maximum, named on the right"};
const Glyphs kAscii = {
    {" ", ".", ":", "+", "#"},
    "|",
    "<",
    "~",
    "scale: blank <0.05  . <0.25  : <0.50  + <0.75  # up to 1   < row maximum, named on the right"};

int shade_level(real w) { return w < 0.05 ? 0 : w < 0.25 ? 1 : w < 0.5 ? 2 : w < 0.75 ? 3 : 4; }

// A token fit for a terminal line: control characters and invalid UTF-8 become '?', and a
// token wider than `max_width` characters is cut, ending in an ellipsis. Sets *width.
std::string printable(const std::string& token, std::size_t max_width, const Glyphs& g,
                      std::size_t* width) {
  std::vector<std::string> chars;
  for (std::size_t i = 0; i < token.size();) {
    int len = static_cast<int>(utf8_length(token, i));
    unsigned char b = static_cast<unsigned char>(token[i]);
    if (len == 0 || b < 0x20 || b == 0x7F) {
      chars.push_back("?");
      i += 1;
    } else {
      chars.push_back(token.substr(i, len));
      i += len;
    }
  }
  if (chars.size() > max_width) {
    chars.resize(max_width - 1);
    chars.push_back(g.ellipsis);
  }
  std::string out;
  for (const auto& c : chars) out += c;
  *width = chars.size();
  return out;
}

}  // namespace

std::string terminal_heatmap(const std::vector<std::string>& source,
                             const std::vector<std::string>& output,
                             const std::vector<std::vector<real>>& weights, bool unicode) {
  check_attention("terminal_heatmap", source, output, weights);
  const Glyphs& g = unicode ? kUnicode : kAscii;
  const std::size_t S = source.size();

  std::vector<std::string> labels(output.size());
  std::vector<std::size_t> label_widths(output.size());
  std::size_t label_width = 0;
  for (std::size_t t = 0; t < output.size(); ++t) {
    labels[t] = printable(output[t], kMaxLabel, g, &label_widths[t]);
    label_width = std::max(label_width, label_widths[t]);
  }
  std::vector<std::string> heads(S);
  std::vector<std::size_t> head_widths(S);
  bool short_heads = true;  // every source token fits above its own column
  for (std::size_t s = 0; s < S; ++s) {
    heads[s] = printable(source[s], kMaxHeader, g, &head_widths[s]);
    short_heads = short_heads && head_widths[s] < kCell;
  }
  const std::string margin(label_width + 1, ' ');

  std::string out;
  if (short_heads) {
    std::string line = margin;
    for (std::size_t s = 0; s < S; ++s) line += heads[s] + std::string(kCell - head_widths[s], ' ');
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  } else {
    // Staircase: line s holds token s at column s and the rules of the columns to its left.
    for (std::size_t s = 0; s < S; ++s) {
      std::string line = margin;
      for (std::size_t left = 0; left < s; ++left) line += std::string(g.rule) + "  ";
      out += line + heads[s] + "\n";
    }
  }

  for (std::size_t t = 0; t < output.size(); ++t) {
    const std::vector<real>& row = weights[t];
    std::string line(label_width - label_widths[t], ' ');
    line += labels[t] + " ";
    std::size_t best = 0, ties = 0;  // the first largest weight, and how many others equal it
    for (std::size_t s = 1; s < S; ++s) {
      if (row[s] > row[best])
        best = s, ties = 0;
      else if (row[s] == row[best])
        ++ties;
    }
    for (std::size_t s = 0; s < S; ++s) {
      const char* shade = g.shade[shade_level(row[s])];
      line += std::string(shade) + shade + (s == best && ties == 0 ? g.max : " ");
    }
    if (S > 0) {
      std::size_t unused = 0;
      char value[16];
      std::snprintf(value, sizeof value, " %.2f", row[best]);
      line += " " +
              (ties ? std::string("tie at") : printable(source[best], kMaxLabel, g, &unused)) +
              value;
    }
    out += line + "\n";
  }
  out += std::string(g.legend) + "\n";
  return out;
}

bool stdout_is_terminal() { return os::is_terminal(1); }

}  // namespace heed
