// Seq2Seq: the recurrent encoder-decoder models of docs/models.md, one Model (models/model.h):
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
// The other Models are the Transformer (models/transformer.h) and the decoder-only model
// (models/decoder_model.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/model.h"
#include "nn/attention.h"
#include "nn/embedding.h"
#include "nn/encoder.h"
#include "nn/linear.h"

namespace heed {

// The recurrent decoder's running state between steps.
struct DecoderState : StepState {
  State s;         // the cell's state: s_{t-1} before a step, s_t after
  Var keys;        // prepared keys (B, S, .), once per batch
  Var values;      // encoder states (B, S, D*H)
  Tensor mask;     // (B, S), 1 at real source positions
  Var feed;        // (B, H) h~_{t-1} for input feeding (zeros before the first step); else empty

  std::unique_ptr<StepState> select_rows(const std::vector<int64_t>& rows) const override;
};

class Seq2Seq : public Model {
 public:
  // heed::Error unless config names a recurrent model (make_model builds either kind).
  Seq2Seq(const ModelConfig& config, Generator& gen);

  // Logits of every target step, teacher forced: (B, T, V).
  Var forward(const Batch& batch) const override;
  // Hook points (docs/hooks.md): encoder.hook_states (B, S, D*H), and per target step t:
  // decoder.t.hook_state_pre (B, H) (s_{t-1}), decoder.t.hook_scores and decoder.t.hook_weights
  // (B, S), decoder.t.hook_context (B, D*H), decoder.t.hook_out (what W_out reads); logits.
  // plain has no scores, weights or contexts.
  Var run_with_hooks(const Batch& batch, Hooks& hooks) const override;

  // The pieces, for decoders built step by step (the tutorials), with the recurrent state's
  // fields in view; start_decoding and decode_step are the same for code that holds any Model.
  DecoderState start(const Batch& batch) const;
  // The same, also handing out the encoder's state after each source position (forward
  // direction; see EncoderOutput::steps), to measure the gradient that reaches each.
  DecoderState start(const Batch& batch, std::vector<Var>* encoder_steps) const;
  StepOutput step(const std::vector<int64_t>& prev_tokens, DecoderState& st) const;  // advances st

  std::unique_ptr<StepState> start_decoding(const Batch& batch) const override;
  StepOutput decode_step(const std::vector<int64_t>& prev_tokens, StepState& st) const override;
  Var logits(const Var& out) const override { return out_.forward(out); }
  // The score function, for showing one step's scores (nullptr for plain).
  const Score* attention_score() const { return score_.get(); }
  bool has_attention() const override { return score_ != nullptr; }
  real forward_flops(int64_t batch, int64_t src_len, int64_t vocab) const override;

 private:
  // step() through the hook points prefix + hook_state_pre ... (see run_with_hooks).
  StepOutput step_hooked(const std::vector<int64_t>& prev_tokens, DecoderState& st, Hooks& hooks,
                         const std::string& prefix) const;

  ModelKind kind_;  // config_.model, resolved once
  Embedding src_embed_, tgt_embed_;
  RecurrentEncoder encoder_;
  Linear out_;
  std::unique_ptr<Linear> bridge_;   // bidirectional only: h0 = tanh(bridge [h_fwd; h_bwd])
  std::unique_ptr<Cell> decoder_;
  std::unique_ptr<Score> score_;     // empty for plain
  std::unique_ptr<Linear> combine_;  // Luong's W_c (no bias)
};

}  // namespace heed
