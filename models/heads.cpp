#include "models/heads.h"

#include <algorithm>
#include <string>

#include "autograd/functions.h"

namespace heed {

ScoreSums score_head(const Tensor& weights, int64_t head, const std::vector<int64_t>& n) {
  const Shape& s = weights.shape();
  if (s.size() != 4 || s[2] != s[3] || s[0] != static_cast<int64_t>(n.size()))
    throw Error("heads: weights " + shape_str(s) + " are not (B, h, T, T) for " + std::to_string(n.size()) +
                " sequences");
  const int64_t B = s[0], H = s[1], T = s[2];
  if (head < 0 || head >= H)
    throw Error("heads: head " + std::to_string(head) + " of a layer of " + std::to_string(H) + " heads");
  ScoreSums sums;
  for (int64_t b = 0; b < B; ++b) {
    const int64_t len = n[static_cast<size_t>(b)];
    if (len < 1 || 2 * len >= T)
      throw Error("heads: a segment of " + std::to_string(len) + " symbols does not fit " + std::to_string(T) +
                  " positions (BOS and two copies)");
    const real* w = weights.data() + (b * H + head) * T * T;  // this head's (T, T): row = query, column = key
    for (int64_t t = 1; t <= 2 * len; ++t) {                    // every real position after BOS
      sums.previous_token += w[t * T + (t - 1)];
      ++sums.previous_terms;
    }
    for (int64_t t = len + 1; t <= 2 * len; ++t) {  // the second copy: s_k at t = n+k looks at k+1
      sums.induction += w[t * T + (t - len + 1)];
      ++sums.induction_terms;
    }
  }
  return sums;
}

std::vector<HeadScore> head_scores(const DecoderModel& model, const RepeatTask& task, int64_t samples, uint64_t seed) {
  if (samples < 1) throw Error("heads: samples " + std::to_string(samples) + " must be at least 1");
  const int64_t L = model.num_layers(), H = model.config().heads;
  std::vector<ScoreSums> sums(static_cast<size_t>(L * H));  // layer-major
  NoGradGuard no_grad;
  Generator gen(seed);
  for (int64_t done = 0; done < samples;) {
    const int64_t B = std::min<int64_t>(100, samples - done);
    std::vector<Example> examples;
    std::vector<int64_t> n;
    for (int64_t b = 0; b < B; ++b) {
      examples.push_back(task.sample(gen));
      n.push_back(static_cast<int64_t>(examples.back().src.size()));
    }
    Batch batch = make_batch(examples);
    std::vector<Var> weights;  // one (B, h, T, T) per layer
    model.hidden(batch.tgt_in, batch.batch, batch.tgt_len, batch.tgt_lengths, &weights);
    for (int64_t l = 0; l < L; ++l)
      for (int64_t h = 0; h < H; ++h) {
        const ScoreSums s = score_head(weights[static_cast<size_t>(l)].value(), h, n);
        ScoreSums& total = sums[static_cast<size_t>(l * H + h)];
        total.previous_token += s.previous_token;
        total.induction += s.induction;
        total.previous_terms += s.previous_terms;
        total.induction_terms += s.induction_terms;
      }
    done += B;
  }
  std::vector<HeadScore> out;
  for (int64_t l = 0; l < L; ++l)
    for (int64_t h = 0; h < H; ++h) {
      const ScoreSums& s = sums[static_cast<size_t>(l * H + h)];
      out.push_back({l, h, s.previous_token / static_cast<real>(s.previous_terms),
                     s.induction / static_cast<real>(s.induction_terms)});
    }
  return out;
}

ZeroedHeads::ZeroedHeads(DecoderModel& model, const std::vector<HeadId>& heads) : model_(model) {
  const int64_t L = model.num_layers(), H = model.config().heads, D = model.config().embed, dk = D / H;
  for (const HeadId& id : heads)  // all checked before any is zeroed
    if (id.layer < 0 || id.layer >= L || id.head < 0 || id.head >= H)
      throw Error("ablate: layer " + std::to_string(id.layer) + " head " + std::to_string(id.head) +
                  " is not in a model of " + std::to_string(L) + " layers of " + std::to_string(H) + " heads");
  for (const HeadId& id : heads) {
    Tensor& w = model.self_attention(static_cast<size_t>(id.layer)).out_proj.weight.value();  // (D, D)
    const bool saved = std::any_of(saved_.begin(), saved_.end(), [&](const auto& p) { return p.first == id.layer; });
    if (!saved) saved_.emplace_back(id.layer, w);  // a copy of the layer's weight as it was
    for (int64_t row = 0; row < D; ++row)
      for (int64_t col = id.head * dk; col < (id.head + 1) * dk; ++col) w[row * D + col] = 0;
  }
}

ZeroedHeads::~ZeroedHeads() {
  for (auto& [layer, before] : saved_) model_.self_attention(static_cast<size_t>(layer)).out_proj.weight.value() = before;
}

HalvesLoss ablated_halves_loss(DecoderModel& model, const std::vector<HeadId>& heads, const RepeatTask& task,
                               int64_t samples, uint64_t seed) {
  ZeroedHeads zeroed(model, heads);
  return repeat_halves_loss(model, task, samples, seed);
}

std::vector<HeadAblation> ablate_each_head(DecoderModel& model, const RepeatTask& task, int64_t samples,
                                           uint64_t seed) {
  std::vector<HeadAblation> out;
  for (int64_t l = 0; l < model.num_layers(); ++l)
    for (int64_t h = 0; h < model.config().heads; ++h)
      out.push_back({l, h, ablated_halves_loss(model, {{l, h}}, task, samples, seed)});
  return out;
}

}  // namespace heed
