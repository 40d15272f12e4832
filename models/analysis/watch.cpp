#include "models/analysis/watch.h"

#include <algorithm>
#include <cmath>

#include "models/tasks/data.h"
#include "models/evaluate.h"
#include "models/train.h"
#include "models/tasks/translate.h"

namespace heed {

Example watch_example(const Task& task) {
  Example e;
  if (const auto* data = dynamic_cast<const DataTask*>(&task)) {
    // A data file: its first validation pair, else its first training pair.
    if (!data->valid().pairs.empty()) return data->valid().pairs.front();
    if (!data->train_pairs().empty()) return data->train_pairs().front();
    throw Error("watch: the data task holds no pairs");
  }
  if (task.name() == "translate") {
    e.src = task.src_vocab().encode(TranslateTask::kSeedSource);
  } else {
    const auto* symbols = dynamic_cast<const SymbolTask*>(&task);
    if (!symbols) throw Error("watch: no fixed example for the task '" + task.name() + "'");
    // The first 100 decimals of pi; a longer source starts them again.
    static const char kPi[] =
        "3141592653589793238462643383279502884197169399375105820974944592307816406286208998628034825342117067";
    const int64_t L = std::clamp<int64_t>(8, task.min_len(), task.max_len());
    for (int64_t i = 0; i < L; ++i)
      e.src.push_back(Vocab::kNumSpecials + (kPi[i % 100] - '0') % symbols->num_symbols());
  }
  e.tgt = task.target(e.src);
  return e;
}

AttentionWatch::AttentionWatch(const Task& task, const std::string& model, int64_t held_out, uint64_t seed)
    : task_(task) {
  if (model == "plain")
    throw Error("watch: the plain model has no attention to watch (it reads only the encoder's last state); "
                "choose --model additive, general, dot, scaled, cosine or location");
  if (held_out < 1) throw Error("watch: the held-out sample needs at least one sequence");
  Example e = watch_example(task);
  example_ = make_batch({e});
  for (int64_t id : e.src) source_.push_back(task.src_vocab().token(id));
  for (int64_t id : e.tgt) reference_.push_back(task.tgt_vocab().token(id));
  reference_.push_back(task.tgt_vocab().token(Vocab::kEos));
  Generator gen(seed);
  std::vector<Example> sample;
  for (int64_t i = 0; i < held_out; ++i) sample.push_back(task.sample_held_out(gen));
  held_out_ = make_batch(sample);
}

FilmFrame AttentionWatch::take(const Model& model, int64_t step, real loss) const {
  FilmFrame f;
  f.step = step;
  f.loss = loss;
  Decoded d = model.greedy(example_, static_cast<int64_t>(reference_.size()));  // no graph: greedy
  if (d.attention.empty()) throw Error("watch: the model returned no attention weights");
  for (int64_t id : d.tokens[0]) f.output.push_back(task_.tgt_vocab().token(id));
  f.weights = matrix_ ? matrix_(model, example_.src, d.tokens[0]) : d.attention[0];
  Accuracy acc;
  score_batch(model, held_out_, acc);
  f.exact = acc.exact();
  return f;
}

FilmMaker::FilmMaker(const Task& task, const std::string& model, int64_t every) : watch_(task, model), every_(every) {
  if (every < 1) throw Error("watch: snapshots every " + std::to_string(every) + " steps; must be at least 1");
  film_.source = watch_.source();
  film_.reference = watch_.reference();
}

const FilmFrame* FilmMaker::start(const Model& model, int64_t step) {
  film_.frames.push_back(watch_.take(model, step, NAN));
  return &film_.frames.back();
}

const FilmFrame* FilmMaker::on_step(const Model& model, const Progress& p) {
  loss_sum_ += p.loss;
  ++losses_;
  if (p.step % every_ != 0 && p.step != p.steps) return nullptr;
  film_.frames.push_back(watch_.take(model, p.step, loss_sum_ / static_cast<real>(losses_)));
  loss_sum_ = 0;
  losses_ = 0;
  return &film_.frames.back();
}

}  // namespace heed
