#include "tools/head_flags.h"

#include <cctype>

#include "models/analysis/heads.h"  // head_matrix

namespace heed {

std::string HeadChoice::describe() const {
  const std::string what = kind == "cross" ? "cross-attention" : kind + " self-attention";
  const std::string layer_range = "0-" + std::to_string(layers - 1), head_range = "0-" + std::to_string(heads - 1);
  if (all_heads && layer < 0) return what + ", every layer (" + layer_range + ") and head (" + head_range + ")";
  const std::string at = what + ", layer " + std::to_string(layer) + " (of " + layer_range + ")";
  if (all_heads) return at + ", every head (" + head_range + ")";
  if (head < 0) return at + ", mean of heads " + head_range;
  return at + ", head " + std::to_string(head) + " (of " + head_range + ")";
}

std::string HeadChoice::flags() const {
  std::string out = " --attention " + kind;
  if (layer >= 0) out += " --layer " + std::to_string(layer);
  if (all_heads) return out + " --head all";
  return head >= 0 ? out + " --head " + std::to_string(head) : out;
}

bool head_flags_given(const Args& a) { return a.has("--attention") || a.has("--layer") || a.has("--head"); }

std::string attention_kind(const Args& a) {
  const std::string kind = a.text("--attention", "cross");
  if (kind != "cross" && kind != "encoder" && kind != "decoder")
    throw a.error("--attention: '" + kind + "' is not one of cross, encoder, decoder");
  return kind;
}

HeadChoice choose_heads(const Args& a, const ModelConfig& c, const std::string& kind, bool all_heads) {
  if (!c.has_layers()) {
    std::string flag = a.has("--attention") ? "--attention" : a.has("--layer") ? "--layer" : "--head";
    throw a.error(flag + " " + a.text(flag, "") + ": the " + c.model + " model " +
                  (c.has_attention() ? "attends once per output step" : "has no attention") +
                  ", with no layers or heads to choose from; --attention, --layer and --head are for --model "
                  "transformer and --model decoder");
  }
  HeadChoice h;
  h.kind = kind;
  h.layers = c.layers;
  h.heads = c.heads;
  h.all_heads = all_heads;
  auto number = [&](const std::string& flag, int64_t count, const std::string& what) {
    const std::string text = a.text(flag, "");
    const std::string range = "0 to " + std::to_string(count - 1);
    bool digits = !text.empty() && text.size() < 10;
    for (char ch : text) digits = digits && std::isdigit(static_cast<unsigned char>(ch));
    if (!digits || std::stoll(text) >= count)
      throw a.error(flag + " " + text + ": this model has " + std::to_string(count) + " " + what + ", numbered " + range +
                    (flag == "--head" ? " (or all)" : ""));
    return static_cast<int64_t>(std::stoll(text));
  };
  const std::string stack = c.is_decoder() ? "layers" : kind == "encoder" ? "encoder layers" : "decoder layers";
  h.layer = a.has("--layer") ? number("--layer", c.layers, stack) : all_heads ? -1 : c.layers - 1;
  if (a.has("--head") && !all_heads) h.head = number("--head", c.heads, "heads in each layer");
  return h;
}

std::vector<std::vector<HeatmapPanel>> head_panels(const AttentionMaps& maps, const HeadChoice& h) {
  const std::vector<Tensor>& per_layer = h.kind == "cross" ? maps.cross : h.kind == "encoder" ? maps.encoder : maps.self;
  std::vector<std::vector<HeatmapPanel>> grid;
  for (int64_t l = 0; l < h.layers; ++l) {
    if (h.layer >= 0 && l != h.layer) continue;
    const Tensor& w = per_layer[static_cast<size_t>(l)];  // (1, heads, R, C)
    auto matrix = [&](int64_t k) { return head_matrix(w, 0, k); };  // head k's, or for -1 their mean
    const std::string name = "layer " + std::to_string(l);
    std::vector<HeatmapPanel> row;
    if (h.all_heads) {
      for (int64_t k = 0; k < h.heads; ++k) row.push_back({name + ", head " + std::to_string(k), matrix(k)});
    } else if (h.head >= 0) {
      row.push_back({name + ", head " + std::to_string(h.head), matrix(h.head)});
    } else {
      row.push_back({name + ", mean of " + std::to_string(h.heads) + " heads", matrix(-1)});
    }
    grid.push_back(row);
  }
  return grid;
}

}  // namespace heed
