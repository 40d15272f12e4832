#include "tools/circuits_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "io/atomic_file.h"
#include "models/analysis/circuits.h"
#include "io/utf8.h"  // terminal_safe
#include "viz/score_grid.h"

namespace heed {

namespace {

// One layer x head grid of a score.
ScoreGrid layer_head_grid(const std::string& title, const std::string& note, int64_t L, int64_t H,
                          const std::vector<real>& values, real lo, real hi) {
  ScoreGrid g{title, note, "layer", "head", {}, {}, {}, lo, hi};
  for (int64_t l = 0; l < L; ++l) g.rows.push_back(std::to_string(l));
  for (int64_t h = 0; h < H; ++h) g.cols.push_back(std::to_string(h));
  for (int64_t l = 0; l < L; ++l)
    g.values.emplace_back(values.begin() + l * H, values.begin() + (l + 1) * H);
  return g;
}

}  // namespace

void report_circuits(const Model& model, const std::vector<HeadScore>& scores, const RepeatTask& task,
                     int64_t samples, uint64_t seed, Json::Array& rows, Json& j, const std::string& svg) {
  const ModelConfig& c = model.config();
  const int64_t L = c.layers, H = c.heads;
  const bool post_norm = !c.attention_only && !c.norm_first;
  std::vector<real> copying, dla, prefix, previous;
  for (const HeadScore& s : scores) {
    copying.push_back(copying_score(model, s.layer, s.head));
    prefix.push_back(s.induction);
    previous.push_back(s.previous_token);
  }
  dla = post_norm ? std::vector<real>(scores.size(), std::numeric_limits<real>::quiet_NaN())
                  : direct_logit_attribution(model, task, samples, seed);
  std::printf("\ncircuits: each head's weights and its direct effect on the logits (models/analysis/circuits.h%s)\n",
              c.attention_only ? "" : "; LayerNorms read as the identity in the weights' scores");
  std::printf("layer  head  prefix matching  copying  direct logit  induction head\n");
  for (size_t i = 0; i < scores.size(); ++i) {
    const bool induction = is_induction_head(prefix[i], copying[i]);
    char direct[32];
    if (post_norm)
      std::snprintf(direct, sizeof direct, "n/a");
    else
      std::snprintf(direct, sizeof direct, "%+.4f", dla[i]);
    std::printf("%5lld  %4lld  %15.3f  %+7.3f  %12s  %s\n", static_cast<long long>(scores[i].layer),
                static_cast<long long>(scores[i].head), prefix[i], copying[i], direct, induction ? "yes" : "no");
    rows[i].set("prefix_matching", prefix[i]);
    rows[i].set("copying", copying[i]);
    rows[i].set("direct_logit", post_norm ? Json() : Json(dla[i]));
    rows[i].set("induction_head", induction);
  }
  std::printf("(induction head: prefix matching >= %.2f and copying > %.0f. copying: sum(lambda) / sum(|lambda|) of "
              "W_U W_O W_V W_E. direct logit: the head's output on the next token's logit, %s, mean over %lld "
              "sequences' positions)\n",
              kScoreLevel, kCopyingLevel,
              c.attention_only ? "through W_U"
                               : post_norm ? "not defined for post-norm layers"
                                           : "through the final LayerNorm's scale of the pass and W_U",
              static_cast<long long>(samples));

  const std::vector<Composition> comp = composition_scores(model);
  const int64_t d_head = c.embed / H;
  const CompositionBaseline base = composition_baseline(c.embed, d_head, kBaselineSamples, kBaselineSeed);
  Json::Array comp_rows;
  if (!comp.empty()) {
    std::printf("\ncomposition: head 1's output read by a later head 2's queries (Q), keys (K), values (V)\n");
    std::printf("layer1  head1  layer2  head2      Q      K      V\n");
    for (const Composition& k : comp) {
      std::printf("%6lld  %5lld  %6lld  %5lld  %5.3f  %5.3f  %5.3f\n", static_cast<long long>(k.layer1),
                  static_cast<long long>(k.head1), static_cast<long long>(k.layer2), static_cast<long long>(k.head2), k.q,
                  k.k, k.v);
      comp_rows.push_back(Json::object({{"layer1", k.layer1}, {"head1", k.head1}, {"layer2", k.layer2},
                                        {"head2", k.head2}, {"q", k.q}, {"k", k.k}, {"v", k.v}}));
    }
  }
  std::printf("random heads of the same shapes (d_head %lld, D %lld; mean of %lld pairs, seed %llu): Q %.3f  K %.3f  "
              "V %.3f\n",
              static_cast<long long>(d_head), static_cast<long long>(c.embed), static_cast<long long>(base.samples),
              static_cast<unsigned long long>(kBaselineSeed), base.q, base.k, base.v);
  j.set("composition", Json(comp_rows));
  j.set("composition_baseline", Json::object({{"q", base.q}, {"k", base.k}, {"v", base.v}, {"samples", base.samples}}));
  if (svg.empty()) return;

  std::vector<ScoreGrid> grids = {
      layer_head_grid("prefix matching", "attention to the token after the earlier copy, 0 to 1", L, H, prefix, 0, 1),
      layer_head_grid("previous token", "attention from t to t-1, 0 to 1", L, H, previous, 0, 1),
      layer_head_grid("copying", "eigenvalue positivity of the OV circuit, -1 to +1", L, H, copying, -1, 1)};
  if (!post_norm) {
    real top = 0;
    for (real v : dla) top = std::max(top, std::fabs(v));
    top = std::max<real>(top, 1e-9);
    char note[96];
    std::snprintf(note, sizeof note, "on the next token's logit; the scale -%.2f to +%.2f", top, top);
    grids.push_back(layer_head_grid("direct logit attribution", note, L, H, dla, -top, top));
  }
  // One matrix per pair of layers and kind: head 1 (earlier layer) down, head 2 across.
  for (int64_t l1 = 0; l1 < L; ++l1)
    for (int64_t l2 = l1 + 1; l2 < L; ++l2)
      for (const char* kind : {"Q", "K", "V"}) {
        const real baseline = kind[0] == 'Q' ? base.q : kind[0] == 'K' ? base.k : base.v;
        // Coloured against random heads: white at their mean, red above it, blue below.
        real top = baseline;
        for (const Composition& k : comp)
          if (k.layer1 == l1 && k.layer2 == l2) top = std::max({top, k.q, k.k, k.v});
        char note[96];
        std::snprintf(note, sizeof note, "white: random heads' %.2f; red above, blue below", baseline);
        ScoreGrid g{std::string(kind) + "-composition, layer " + std::to_string(l1) + " into " + std::to_string(l2),
                    note, "head (layer " + std::to_string(l1) + ")", "head (layer " + std::to_string(l2) + ")", {}, {},
                    std::vector<std::vector<real>>(static_cast<size_t>(H), std::vector<real>(static_cast<size_t>(H))),
                    0, std::max<real>(top, baseline + static_cast<real>(1e-9)), baseline};
        for (int64_t h = 0; h < H; ++h) g.rows.push_back(std::to_string(h)), g.cols.push_back(std::to_string(h));
        for (const Composition& k : comp)
          if (k.layer1 == l1 && k.layer2 == l2)
            g.values[static_cast<size_t>(k.head1)][static_cast<size_t>(k.head2)] =
                kind[0] == 'Q' ? k.q : kind[0] == 'K' ? k.k : k.v;
        grids.push_back(g);
      }
  write_text_file(svg, svg_score_grids(grids, "repeat: " + c.describe() + ", the heads' scores over " +
                                                  std::to_string(samples) + " sequences",
                                       4));
  std::printf("wrote %s\n", terminal_safe(svg).c_str());
}

}  // namespace heed
