#include "models/seq2seq.h"

#include <cmath>

#include "autograd/functions.h"
#include "models/vocab.h"
#include "nn/loss.h"

namespace heed {

namespace {

bool is_luong(const std::string& m) {
  return m == "general" || m == "dot" || m == "scaled" || m == "cosine" || m == "location";
}

int64_t parse_int(const std::map<std::string, std::string>& meta, const std::string& key) {
  auto it = meta.find(key);
  if (it == meta.end()) throw Error("model config: checkpoint metadata has no '" + key + "'");
  try {
    size_t used = 0;
    long long v = std::stoll(it->second, &used);
    if (used != it->second.size()) throw std::invalid_argument("trailing");
    return v;
  } catch (const std::exception&) {
    throw Error("model config: '" + key + "' is '" + it->second + "', not an integer");
  }
}

}  // namespace

void ModelConfig::validate() const {
  if (model != "plain" && model != "additive" && !is_luong(model))
    throw Error("model config: unknown model '" + model +
                "' (choose plain, additive, general, dot, scaled, cosine or location)");
  if (cell != "gru" && cell != "lstm" && cell != "rnn")
    throw Error("model config: unknown cell '" + cell + "' (choose gru, lstm or rnn)");
  auto check = [](const char* name, int64_t v, int64_t lo, int64_t hi) {
    if (v < lo || v > hi)
      throw Error(std::string("model config: ") + name + " is " + std::to_string(v) + ", must be in [" +
                  std::to_string(lo) + ", " + std::to_string(hi) + "]");
  };
  check("src_vocab", src_vocab, 4, 1000000);
  check("tgt_vocab", tgt_vocab, 4, 1000000);
  check("embed", embed, 1, 4096);
  check("hidden", hidden, 1, 4096);
  check("max_src_len", max_src_len, 1, 100000);
  if (bidirectional && (model == "dot" || model == "scaled" || model == "cosine"))
    throw Error("model config: " + model + " attention compares s_t (" + std::to_string(hidden) +
                ") with bidirectional states (" + std::to_string(2 * hidden) +
                "): sizes differ; use general or additive");
  if (input_feeding && !is_luong(model))
    throw Error("model config: input feeding is for Luong's models (general, dot, scaled, cosine, location), not " +
                model + (model == "additive" ? ", whose cell already reads the context" : ""));
  // Each size alone may be fine while their products are not; refuse before allocating.
  if (int64_t n = parameter_count(); n > kMaxParameters)
    throw Error("model config: " + std::to_string(n) + " parameters (embed " + std::to_string(embed) + ", hidden " +
                std::to_string(hidden) + ", vocabularies " + std::to_string(src_vocab) + " and " +
                std::to_string(tgt_vocab) + ") exceed the limit of " + std::to_string(kMaxParameters) +
                "; choose smaller sizes");
}

int64_t ModelConfig::parameter_count() const {
  // Each factor is bounded by validate()'s ranges, so no product overflows int64.
  const int64_t g = cell == "lstm" ? 4 : cell == "gru" ? 3 : 1;  // gates
  const int64_t H = hidden, E = embed, D = bidirectional ? 2 * hidden : hidden;
  auto cell_params = [&](int64_t in) { return g * H * (in + H + 2); };  // weight_ih, weight_hh, two biases
  int64_t n = (src_vocab + tgt_vocab) * E;                              // embeddings
  n += (bidirectional ? 2 : 1) * cell_params(E);                        // encoder
  if (bidirectional) n += D * H + H;                                    // bridge
  n += cell_params(E + (model == "additive" ? D : 0) + (input_feeding ? H : 0));  // decoder
  if (model == "additive") n += D * H + H * H + H;                      // W1, W2, v
  if (model == "general") n += D * H;                                   // W
  if (model == "cosine") n += 1;                                        // beta
  if (model == "location") n += H * max_src_len;                        // W_a
  if (is_luong(model)) n += (D + H) * H;                                // combine
  const int64_t out_in = model == "additive" ? H + D : H;
  n += out_in * tgt_vocab + tgt_vocab;                                  // out
  return n;
}

std::map<std::string, std::string> ModelConfig::to_metadata() const {
  std::map<std::string, std::string> meta = {{"model", model},
                                              {"cell", cell},
                                              {"src_vocab", std::to_string(src_vocab)},
                                              {"tgt_vocab", std::to_string(tgt_vocab)},
                                              {"embed", std::to_string(embed)},
                                              {"hidden", std::to_string(hidden)},
                                              {"bidirectional", bidirectional ? "1" : "0"},
                                              {"max_src_len", std::to_string(max_src_len)}};
  // input_feeding is written only when on, so that checkpoints without it keep their bytes.
  if (input_feeding) meta["input_feeding"] = "1";
  return meta;
}

ModelConfig ModelConfig::from_metadata(const std::map<std::string, std::string>& meta) {
  ModelConfig c;
  auto get = [&](const std::string& key) {
    auto it = meta.find(key);
    if (it == meta.end()) throw Error("model config: checkpoint metadata has no '" + key + "'");
    return it->second;
  };
  c.model = get("model");
  c.cell = get("cell");
  c.src_vocab = parse_int(meta, "src_vocab");
  c.tgt_vocab = parse_int(meta, "tgt_vocab");
  c.embed = parse_int(meta, "embed");
  c.hidden = parse_int(meta, "hidden");
  c.bidirectional = parse_int(meta, "bidirectional") != 0;
  c.max_src_len = parse_int(meta, "max_src_len");
  c.input_feeding = meta.count("input_feeding") && parse_int(meta, "input_feeding") != 0;
  c.validate();
  return c;
}

static const ModelConfig& validated(const ModelConfig& c) {
  c.validate();
  return c;
}

Seq2Seq::Seq2Seq(const ModelConfig& config, Generator& gen)
    : config_(validated(config)),
      src_embed_(config.src_vocab, config.embed, gen, Vocab::kPad),
      tgt_embed_(config.tgt_vocab, config.embed, gen, Vocab::kPad),
      encoder_(config.cell, config.embed, config.hidden, config.bidirectional, gen),
      out_(config.model == "additive" ? config.hidden + encoder_.output_size() : config.hidden, config.tgt_vocab,
           true, gen) {
  const int64_t H = config.hidden, D = encoder_.output_size();
  register_module("src_embed", src_embed_);
  register_module("tgt_embed", tgt_embed_);
  register_module("encoder", encoder_);
  if (config.bidirectional) {
    bridge_ = std::make_unique<Linear>(D, H, true, gen);
    register_module("bridge", *bridge_);
  }
  int64_t cell_input = config.embed + (config.model == "additive" ? D : 0) + (config.input_feeding ? H : 0);
  decoder_ = make_cell(config.cell, cell_input, H, gen);
  register_module("decoder", *decoder_);
  if (config.model != "plain") {
    score_ = make_score(config.model, H, D, H, config.max_src_len, gen);
    register_module("attention", *score_);
  }
  if (is_luong(config.model)) {
    combine_ = std::make_unique<Linear>(D + H, H, false, gen);
    register_module("combine", *combine_);
  }
  register_module("out", out_);
}

DecoderState Seq2Seq::start(const Batch& batch) const { return start(batch, nullptr); }

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
  if (config_.model == "plain") {
    st.s = decoder_->step(y, st.s);
    o.out = st.s.h;
  } else if (config_.model == "additive") {
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

Var Seq2Seq::loss(const Batch& batch) const {
  Var logits = forward(batch);
  return cross_entropy(reshape(logits, {-1, config_.tgt_vocab}), batch.tgt_out, Vocab::kPad);
}

Decoded Seq2Seq::greedy(const Batch& batch, int64_t steps) const {
  NoGradGuard no_grad;
  const int64_t B = batch.batch;
  DecoderState st = start(batch);
  Decoded d;
  d.tokens.assign(B, {});
  d.log_prob.assign(B, 0);
  d.token_log_prob.assign(B, {});
  if (score_) d.attention.assign(B, {});
  std::vector<int64_t> prev(B, Vocab::kBos);
  for (int64_t t = 0; t < steps; ++t) {
    StepOutput o = step(prev, st);
    Tensor logp = log_softmax(out_.forward(o.out).value(), 1);  // (B, V)
    Tensor best = argmax(logp, 1);
    const int64_t V = logp.shape()[1], S = batch.src_len;
    for (int64_t b = 0; b < B; ++b) {
      prev[b] = static_cast<int64_t>(best[b]);
      d.tokens[b].push_back(prev[b]);
      d.log_prob[b] += logp[b * V + prev[b]];
      d.token_log_prob[b].push_back(logp[b * V + prev[b]]);
      if (score_) {
        const real* w = o.weights.value().data() + b * S;
        d.attention[b].emplace_back(w, w + S);
      }
    }
  }
  return d;
}

}  // namespace heed
