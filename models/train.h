// Training of a Model (models/model.h) on a Task, as docs/models.md pins it: Adam (0.9, 0.999, 1e-8),
// gradient-norm clipping, a learning rate decayed linearly to 0 over the run (or constant, or
// the Transformer paper's warm-up), teacher forcing, and optionally label smoothing. Evaluation (greedy decoding, the exact and token metrics) is in
// models/evaluate.h.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "models/model.h"
#include "nn/optim.h"

namespace heed {

struct TrainOptions {
  int64_t steps = 3000;
  int64_t batch = 64;
  real lr = 3e-3;
  std::string schedule = "linear";  // linear, constant or warmup: see scheduled_lr
  int64_t warmup = 200;             // warmup: the steps of the linear rise to lr
  real label_smoothing = 0;         // eps of smoothed_cross_entropy (nn/loss.h); 0: cross_entropy
  real clip = 1.0;                  // max gradient norm; 0 turns clipping off
  uint64_t seed = 1;                // the data stream's seed (the model has its own)
};

struct Progress {
  int64_t step = 0, steps = 0;  // steps done, of
  real loss = 0;                // this step's loss
  real accuracy = 0;            // teacher-forced token accuracy on this step's batch
  real lr = 0, grad_norm = 0, seconds = 0;
};

struct TrainResult {
  std::vector<real> losses;  // one per step
  real seconds = 0;
  int64_t target_tokens = 0;  // non-PAD target tokens seen
};

// A rough upper bound of the bytes one training step holds (graph values and their gradients)
// with sequences of up to max_len tokens; measured peaks (heed bench) stay below half of it.
real step_memory_bytes(const ModelConfig& config, int64_t batch, int64_t max_len);
inline constexpr real kMaxStepMemory = real(int64_t(8) << 30);  // 8 GiB
// Throws heed::Error when step_memory_bytes exceeds kMaxStepMemory, naming the sizes to lower.
void check_step_memory(const ModelConfig& config, int64_t batch, int64_t max_len);

// The learning rate of step t (0-based) of `steps`, s = t + 1 the step's 1-based number:
//   linear    lr (1 - t / steps)
//   constant  lr
//   warmup    lr min(s / warmup, sqrt(warmup / s)): up in a straight line to lr at s = warmup,
//             then down as 1 / sqrt(s). That is Vaswani et al.'s section 5.3,
//             d_model^-0.5 min(s^-0.5, s warmup^-1.5), with d_model^-0.5 replaced by
//             lr sqrt(warmup), so that lr is the peak whatever the width.
real scheduled_lr(const TrainOptions& opt, int64_t t);

// What a run needs besides the weights to continue exactly where it stopped.
struct TrainingState {
  int64_t step = 0;             // steps done
  std::string data_generator;   // Generator::state() of the data stream after `step` batches
  int64_t adam_steps = 0;       // Adam's step count (equals `step`, kept apart as torch does)
  std::vector<Tensor> exp_avg, exp_avg_sq;  // Adam's moments, one per parameter
  std::vector<real> recent_losses;  // the last kRecentLosses losses, oldest first
  std::string dropout_generator;    // the dropout masks' stream (Model::dropout_state), "" without dropout
  static constexpr int64_t kRecentLosses = 50;
};

// A run one step at a time, so that a caller can stop between two steps, save the state, and
// later continue it: a restored Trainer computes the same bits as one that never stopped. The
// model is trained in place and must outlive the Trainer.
class Trainer {
 public:
  // Starts a fresh run (a new Adam, the data stream at opt.seed). Throws what train() throws.
  Trainer(Model& model, const Task& task, const TrainOptions& opt);

  bool done() const { return step_ >= opt_.steps; }
  int64_t steps_done() const { return step_; }
  // One step: batch, forward, loss, backward, clip, Adam. REQUIRES !done().
  Progress step();
  const std::vector<real>& recent_losses() const { return recent_; }
  int64_t target_tokens() const { return target_tokens_; }  // seen by this object's steps

  TrainingState state() const;
  // Continues a saved run. Checked whole first (heed::Error, nothing changed): step within
  // [0, opt.steps], a valid generator state, moments that fit the model.
  void restore(const TrainingState& s);

 private:
  Model& model_;
  const Task& task_;
  TrainOptions opt_;
  std::vector<Var> params_;
  Adam adam_;
  Generator data_;
  int64_t step_ = 0, target_tokens_ = 0;
  std::vector<real> recent_;
  std::chrono::steady_clock::time_point start_;
};

// The end of every training step once its loss is computed, whatever the model (Trainer::step,
// and train_tagger in models/self_attention_model.h): zero the gradients, backward, check the loss
// (heed::Error naming the parameter furthest out), clip the gradient norm to opt.clip (0: no
// clipping, the norm still measured), Adam at scheduled_lr(opt, t), check the updated values.
// `module` owns params and names them in the errors. Returns the norm before clipping.
real update_step(const Module& module, Adam& adam, const std::vector<Var>& params, const Var& loss,
                 const TrainOptions& opt, int64_t t);

// Trains in place. `on_step` (optional) sees every step. Throws heed::Error before the first
// step when a step would not fit (check_step_memory), and at the first non-finite loss,
// gradient or updated parameter, naming the step and the parameter.
TrainResult train(Model& model, const Task& task, const TrainOptions& opt,
                  const std::function<void(const Progress&)>& on_step = {});

}  // namespace heed
