// Model: what every sequence-to-sequence model of heed offers, whatever is inside it. Three
// implementations, each with its own part of the config and its own decoder state:
//   Seq2Seq             models/seq2seq.h        recurrent encoder and decoder, with or without
//                                               attention (plain, additive, general, dot, scaled,
//                                               cosine, location)
//   TransformerSeq2Seq  models/transformer.h    encoder and decoder stacks of attention
//   DecoderModel        models/decoder_model.h  a decoder-only stack: a language model of the
//                                               target alone, no source
// Training (models/train.h), greedy decoding, beam search (models/beam.h), the attention film
// (models/analysis/watch.h) and the heed program hold a model as a Model and never ask which it is.
// make_model builds the one a ModelConfig names, as a checkpoint's metadata does.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/config.h"
#include "models/tasks/tasks.h"
#include "nn/hooks.h"
#include "nn/module.h"
#include "tensor/random.h"

namespace heed {

// One decoder step's output.
struct StepOutput {
  Var out;      // what the output layer reads (B, .): s_t, [s_t; c_t], h~_t or the transformer's output
  Var weights;  // attention weights over the source (B, S); empty for plain
};

struct Decoded {
  std::vector<std::vector<int64_t>> tokens;  // (B, steps) chosen ids
  std::vector<std::vector<std::vector<real>>> attention;  // (B, steps, S); empty for plain
  std::vector<std::vector<real>> token_log_prob;  // (B, steps) log-probability of each choice
  std::vector<real> log_prob;  // (B) their sum over all steps
};

// Every attention matrix of one teacher-forced pass, each layer's (B, h, ., .): what heed predict
// --layer/--head and the films draw. A model fills the parts it has.
struct AttentionMaps {
  std::vector<Tensor> encoder;  // (B, h, S, S) per encoder layer
  std::vector<Tensor> self;     // (B, h, T, T) per decoder layer
  std::vector<Tensor> cross;    // (B, h, T, S) per decoder layer
};

// What a model's decoder carries from one step to the next: DecoderState for the recurrent
// models, TransformerState for the transformer. Code that decodes any model holds it through
// this base and only ever hands it back to the model that made it.
struct StepState {
  virtual ~StepState() = default;
  // A state of rows.size() rows, row i a copy of this state's row rows[i] (a row may repeat):
  // grows one source's state into a beam and makes each child follow its parent.
  virtual std::unique_ptr<StepState> select_rows(const std::vector<int64_t>& rows) const = 0;
};

class Model : public Module {
 public:
  // Checks the config (heed::Error naming the field) and keeps it.
  explicit Model(const ModelConfig& config);

  const ModelConfig& config() const { return config_; }

  // Logits of every target step, teacher forced: (B, T, V).
  virtual Var forward(const Batch& batch) const = 0;
  // forward() through the model's named hook points (nn/hooks.h; the names and shapes are in
  // docs/hooks.md): hooks caches or replaces activations by name. With nothing replaced, the
  // same logits, bit for bit, as forward().
  virtual Var run_with_hooks(const Batch& batch, Hooks& hooks) const = 0;
  // Mean cross-entropy over the non-PAD target tokens of the batch, teacher forced.
  Var loss(const Batch& batch) const;

  // Decoding step by step: the state after reading the batch's sources, then one target step
  // per call (prev_tokens (B): the tokens of the previous step, BOS first), advancing the state.
  virtual std::unique_ptr<StepState> start_decoding(const Batch& batch) const = 0;
  virtual StepOutput decode_step(const std::vector<int64_t>& prev_tokens, StepState& st) const = 0;
  // The output layer: a step's out (B, .) -> logits (B, V).
  virtual Var logits(const Var& out) const = 0;
  // Greedy decoding for exactly `steps` steps, without gradients: at each step every row takes
  // its most probable token and feeds it to the next.
  Decoded greedy(const Batch& batch, int64_t steps) const;
  // Whether steps give attention weights (StepOutput::weights); false for plain.
  virtual bool has_attention() const = 0;
  // The matrix-product FLOPs (2 m n k each) of one teacher-forced forward pass over `batch` sources
  // of src_len tokens and targets of src_len + 1, with an output layer of `vocab` (heed bench's
  // GFLOP/s); the recurrent models' as reference/pytorch/models.py's matmul_flops_forward counts them.
  virtual real forward_flops(int64_t batch, int64_t src_len, int64_t vocab) const = 0;
  // Every layer's and head's attention weights (batch 1) for a source and the tokens decoded for
  // it (<eos> last if it ended), in one teacher-forced pass with no graph: the decoder reads
  // <bos> y_1 .. y_{T-1}, so self and cross have one row per written token. A model without
  // layers of heads (the recurrent ones) throws heed::Error; a decoder-only model ignores src.
  virtual AttentionMaps attention_maps(const std::vector<int64_t>& src, const std::vector<int64_t>& output) const;

  // Dropout acts while training is on; the models without dropout ignore these. The two-argument
  // form also starts the masks' stream at Generator(seed); the one-argument form switches the
  // mode alone, so the stream carries on where it was (train()'s Trainer turns training on for
  // each step's forward and backward only). The stream's state travels in a training checkpoint
  // ("" when there is no dropout), so a resumed run draws the masks the run that never stopped
  // would have drawn.
  virtual void set_training(bool on, uint64_t seed);
  virtual void set_training(bool on);
  virtual std::string dropout_state() const;
  // heed::Error when the state is missing for a model with dropout, or given for one without.
  virtual void set_dropout_state(const std::string& state);

 protected:
  ModelConfig config_;
};

// The model config.model names, its weights drawn from gen (heed::Error for a bad config).
std::unique_ptr<Model> make_model(const ModelConfig& config, Generator& gen);

}  // namespace heed
