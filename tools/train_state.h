// heed train's runs that survive an interruption: the run's settings and its training state
// (Adam's moments and step count, the step reached, the data generator, the last losses) saved
// beside the weights, read back by --resume so that the continued run computes the same bits
// as one that never stopped; --load's weights for a new run; SIGINT, SIGTERM, SIGHUP and
// SIGPIPE (caught by tools/signals.h) turned into a save at the end of the current step. The
// command-line half of models/train.h's Trainer.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "tools/common.h"
#include "tools/signals.h"

namespace heed {

// --resume F: the plan F recorded (task, model and every option of the run), with --steps,
// --save, --checkpoint-every, --weights-only and --json taken from `a`; any other flag given
// is refused, as is a file without training state. Reads F's header only.
TrainPlan plan_from_checkpoint(const Args& a);

// --load F: the model of F's metadata replaces the flags' model (a model flag that differs is
// refused), and the task's vocabularies must be the ones F's model reads.
void adopt_loaded_model(TrainPlan& plan, const Args& a);

// The model of the run: fresh from the seed, or F's weights (--load, --resume; with F's
// metadata and training tensors). restore_run then puts F's training state into the trainer
// (--resume only). Errors change nothing.
LoadedModel make_run_model(const TrainPlan& plan);
void restore_run(const TrainPlan& plan, const LoadedModel& run, Trainer& trainer);

// Writes the run to `path` (atomically): weights and settings, plus the training state unless
// `weights_only`.
void save_run(const TrainPlan& plan, const Model& model, const Trainer& trainer, const std::string& path,
              bool weights_only);

// Catches SIGINT, SIGTERM, SIGHUP and SIGPIPE while it lives (the handler only notes the
// signal; a second one during a save is noted too, so the save completes: F is never left
// half-written) and saves
// every plan.checkpoint_every steps.
class RunGuard {
 public:
  RunGuard(const TrainPlan& plan, const Model& model, const Trainer& trainer);
  ~RunGuard();  // the previous handlers are back (signals_)
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;

  // Call after every step. Saves when a checkpoint is due; after a signal, saves (with --save),
  // prints one line -- the step reached, where it was saved, the command that resumes it -- and
  // returns the exit status 128 + signal (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP, 141 for SIGPIPE); 0 to go on.
  int after_step();
  // The run is done: the final save (with --save), then the previous handlers are back. A
  // signal that came during that save gives its status as after_step does.
  int finish();

 private:
  int interrupted(int sig);
  std::string resume_command() const;

  const TrainPlan& plan_;
  const Model& model_;
  const Trainer& trainer_;
  bool tty_;
  StopSignals signals_;  // caught from construction; the previous handlers back in finish() or the destructor
};

}  // namespace heed
