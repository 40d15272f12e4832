#include "models/seq2seq.h"

#include "autograd/functions.h"
#include "models/tasks/vocab.h"

namespace heed {

namespace {

// config itself; heed::Error for the transformer's and the decoder-only model's, each its own Model.
const ModelConfig& recurrent_only(const ModelConfig& c) {
  if (c.is_transformer())
    throw Error("seq2seq: the transformer is TransformerSeq2Seq (models/transformer.h); make_model builds either");
  if (c.is_decoder())
    throw Error("seq2seq: the decoder-only model is DecoderModel (models/decoder_model.h); make_model builds either");
  return c;
}

// What W_out reads: s_t, [s_t; c_t] (additive) or h~_t.
int64_t out_features(const ModelConfig& c) {
  return c.kind() == ModelKind::kAdditive ? c.hidden + (c.bidirectional ? 2 : 1) * c.hidden : c.hidden;
}

}  // namespace

Seq2Seq::Seq2Seq(const ModelConfig& config, Generator& gen)
    : Model(recurrent_only(config)),
      kind_(config_.kind()),
      src_embed_(config.src_vocab, config.embed, gen, Vocab::kPad),
      tgt_embed_(config.tgt_vocab, config.embed, gen, Vocab::kPad),
      encoder_(config.cell, config.embed, config.hidden, config.bidirectional, gen),
      out_(out_features(config), config.tgt_vocab, true, gen) {
  register_module("src_embed", src_embed_);
  register_module("tgt_embed", tgt_embed_);
  const int64_t H = config.hidden, D = encoder_.output_size();
  register_module("encoder", encoder_);
  if (config.bidirectional) {
    bridge_ = std::make_unique<Linear>(D, H, true, gen);
    register_module("bridge", *bridge_);
  }
  int64_t cell_input = config.embed + (kind_ == ModelKind::kAdditive ? D : 0) + (config.input_feeding ? H : 0);
  decoder_ = make_cell(config.cell, cell_input, H, gen);
  register_module("decoder", *decoder_);
  if (kind_ != ModelKind::kPlain) {
    score_ = make_score(config.model, H, D, H, config.max_src_len, gen);
    register_module("attention", *score_);
  }
  if (is_luong(kind_)) {
    combine_ = std::make_unique<Linear>(D + H, H, false, gen);
    register_module("combine", *combine_);
  }
  register_module("out", out_);
}

std::unique_ptr<StepState> DecoderState::select_rows(const std::vector<int64_t>& rows) const {
  auto pick = [&](const Var& v) { return v.defined() ? index_select(v, rows) : Var(); };
  auto out = std::make_unique<DecoderState>();
  out->s.h = pick(s.h);                   // (K, H)
  out->s.c = pick(s.c);                   // (K, H), LSTM only
  out->keys = pick(keys);                 // (K, S, .)
  out->values = pick(values);             // (K, S, D*H)
  out->mask = index_select(mask, rows);   // (K, S)
  out->feed = pick(feed);                 // (K, H), input feeding only
  return out;
}

DecoderState Seq2Seq::start(const Batch& batch) const { return start(batch, nullptr); }

std::unique_ptr<StepState> Seq2Seq::start_decoding(const Batch& batch) const {
  return std::make_unique<DecoderState>(start(batch));
}

StepOutput Seq2Seq::decode_step(const std::vector<int64_t>& prev_tokens, StepState& st) const {
  auto* own = dynamic_cast<DecoderState*>(&st);
  if (!own) throw Error("seq2seq: decode_step was given another model's decoder state");
  return step(prev_tokens, *own);
}

DecoderState Seq2Seq::start(const Batch& batch, std::vector<Var>* encoder_steps) const {
  const int64_t B = batch.batch, S = batch.src_len;
  Var x = reshape(src_embed_.forward(batch.src), {B, S, config_.embed});  // (B, S, E)
  EncoderOutput enc = encoder_.forward(x, batch.lengths);
  if (encoder_steps) *encoder_steps = enc.steps;
  DecoderState st;
  st.mask = length_mask(batch.lengths, S, "seq2seq");
  st.values = enc.states;
  if (bridge_) {
    st.s.h = tanh(bridge_->forward(enc.last.h));  // (B, H) from both directions
    if (config_.cell == "lstm") st.s.c = Var(Tensor::zeros({B, config_.hidden}));
  } else {
    st.s = enc.last;
  }
  if (score_) st.keys = score_->prepare(enc.states);
  if (config_.input_feeding) st.feed = Var(Tensor::zeros({B, config_.hidden}));  // no h~_0: zeros
  return st;
}

StepOutput Seq2Seq::step(const std::vector<int64_t>& prev_tokens, DecoderState& st) const {
  Var y = tgt_embed_.forward(prev_tokens);  // (B, E)
  StepOutput o;
  if (kind_ == ModelKind::kPlain) {
    st.s = decoder_->step(y, st.s);
    o.out = st.s.h;
  } else if (kind_ == ModelKind::kAdditive) {
    Attention a = attend(score_->score(st.s.h, st.keys), st.values, st.mask);  // with s_{t-1}
    st.s = decoder_->step(concat({y, a.context}, 1), st.s);
    o.out = concat({st.s.h, a.context}, 1);
    o.weights = a.weights;
  } else {
    st.s = decoder_->step(config_.input_feeding ? concat({y, st.feed}, 1) : y, st.s);
    Attention a = attend(score_->score(st.s.h, st.keys), st.values, st.mask);  // with s_t
    o.out = tanh(combine_->forward(concat({a.context, st.s.h}, 1)));            // h~_t
    o.weights = a.weights;
    if (config_.input_feeding) st.feed = o.out;  // the next step's cell reads h~_t
  }
  return o;
}

// Encoder (both directions when bidirectional), decoder cell, then each kind's attention and output.
real Seq2Seq::forward_flops(int64_t batch, int64_t src_len, int64_t vocab) const {
  const ModelConfig& c = config_;
  const ModelKind k = kind_;
  const real B = static_cast<real>(batch), S = static_cast<real>(src_len), V = static_cast<real>(vocab);
  const real G = c.cell == "lstm" ? 4 : c.cell == "rnn" ? 1 : 3;
  const real E = c.embed, H = c.hidden, T = S + 1, D = (c.bidirectional ? 2 : 1) * H;
  real f = 2 * B * S * E * G * H * (D / H) + 2 * B * S * H * G * H * (D / H);  // encoder
  real din = k == ModelKind::kAdditive ? E + D : E;
  f += 2 * B * T * din * G * H + 2 * B * T * H * G * H;  // decoder cell
  if (k == ModelKind::kPlain) return f + 2 * B * T * H * V;
  if (k == ModelKind::kAdditive)  // W1 keys, W2 query, v, context, out
    return f + 2 * B * S * D * H + 2 * B * T * H * H + 2 * B * T * S * H + 2 * B * T * S * D + 2 * B * T * (H + D) * V;
  if (k == ModelKind::kGeneral) f += 2 * B * S * D * H;
  f += k == ModelKind::kLocation ? 2 * B * T * H * c.max_src_len : 2 * B * T * S * H;  // scores
  return f + 2 * B * T * S * D + 2 * B * T * (D + H) * H + 2 * B * T * H * V;  // context, W_c, out
}

// step() through the hook points (see run_with_hooks in the header). step() above is the plain
// version the chapters quote; with nothing replaced the two compute the same bits
// (tests/models/ch14_hooks_test.cpp).
StepOutput Seq2Seq::step_hooked(const std::vector<int64_t>& prev_tokens, DecoderState& st, Hooks& hooks,
                                const std::string& prefix) const {
  auto at = [&](const char* name, const Var& x) { return hooks.at(prefix + name, x); };
  st.s.h = at("hook_state_pre", st.s.h);  // s_{t-1}, (B, H)
  auto attend_here = [&](const Var& query) {
    Attention a = attend(at("hook_scores", score_->score(query, st.keys)), st.values, st.mask);
    a.weights = at("hook_weights", a.weights);
    // Replaced weights mix the values again: context = sum_j w_j v_j.
    if (hooks.replaces(prefix + "hook_weights")) a.context = weighted_sum(a.weights, st.values);
    a.context = at("hook_context", a.context);
    return a;
  };
  Var y = tgt_embed_.forward(prev_tokens);  // (B, E)
  StepOutput o;
  if (kind_ == ModelKind::kPlain) {
    st.s = decoder_->step(y, st.s);
    o.out = st.s.h;
  } else if (kind_ == ModelKind::kAdditive) {
    Attention a = attend_here(st.s.h);  // with s_{t-1}
    st.s = decoder_->step(concat({y, a.context}, 1), st.s);
    o.out = concat({st.s.h, a.context}, 1);
    o.weights = a.weights;
  } else {
    st.s = decoder_->step(config_.input_feeding ? concat({y, st.feed}, 1) : y, st.s);
    Attention a = attend_here(st.s.h);  // with s_t
    o.out = tanh(combine_->forward(concat({a.context, st.s.h}, 1)));
    o.weights = a.weights;
  }
  o.out = at("hook_out", o.out);
  if (config_.input_feeding && is_luong(kind_)) st.feed = o.out;  // the next step's cell reads h~_t
  return o;
}

Var Seq2Seq::run_with_hooks(const Batch& batch, Hooks& hooks) const {
  const int64_t B = batch.batch, T = batch.tgt_len;
  DecoderState st = start(batch);
  st.values = hooks.at("encoder.hook_states", st.values);  // (B, S, D*H)
  if (score_ && hooks.replaces("encoder.hook_states")) st.keys = score_->prepare(st.values);  // and its keys
  std::vector<Var> outs;
  std::vector<int64_t> prev(B);
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t b = 0; b < B; ++b) prev[b] = batch.tgt_in[b * T + t];
    outs.push_back(step_hooked(prev, st, hooks, "decoder." + std::to_string(t) + ".").out);
  }
  return hooks.at("logits", out_.forward(stack(outs, 1)));
}

Var Seq2Seq::forward(const Batch& batch) const {
  const int64_t B = batch.batch, T = batch.tgt_len;
  DecoderState st = start(batch);
  std::vector<Var> outs;
  outs.reserve(T);
  std::vector<int64_t> prev(B);
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t b = 0; b < B; ++b) prev[b] = batch.tgt_in[b * T + t];
    outs.push_back(step(prev, st).out);
  }
  return out_.forward(stack(outs, 1));  // (B, T, V): one product for every step
}

}  // namespace heed
