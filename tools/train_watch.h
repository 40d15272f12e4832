// heed train --watch and --film: attention while the model learns (models/analysis/watch.h takes the
// snapshots). --watch redraws, on a terminal, the heatmap of one fixed example with the step,
// loss and held-out exact accuracy beside it, every --watch-every steps; when stdout is not a
// terminal it prints nothing (and on a terminal it draws the progress line under the matrix
// itself). --film FILE writes the snapshots as one scrubbable HTML page at
// the end of the run (viz/film.h). On a Transformer, --attention cross, --layer L and --head K
// (tools/head_flags.h, numbered as heed predict's) choose the matrix both draw. A decoder-only model
// (--model decoder) is filmed by models/analysis/heads.h's HeadFilmMaker: its fixed sequence attending to
// itself, layer L's head K, with the head's scores and the in-context loss at each snapshot; a
// model of a text (models/tasks/text.h) on repeated random tokens of its vocabulary, with its
// in-context learning score on the validation text as one more column, icl_score.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "models/analysis/heads.h"
#include "models/train.h"
#include "models/analysis/watch.h"
#include "tools/args.h"
#include "tools/head_flags.h"

namespace heed {

struct WatchPlan {
  bool watch = false;  // --watch
  std::string film;    // --film FILE; empty: none
  int64_t every = kDefaultWatchEvery;
  // --attention/--layer/--head: the matrix drawn, read in a teacher-forced pass over what the
  // model wrote (as heed predict's); none: the decoder's own attention (for the Transformer,
  // its last layer's cross-attention, the mean of the heads).
  std::optional<HeadChoice> heads;
  bool force = false;  // --force: the film is replaced even when write-protected
  bool any() const { return watch || !film.empty(); }
};

// The flags --watch, --film FILE and --watch-every N (names for Args: kWatchValued, kWatchSwitches).
// heed::Error (from a.error) for N < 1, --watch-every without --watch or --film, or a model
// without attention. Does not touch the file system.
WatchPlan parse_watch_flags(const Args& a, const ModelConfig& c);
// --attention, --layer and --head into plan.heads, for the model `c` the run trains (after
// --load or --resume has fixed its shape). heed::Error naming flag, value and range as heed
// predict's (tools/head_flags.h), and for the flags without --film or --watch; --head all and the
// self-attentions are refused (a film draws one output x source matrix per snapshot). For a
// decoder-only model --attention may only be decoder (its causal self-attention, the one it
// has), and --head all is refused likewise.
void choose_film_heads(const Args& a, const ModelConfig& c, WatchPlan& plan);
inline const char* const kWatchHelp =
    "  --watch                   on a terminal, redraw the attention of one fixed example (the\n"
    "                            digits of pi, or the seed sentence for translate) as it learns\n"
    "  --film FILE               write snapshots of that attention, the loss and the held-out\n"
    "                            exact accuracy as one HTML page with a slider and a play button\n"
    "  --watch-every N           steps between snapshots of --watch and --film (20)\n"
    "  --layer L, --head K       transformer: --watch and --film draw the cross-attention of\n"
    "                            decoder layer L (the last when not given), head K (the mean of\n"
    "                            the heads when not given), numbered from 0 and read as heed\n"
    "                            predict reads them; without either, the decoder's own (the last\n"
    "                            layer's mean of the heads). --attention cross may be given; --head\n"
    "                            all and --attention encoder|decoder are heed predict's alone (a\n"
    "                            film draws one output x source matrix per snapshot)\n"
    "                            decoder: the film's fixed sequence (a segment and its repeat)\n"
    "                            attending to itself, layer L's head K, each snapshot naming its\n"
    "                            induction and previous-token scores and the in-context loss;\n"
    "                            heed eval --film FILE prints when they changed; a text: the\n"
    "                            sequence is random tokens of its vocabulary and their repeat, and\n"
    "                            each snapshot also holds the ICL score on its validation text\n";

// heed bench --watch: the median milliseconds of one snapshot of `model` on `task` (the fixed
// example and the held-out sample), over `repeats` snapshots: wall time, and in `cpu_ms` the
// thread's CPU time (what counts on a shared machine).
real median_snapshot_ms(const Task& task, const Model& model, int64_t repeats, real* cpu_ms);

// What a training run does for --watch and --film. REQUIRES: plan.any().
class Watcher {
 public:
  // heed::Error when the film cannot be written (checked now, before training).
  Watcher(const WatchPlan& plan, const Task& task, const ModelConfig& config, const TrainOptions& opt,
          int64_t seed);
  // --resume: a --film file that exists is continued, its snapshots before `step` (where the
  // run resumes) kept; heed::Error, before training, when it cannot be read back as a film of
  // this run's example (it is then left alone, never replaced).
  void continue_film(int64_t step);
  void start(const Model& model, int64_t step = 0);    // the first snapshot (step 0, or where --resume began)
  // A snapshot every N steps and at the last; while it draws on a terminal, also the progress
  // line below the matrix (cut to the terminal's width, so that redrawing in place holds).
  void on_step(const Model& model, const Progress& p);
  // True when on_step draws the progress line: the usual one (on stderr) must then stay silent.
  bool draws_progress() const { return progress_; }
  void finish();  // writes the film (and says so on stdout)
  // A run stopped by an error still leaves its film so far (when it has a snapshot of training).
  ~Watcher();
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

 private:
  void draw(const FilmFrame& frame);
  Film& film();  // the one of the two makers below
  const FilmFrame* take_start(const Model& model, int64_t step);
  const FilmFrame* take_step(const Model& model, const Progress& p);

  WatchPlan plan_;
  std::optional<FilmMaker> maker_;      // an encoder-decoder model's film, or
  // A model of a text: repeated random tokens of its vocabulary, the sequences its heads are
  // scored on (Olsson et al.'s prefix matching); heads_ reads it, so it is declared first.
  std::unique_ptr<RepeatTask> text_repeat_;
  std::optional<HeadFilmMaker> heads_;  // a decoder-only model's (models/analysis/heads.h)
  bool terminal_ = false;  // --watch, and stdout is a terminal
  bool progress_ = false;  // ... and so is stderr: on_step draws the progress line
  int drawn_lines_ = 0;  // terminal lines of the last drawing
  bool finished_ = false;
};

}  // namespace heed
