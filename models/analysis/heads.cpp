#include "models/analysis/heads.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "autograd/functions.h"
#include "tensor/math.h"

namespace heed {

const DecoderModel& decoder_only(const Model& model) {
  const auto* d = dynamic_cast<const DecoderModel*>(&model);
  if (!d) throw Error("heads: model '" + model.config().model + "' is not a decoder-only model");
  return *d;
}

namespace {

DecoderModel& decoder_only(Model& model) {
  decoder_only(static_cast<const Model&>(model));  // checked
  return static_cast<DecoderModel&>(model);
}

}  // namespace

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

std::vector<HeadScore> head_scores(const Model& any, const RepeatTask& task, int64_t samples, uint64_t seed) {
  const DecoderModel& model = decoder_only(any);
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

std::vector<HeadAblation> ablate_each_head(Model& any, const RepeatTask& task, int64_t samples, uint64_t seed) {
  DecoderModel& model = decoder_only(any);  // whose heads are zeroed one at a time
  std::vector<HeadAblation> out;
  for (int64_t l = 0; l < model.num_layers(); ++l)
    for (int64_t h = 0; h < model.config().heads; ++h)
      out.push_back({l, h, ablated_halves_loss(model, {{l, h}}, task, samples, seed)});
  return out;
}

std::vector<std::vector<real>> head_matrix(const Tensor& weights, int64_t b, int64_t head) {
  const Shape& s = weights.shape();
  if (s.size() != 4) throw Error("heads: weights " + shape_str(s) + " are not (B, h, R, C)");
  const int64_t B = s[0], H = s[1], R = s[2], C = s[3];
  if (b < 0 || b >= B || head < -1 || head >= H)
    throw Error("heads: sequence " + std::to_string(b) + ", head " + std::to_string(head) + " of weights " +
                shape_str(s));
  std::vector<std::vector<real>> m(static_cast<size_t>(R), std::vector<real>(static_cast<size_t>(C), 0));
  for (int64_t k = 0; k < H; ++k) {
    if (head >= 0 && k != head) continue;
    const real* w = weights.data() + (b * H + k) * R * C;  // head k's (R, C)
    for (int64_t r = 0; r < R; ++r)
      for (int64_t c = 0; c < C; ++c) m[r][c] += w[r * C + c];
  }
  if (head < 0)
    for (auto& row : m)
      for (real& x : row) x /= static_cast<real>(H);
  return m;
}

namespace {

// The first step whose value passes `passes`, or -1.
template <class Passes>
int64_t first_step(const char* fn, const std::vector<int64_t>& steps, const std::vector<real>& values, Passes passes) {
  if (steps.size() != values.size())
    throw Error(std::string(fn) + ": " + std::to_string(steps.size()) + " steps but " + std::to_string(values.size()) +
                " values");
  for (size_t i = 0; i < steps.size(); ++i)
    if (passes(values[i])) return steps[i];  // a NaN passes neither comparison
  return -1;
}

}  // namespace

int64_t first_step_reaching(const std::vector<int64_t>& steps, const std::vector<real>& values, real level) {
  return first_step("first_step_reaching", steps, values, [level](real v) { return v >= level; });
}

int64_t first_step_below(const std::vector<int64_t>& steps, const std::vector<real>& values, real level) {
  return first_step("first_step_below", steps, values, [level](real v) { return v < level; });
}

Example film_sequence(const RepeatTask& task, uint64_t seed) {
  Generator gen(seed);
  return task.sample(gen, (task.min_len() + task.max_len()) / 2);
}

HeadFilmMaker::HeadFilmMaker(const RepeatTask& task, const ModelConfig& config, int64_t layer, int64_t head,
                             int64_t every, int64_t held_out, uint64_t seed)
    : task_(task), layers_(config.layers), heads_(config.heads), layer_(layer), head_(head), every_(every),
      held_out_(held_out), seed_(seed) {
  if (!config.is_decoder()) throw Error("film: the heads' film is of a decoder-only model, not " + config.model);
  if (layer < 0 || layer >= layers_ || head < -1 || head >= heads_)
    throw Error("film: layer " + std::to_string(layer) + " head " + std::to_string(head) + " is not in a model of " +
                std::to_string(layers_) + " layers of " + std::to_string(heads_) + " heads");
  if (every < 1) throw Error("film: snapshots every " + std::to_string(every) + " steps; must be at least 1");
  if (held_out < 1) throw Error("film: the held-out sample needs at least one sequence");
  const Example e = film_sequence(task);
  ids_.push_back(Vocab::kBos);
  ids_.insert(ids_.end(), e.tgt.begin(), e.tgt.end());  // BOS s s: the decoder's input
  for (int64_t id : ids_) film_.source.push_back(task.tgt_vocab().token(id));
  film_.reference = film_.source;  // rows and columns: the same positions
  const std::string which = "layer " + std::to_string(layer) + (head < 0 ? ", mean of its heads" : ", head " + std::to_string(head));
  film_.curve = "induction score, " + which;
  film_.across = "position looked at";
  film_.down = "position predicting the next";
  const std::string n = std::to_string(e.src.size());
  film_.hint = "A segment of " + n + " symbols, then the same again, attending to itself (" + which +
               "): row t is the position predicting the next symbol, column j a position it looks at (only "
               "j <= t: the mask is causal); darker cells got more attention. A previous-token head lights up "
               "the diagonal just below the main one. An induction head lights up, in the second copy, the "
               "diagonal " + std::to_string(e.src.size() - 1) + " below the main one: each symbol of the repeat "
               "looks at the symbol that followed it the first time, the one to predict. Drag the slider, use "
               "the arrow keys on it, or press play.";
  film_.columns = {"in_context_loss", "log_v"};
  for (int64_t l = 0; l < layers_; ++l)
    for (int64_t k = 0; k < heads_; ++k)
      for (const char* score : {"previous_token", "induction"})
        film_.columns.push_back("layer" + std::to_string(l) + "_head" + std::to_string(k) + "_" + score);
}

FilmFrame HeadFilmMaker::take(const Model& model, int64_t step, real loss) const {
  FilmFrame f;
  f.step = step;
  f.loss = loss;
  f.output = film_.source;
  std::vector<int64_t> output(ids_.begin() + 1, ids_.end());  // it reads ids_, and writes these
  output.push_back(Vocab::kEos);
  f.weights = head_matrix(model.attention_maps({}, output).self[static_cast<size_t>(layer_)], 0, head_);
  const std::vector<HeadScore> scores = head_scores(model, task_, held_out_, seed_);
  const HalvesLoss halves = repeat_halves_loss(model, task_, held_out_, seed_);
  const real log_v = math::log(static_cast<real>(task_.num_symbols()));
  // The chosen head's scores: its own, or the mean of its layer's (the scores of the mean matrix).
  real previous = 0, induction = 0;
  for (const HeadScore& s : scores)
    if (s.layer == layer_ && (head_ < 0 || s.head == head_)) {
      previous += s.previous_token;
      induction += s.induction;
    }
  if (head_ < 0) {
    previous /= static_cast<real>(heads_);
    induction /= static_cast<real>(heads_);
  }
  f.exact = induction;
  f.values = {halves.in_context, log_v};
  for (const HeadScore& s : scores) {
    f.values.push_back(s.previous_token);
    f.values.push_back(s.induction);
  }
  char loss_text[32] = "\u2013", note[240];  // no loss before the first step
  if (std::isfinite(loss)) std::snprintf(loss_text, sizeof loss_text, "%.4f", loss);
  const std::string which =
      "layer " + std::to_string(layer_) + (head_ < 0 ? " mean of heads" : " head " + std::to_string(head_));
  std::snprintf(note, sizeof note,
                "step %lld  \u00b7  loss %s  \u00b7  %s: induction %.2f, previous-token %.2f  \u00b7  in-context "
                "loss %.3f (%.0f %% of log V)",
                static_cast<long long>(step), loss_text, which.c_str(), induction, previous, halves.in_context,
                100 * halves.in_context / log_v);
  f.note = note;
  for (const auto& [name, measure] : extra_) {
    f.values.push_back(measure(model));
    char more[80];
    std::snprintf(more, sizeof more, "  \u00b7  %s %.3f", name.c_str(), f.values.back());
    f.note += more;
  }
  return f;
}

void HeadFilmMaker::add_column(const std::string& name, std::function<real(const Model&)> measure) {
  film_.columns.push_back(name);
  extra_.emplace_back(name, std::move(measure));
}

const FilmFrame* HeadFilmMaker::start(const Model& model, int64_t step) {
  film_.frames.push_back(take(model, step, NAN));
  return &film_.frames.back();
}

const FilmFrame* HeadFilmMaker::on_step(const Model& model, const Progress& p) {
  loss_sum_ += p.loss;
  ++losses_;
  if (p.step % every_ != 0 && p.step != p.steps) return nullptr;
  film_.frames.push_back(take(model, p.step, loss_sum_ / static_cast<real>(losses_)));
  loss_sum_ = 0;
  losses_ = 0;
  return &film_.frames.back();
}

}  // namespace heed
