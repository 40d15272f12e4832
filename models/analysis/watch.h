// AttentionWatch: what `heed train --watch` and `--film` see of a model while it learns. One
// fixed example, decoded greedily (without building a graph) for as many steps as its reference
// has tokens plus <eos>, gives the attention matrix; a fixed held-out sample of `held_out`
// sources gives the exact accuracy beside it.
// The example: for translate, the seed sentence (TranslateTask::kSeedSource); for the toy
// tasks, the digits of pi, 3 1 4 1 5 9 2 6 ..., as many as fit (8, or the nearest length in
// min_len .. max_len, each digit modulo V), the source the tutorials draw; for a data file
// (heed train --data), its first validation pair, or its first training pair without one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/model.h"
#include "models/tasks/tasks.h"
#include "models/train.h"
#include "viz/film.h"

namespace heed {

// A snapshot every 20 steps: about 2 % of the training time at heed train's default sizes (heed
// bench --watch measures it), and a film of a 2000-step run of 101 frames.
inline constexpr int64_t kDefaultWatchEvery = 20;
// The held-out sample of each snapshot's exact accuracy: small, as it is decoded every time.
inline constexpr int64_t kWatchHeldOut = 32;

// The example described above.
Example watch_example(const Task& task);

// What a snapshot shows of `model` for the example's source and the tokens it wrote: a (T, S)
// matrix, one row per written token. Without one, the attention the decoder returned while
// writing them (for the Transformer, its last layer's cross-attention averaged over the heads);
// heed train --layer/--head gives one that reads a chosen layer and head (tools/train_watch.cpp).
using WatchMatrix = std::function<std::vector<std::vector<real>>(
    const Model& model, const std::vector<int64_t>& src, const std::vector<int64_t>& output)>;

class AttentionWatch {
 public:
  // heed::Error when `model` has no attention to watch (plain) or held_out < 1.
  AttentionWatch(const Task& task, const std::string& model, int64_t held_out = kWatchHeldOut,
                 uint64_t seed = 4242);

  const std::vector<std::string>& source() const { return source_; }        // (S)
  const std::vector<std::string>& reference() const { return reference_; }  // (T) ending in <eos>

  // The snapshot after `step` training steps; `loss` is passed through (NaN: none yet).
  FilmFrame take(const Model& model, int64_t step, real loss) const;
  void set_matrix(WatchMatrix matrix) { matrix_ = std::move(matrix); }

 private:
  const Task& task_;
  WatchMatrix matrix_;  // empty: the decoder's own attention
  Batch example_, held_out_;
  std::vector<std::string> source_, reference_;
};

// Films a training run: start() before the first step, on_step() from train()'s callback. A
// snapshot at step 0, every `every` steps and at the last; each frame's loss is the mean of the
// steps since the previous one. Both return the frame just taken, or null.
class FilmMaker {
 public:
  // heed::Error as AttentionWatch's, or for every < 1.
  FilmMaker(const Task& task, const std::string& model, int64_t every = kDefaultWatchEvery);

  const FilmFrame* start(const Model& model, int64_t step = 0);  // step: where a resumed run begins
  const FilmFrame* on_step(const Model& model, const Progress& p);
  Film& film() { return film_; }  // source and reference filled in; title and caption are the caller's
  void set_matrix(WatchMatrix matrix) { watch_.set_matrix(std::move(matrix)); }  // what the frames show

 private:
  AttentionWatch watch_;
  int64_t every_;
  Film film_;
  real loss_sum_ = 0;
  int64_t losses_ = 0;
};

}  // namespace heed
