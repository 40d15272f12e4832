#include "models/seq2seq.h"

#include <cmath>
#include <cstdio>

#include "autograd/functions.h"
#include "io/parse.h"
#include "models/vocab.h"
#include "nn/loss.h"

namespace heed {

namespace {

int64_t parse_int(const std::map<std::string, std::string>& meta, const std::string& key) {
  auto it = meta.find(key);
  if (it == meta.end()) throw Error("model config: checkpoint metadata has no '" + key + "'");
  return parse_int64(it->second, "model config: '" + key + "'");
}

}  // namespace

ModelKind model_kind(const std::string& name) {
  static const std::pair<const char*, ModelKind> kNames[] = {
      {"plain", ModelKind::kPlain},   {"additive", ModelKind::kAdditive}, {"general", ModelKind::kGeneral},
      {"dot", ModelKind::kDot},       {"scaled", ModelKind::kScaled},     {"cosine", ModelKind::kCosine},
      {"location", ModelKind::kLocation}, {"transformer", ModelKind::kTransformer}};
  for (const auto& [n, k] : kNames)
    if (name == n) return k;
  throw Error("model config: unknown model '" + name +
              "' (choose plain, additive, general, dot, scaled, cosine, location or transformer)");
}

bool is_luong(ModelKind k) {
  return k == ModelKind::kGeneral || k == ModelKind::kDot || k == ModelKind::kScaled || k == ModelKind::kCosine ||
         k == ModelKind::kLocation;
}

void ModelConfig::validate() const {
  const ModelKind k = kind();
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
  if (k == ModelKind::kTransformer) {
    check("layers", layers, 1, 64);
    check("heads", heads, 1, 4096);
    check("ff", ff, 1, 65536);
    if (embed % heads != 0)
      throw Error("model config: heads " + std::to_string(heads) + " must divide embed " + std::to_string(embed));
    if (positions != "sinusoidal" && positions != "learned")
      throw Error("model config: unknown positions '" + positions + "' (choose sinusoidal or learned)");
    if (!(dropout >= 0 && dropout < 1))
      throw Error("model config: dropout is " + std::to_string(dropout) + ", must be in [0, 1)");
  }
  if (bidirectional && (k == ModelKind::kDot || k == ModelKind::kScaled || k == ModelKind::kCosine))
    throw Error("model config: " + model + " attention compares s_t (" + std::to_string(hidden) +
                ") with bidirectional states (" + std::to_string(2 * hidden) +
                "): sizes differ; use general or additive");
  if (input_feeding && !is_luong(k))
    throw Error("model config: input feeding is for Luong's models (general, dot, scaled, cosine, location), not " +
                model + (k == ModelKind::kAdditive ? ", whose cell already reads the context" : ""));
  // Each size alone may be fine while their products are not; refuse before allocating.
  if (int64_t n = parameter_count(); n > kMaxParameters)
    throw Error("model config: " + std::to_string(n) + " parameters (embed " + std::to_string(embed) + ", hidden " +
                std::to_string(hidden) + ", vocabularies " + std::to_string(src_vocab) + " and " +
                std::to_string(tgt_vocab) + ") exceed the limit of " + std::to_string(kMaxParameters) +
                "; choose smaller sizes");
}

int64_t ModelConfig::parameter_count() const {
  // Each factor is bounded by validate()'s ranges, so no product overflows int64.
  const ModelKind k = kind();
  if (k == ModelKind::kTransformer) {
    const int64_t D = embed, F = ff;
    const int64_t attn = 3 * D * D + 3 * D + D * D + D, ffn = D * F + F + F * D + D, norm = 2 * D;
    int64_t n = (src_vocab + tgt_vocab) * D + D * tgt_vocab + tgt_vocab;  // embeddings, out
    if (positions == "learned") n += (2 * max_src_len + 1) * D;          // src_pos, tgt_pos
    n += layers * (attn + ffn + 2 * norm) + norm;                        // encoder and its final norm
    n += layers * (2 * attn + ffn + 3 * norm) + norm;                    // decoder and its final norm
    return n;
  }
  const int64_t g = cell == "lstm" ? 4 : cell == "gru" ? 3 : 1;  // gates
  const int64_t H = hidden, E = embed, D = bidirectional ? 2 * hidden : hidden;
  auto cell_params = [&](int64_t in) { return g * H * (in + H + 2); };  // weight_ih, weight_hh, two biases
  int64_t n = (src_vocab + tgt_vocab) * E;                              // embeddings
  n += (bidirectional ? 2 : 1) * cell_params(E);                        // encoder
  if (bidirectional) n += D * H + H;                                    // bridge
  n += cell_params(E + (k == ModelKind::kAdditive ? D : 0) + (input_feeding ? H : 0));  // decoder
  if (k == ModelKind::kAdditive) n += D * H + H * H + H;                // W1, W2, v
  if (k == ModelKind::kGeneral) n += D * H;                             // W
  if (k == ModelKind::kCosine) n += 1;                                  // beta
  if (k == ModelKind::kLocation) n += H * max_src_len;                  // W_a
  if (is_luong(k)) n += (D + H) * H;                                    // combine
  const int64_t out_in = k == ModelKind::kAdditive ? H + D : H;
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
  if (model == "transformer") {  // only then, so the recurrent models' checkpoints keep their bytes
    char p[32];
    std::snprintf(p, sizeof p, "%.17g", dropout);
    meta.insert({{"layers", std::to_string(layers)},
                 {"heads", std::to_string(heads)},
                 {"ff", std::to_string(ff)},
                 {"norm_first", norm_first ? "1" : "0"},
                 {"positions", positions},
                 {"dropout", p}});
  }
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
  if (c.kind() == ModelKind::kTransformer) {
    c.layers = parse_int(meta, "layers");
    c.heads = parse_int(meta, "heads");
    c.ff = parse_int(meta, "ff");
    c.norm_first = parse_int(meta, "norm_first") != 0;
    c.positions = get("positions");
    std::string d = get("dropout");
    try {
      size_t used = 0;
      c.dropout = std::stod(d, &used);
      if (used != d.size()) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      throw Error("model config: 'dropout' is '" + d + "', not a number");
    }
  }
  c.validate();
  return c;
}

static const ModelConfig& validated(const ModelConfig& c) {
  c.validate();
  return c;
}

namespace {

// What W_out reads: s_t, [s_t; c_t] (additive) or h~_t; the transformer's output (D = embed).
int64_t out_features(const ModelConfig& c) {
  if (c.kind() == ModelKind::kTransformer) return c.embed;
  return c.kind() == ModelKind::kAdditive ? c.hidden + (c.bidirectional ? 2 : 1) * c.hidden : c.hidden;
}

}  // namespace

Seq2Seq::Seq2Seq(const ModelConfig& config, Generator& gen)
    : config_(validated(config)),
      kind_(config_.kind()),
      src_embed_(config.src_vocab, config.embed, gen, Vocab::kPad),
      tgt_embed_(config.tgt_vocab, config.embed, gen, Vocab::kPad),
      encoder_(kind_ == ModelKind::kTransformer
                   ? nullptr
                   : std::make_unique<RecurrentEncoder>(config.cell, config.embed, config.hidden,
                                                        config.bidirectional, gen)),
      out_(out_features(config), config.tgt_vocab, true, gen) {
  register_module("src_embed", src_embed_);
  register_module("tgt_embed", tgt_embed_);
  if (kind_ == ModelKind::kTransformer) {
    TransformerSizes s{config.embed, config.layers,      config.heads,       config.ff,
                       config.norm_first, config.positions == "learned", config.max_src_len, config.dropout};
    transformer_ = std::make_unique<TransformerCore>(s, gen);
    // N(0, 1/D) instead of N(0, 1): see models/transformer.h.
    for (Embedding* e : {&src_embed_, &tgt_embed_})
      for (real& w : e->weight.value().values()) w /= std::sqrt(static_cast<real>(config.embed));
    if (transformer_->src_pos) {
      register_module("src_pos", *transformer_->src_pos);
      register_module("tgt_pos", *transformer_->tgt_pos);
    }
    register_module("encoder", transformer_->encoder);
    register_module("decoder", transformer_->decoder);
    register_module("out", out_);
    return;
  }
  const int64_t H = config.hidden, D = encoder_->output_size();
  register_module("encoder", *encoder_);
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

DecoderState Seq2Seq::start(const Batch& batch) const { return start(batch, nullptr); }

void Seq2Seq::set_training(bool on, uint64_t seed) {
  if (transformer_) transformer_->set_training(on, seed);
}

void Seq2Seq::set_training(bool on) {
  if (transformer_) transformer_->set_training(on);
}

std::string Seq2Seq::dropout_state() const {
  return transformer_ && config_.dropout > 0 ? transformer_->dropout_generator().state() : "";
}

void Seq2Seq::set_dropout_state(const std::string& state) {
  const bool has_dropout = transformer_ && config_.dropout > 0;  // as dropout_state()
  if (state.empty() != !has_dropout)
    throw Error("seq2seq: a dropout stream state is " + std::string(state.empty() ? "missing" : "given") +
                " for a model " + (has_dropout ? "with" : "without") + " dropout");
  if (has_dropout) transformer_->dropout_generator() = Generator::from_state(state);
}

DecoderState Seq2Seq::start(const Batch& batch, std::vector<Var>* encoder_steps) const {
  if (transformer_) {
    if (encoder_steps) throw Error("seq2seq: the transformer has no encoder steps to hand out");
    DecoderState st;
    transformer_->start(src_embed_, batch, st);
    return st;
  }
  const int64_t B = batch.batch, S = batch.src_len;
  Var x = reshape(src_embed_.forward(batch.src), {B, S, config_.embed});  // (B, S, E)
  EncoderOutput enc = encoder_->forward(x, batch.lengths);
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
  if (transformer_) return transformer_->step(tgt_embed_, prev_tokens, st);
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

Var Seq2Seq::forward(const Batch& batch) const {
  if (transformer_)  // every target position at once, teacher forced: no loop over time
    return out_.forward(transformer_->decode(tgt_embed_, batch, transformer_->encode(src_embed_, batch)));
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
  if (has_attention()) d.attention.assign(B, {});
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
      if (has_attention()) {
        const real* w = o.weights.value().data() + b * S;
        d.attention[b].emplace_back(w, w + S);
      }
    }
  }
  return d;
}

}  // namespace heed
