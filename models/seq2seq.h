// Seq2Seq: the encoder-decoder models of docs/models.md behind one interface.
//   plain     the decoder sees only the encoder's last state: the bottleneck
//   additive  Bahdanau: attends with s_{t-1}, feeds the context into the cell,
//             logits = W_out [s_t; c_t] + b
//   general, dot, scaled, cosine, location
//             Luong: attends with s_t, attentional state h~_t = tanh(W_c [c_t; s_t]),
//             logits = W_out h~_t + b; with input_feeding (Luong et al. 2015, section 3.3) the
//             cell also reads the previous step's h~_{t-1} (zeros at the first step)
// All: separate source and target embeddings, a recurrent encoder (gru, lstm or rnn; optionally
// bidirectional, bridged to the decoder by a tanh layer), decoder initial state = the encoder
// state at the last real source position, teacher forcing in training.
//   transformer  no recurrence: models/transformer.h (encoder and decoder stacks of attention)
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/tasks.h"
#include "models/transformer.h"
#include "nn/attention.h"
#include "nn/embedding.h"
#include "nn/encoder.h"
#include "nn/linear.h"

namespace heed {

// The model kinds. ModelConfig::model keeps the name (for metadata and the command line);
// Seq2Seq resolves it to a ModelKind once, when it is built, and its decoder step dispatches on
// that, not on the string.
enum class ModelKind { kPlain, kAdditive, kGeneral, kDot, kScaled, kCosine, kLocation, kTransformer };
// The kind `name` spells; heed::Error listing the names for any other.
ModelKind model_kind(const std::string& name);
// general, dot, scaled, cosine, location: Luong's models (attend with s_t, attentional state h~_t).
bool is_luong(ModelKind kind);

struct ModelConfig {
  std::string model = "additive";  // plain, additive, general, dot, scaled, cosine, location, transformer
  std::string cell = "gru";        // gru, lstm, rnn
  int64_t src_vocab = 13, tgt_vocab = 13;  // sizes including the three specials
  int64_t embed = 32, hidden = 64;
  bool bidirectional = false;
  int64_t max_src_len = 64;  // the positions location attention (and learned positions) can address
  bool input_feeding = false;  // Luong models only: the cell reads [emb(y_{t-1}); h~_{t-1}]
  // transformer only (its width D is `embed`; cell, hidden and bidirectional are unused):
  int64_t layers = 2, heads = 4, ff = 128;  // N encoder and N decoder layers, h heads, FF width
  bool norm_first = false;                  // pre-norm; false: post-norm, as the paper
  std::string positions = "sinusoidal";     // sinusoidal or learned
  real dropout = 0;

  ModelKind kind() const { return model_kind(model); }  // heed::Error for an unknown name
  // Throws heed::Error naming the field and value when something is out of range, and when the
  // model would have more than kMaxParameters parameters.
  void validate() const;
  // Exactly Seq2Seq(*this).num_parameters(), computed without building the model.
  // REQUIRES: each size is within validate()'s range.
  int64_t parameter_count() const;
  // 2^26 parameters are 512 MiB as doubles; training holds four such buffers (values,
  // gradients, Adam's two moments), 2 GiB. Larger models are refused before any allocation.
  static constexpr int64_t kMaxParameters = int64_t(1) << 26;
  std::map<std::string, std::string> to_metadata() const;
  static ModelConfig from_metadata(const std::map<std::string, std::string>& meta);
};

// The decoder's running state between steps.
struct DecoderState {
  State s;         // the cell's state: s_{t-1} before a step, s_t after
  Var keys;        // prepared keys (B, S, .), once per batch
  Var values;      // encoder states (B, S, D*H)
  Tensor mask;     // (B, S), 1 at real source positions
  Var feed;        // (B, H) h~_{t-1} for input feeding (zeros before the first step); else empty
  std::vector<Var> cache;  // transformer: each decoder layer's inputs so far (B, t, D)
  int64_t position = 0;    // transformer: steps taken
};

struct StepOutput {
  Var out;      // what W_out reads: s_t, [s_t; c_t] or h~_t (B, .)
  Var weights;  // attention weights (B, S); empty for plain
};

struct Decoded {
  std::vector<std::vector<int64_t>> tokens;  // (B, steps) chosen ids
  std::vector<std::vector<std::vector<real>>> attention;  // (B, steps, S); empty for plain
  std::vector<std::vector<real>> token_log_prob;  // (B, steps) log-probability of each choice
  std::vector<real> log_prob;  // (B) their sum over all steps
};

class Seq2Seq : public Module {
 public:
  Seq2Seq(const ModelConfig& config, Generator& gen);

  // Mean cross-entropy over the non-PAD target tokens of the batch, teacher forced.
  Var loss(const Batch& batch) const;
  // Logits of every target step, teacher forced: (B, T, V).
  Var forward(const Batch& batch) const;
  // Greedy decoding for exactly `steps` steps, without gradients.
  Decoded greedy(const Batch& batch, int64_t steps) const;

  // The pieces, for decoders built step by step (beam search, the tutorials).
  DecoderState start(const Batch& batch) const;
  // The same, also handing out the encoder's state after each source position (forward
  // direction; see EncoderOutput::steps), to measure the gradient that reaches each.
  DecoderState start(const Batch& batch, std::vector<Var>* encoder_steps) const;
  StepOutput step(const std::vector<int64_t>& prev_tokens, DecoderState& st) const;  // advances st
  Var logits(const Var& out) const { return out_.forward(out); }
  // The score function, for showing one step's scores (nullptr for plain).
  const Score* attention_score() const { return score_.get(); }

  const ModelConfig& config() const { return config_; }
  bool has_attention() const { return score_ || transformer_; }
  // Dropout (transformer only) acts while training is on. The two-argument form also starts
  // the masks' stream at Generator(seed); the one-argument form switches the mode alone, so the
  // stream carries on where it was (train()'s Trainer turns training on for each step's forward
  // and backward only). The stream's state travels in a training checkpoint ("" when there is
  // no dropout), so a resumed run draws the masks the run that never stopped would have drawn.
  void set_training(bool on, uint64_t seed);
  void set_training(bool on);
  std::string dropout_state() const;
  void set_dropout_state(const std::string& state);
  // The transformer's parts; nullptr for the recurrent models.
  const TransformerCore* transformer() const { return transformer_.get(); }
  const Embedding& src_embed() const { return src_embed_; }
  const Embedding& tgt_embed() const { return tgt_embed_; }

 private:
  ModelConfig config_;
  ModelKind kind_;  // config_.model, resolved once
  Embedding src_embed_, tgt_embed_;
  std::unique_ptr<RecurrentEncoder> encoder_;  // recurrent models
  std::unique_ptr<TransformerCore> transformer_;
  std::unique_ptr<Linear> bridge_;   // bidirectional only: h0 = tanh(bridge [h_fwd; h_bwd])
  std::unique_ptr<Cell> decoder_;
  std::unique_ptr<Score> score_;     // empty for plain
  std::unique_ptr<Linear> combine_;  // Luong's W_c (no bias)
  Linear out_;
};

}  // namespace heed
