// ModelConfig: the checks, the parameter count and the checkpoint metadata of models/config.h.
#include "models/config.h"

#include <climits>
#include <cstdio>
#include <stdexcept>

#include "io/parse.h"
#include "tensor/tensor.h"  // heed::Error

namespace heed {

namespace {

int64_t parse_int(const std::map<std::string, std::string>& meta, const std::string& key) {
  auto it = meta.find(key);
  if (it == meta.end()) throw Error("model config: checkpoint metadata has no '" + key + "'");
  return parse_int64(it->second, "model config: '" + key + "'");
}

// Each kind and its name, in ModelKind's order.
const std::pair<const char*, ModelKind> kNames[] = {
    {"plain", ModelKind::kPlain},   {"additive", ModelKind::kAdditive}, {"general", ModelKind::kGeneral},
    {"dot", ModelKind::kDot},       {"scaled", ModelKind::kScaled},     {"cosine", ModelKind::kCosine},
    {"location", ModelKind::kLocation}, {"transformer", ModelKind::kTransformer}, {"decoder", ModelKind::kDecoder}};

}  // namespace

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto& [n, k] : kNames) names.push_back(n);
  return names;
}

ModelKind model_kind(const std::string& name) {
  for (const auto& [n, k] : kNames)
    if (name == n) return k;
  throw Error("model config: unknown model '" + name +
              "' (choose plain, additive, general, dot, scaled, cosine, location, transformer or decoder)");
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
  if (has_layers()) {
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
  if (attention_only && k != ModelKind::kDecoder)
    throw Error("model config: attention_only is for the decoder-only model, not " + model);
  if (share_embeddings && k != ModelKind::kTransformer && k != ModelKind::kDecoder)
    throw Error("model config: shared embeddings are for the transformer and the decoder-only model, not " + model);
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
    if (share_embeddings) n -= D * tgt_vocab;                             // out's weight is tgt_embed's
    if (positions == "learned") n += (2 * max_src_len + 1) * D;          // src_pos, tgt_pos
    n += layers * (attn + ffn + 2 * norm) + norm;                        // encoder and its final norm
    n += layers * (2 * attn + ffn + 3 * norm) + norm;                    // decoder and its final norm
    return n;
  }
  if (k == ModelKind::kDecoder) {  // the table of models/decoder_model.h
    const int64_t D = embed, F = ff, V = tgt_vocab;
    const int64_t attn = 3 * D * D + 3 * D + D * D + D, ffn = D * F + F + F * D + D, norm = 2 * D;
    int64_t n = V * D + D * V + V;                    // embed, out
    if (share_embeddings) n -= D * V;                  // out's weight is embed's
    if (positions == "learned") n += max_src_len * D;  // pos
    n += attention_only ? layers * attn : layers * (attn + ffn + 2 * norm) + norm;  // layers, final norm
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
  if (has_layers()) {  // only then, so the recurrent models' checkpoints keep their bytes
    char p[32];
    std::snprintf(p, sizeof p, "%.17g", dropout);
    meta.insert({{"layers", std::to_string(layers)},
                 {"heads", std::to_string(heads)},
                 {"ff", std::to_string(ff)},
                 {"norm_first", norm_first ? "1" : "0"},
                 {"positions", positions},
                 {"dropout", p}});
  }
  if (is_decoder()) meta["attention_only"] = attention_only ? "1" : "0";
  // input_feeding and share_embeddings are written only when on, so that checkpoints without
  // them keep their bytes.
  if (input_feeding) meta["input_feeding"] = "1";
  if (share_embeddings) meta["share_embeddings"] = "1";
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
  c.share_embeddings = meta.count("share_embeddings") && parse_int(meta, "share_embeddings") != 0;
  if (c.has_layers()) {
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
  if (c.is_decoder()) c.attention_only = parse_int(meta, "attention_only") != 0;
  c.validate();
  return c;
}

int64_t ModelConfig::source_limit() const {
  const bool has_position_table = kind() == ModelKind::kLocation || (has_layers() && positions == "learned");
  return has_position_table ? max_src_len : INT64_MAX;
}

std::string ModelConfig::position_table() const {
  return model + (has_layers() ? " with learned positions" : " attention");
}

std::string ModelConfig::step_weights_name() const {
  if (!is_transformer()) return "attention";
  return "cross-attention (layer " + std::to_string(layers - 1) + ", the last: mean of " + std::to_string(heads) +
         " heads)";
}

std::string ModelConfig::sizes() const {
  if (has_layers())
    return "D " + std::to_string(embed) + " layers " + std::to_string(layers) + " heads " + std::to_string(heads);
  return "E " + std::to_string(embed) + " H " + std::to_string(hidden);
}

std::string ModelConfig::shape() const {
  if (!has_layers())
    return cell + " cell" + (bidirectional ? ", bidirectional" : "") + (input_feeding ? ", input feeding" : "");
  const std::string norm = norm_first ? ", pre-norm" : ", post-norm";
  const std::string rest = ", " + positions + " positions" + (share_embeddings ? ", shared embeddings" : "");
  if (is_decoder())
    return std::to_string(layers) + " layers, " + std::to_string(heads) + " heads, d " + std::to_string(embed) +
           (attention_only ? ", attention only" : ", ff " + std::to_string(ff) + norm) + rest;
  return std::to_string(layers) + "+" + std::to_string(layers) + " layers, " + std::to_string(heads) + " heads, d " +
         std::to_string(embed) + ", ff " + std::to_string(ff) + norm + rest;
}

std::string ModelConfig::describe() const {
  if (is_decoder())
    return "decoder-only (D " + std::to_string(embed) + ", " + std::to_string(layers) + " layers, " +
           std::to_string(heads) + " heads" + (attention_only ? ", attention only" : "") +
           (share_embeddings ? ", shared embeddings" : "") + ")";
  if (is_transformer())
    return "transformer (D " + std::to_string(embed) + ", " + std::to_string(layers) + "+" + std::to_string(layers) +
           " layers, " + std::to_string(heads) + " heads" + (share_embeddings ? ", shared embeddings" : "") + ")";
  return model + (kind() == ModelKind::kPlain ? "" : " attention") + " (" + cell +
         (bidirectional ? ", bidirectional encoder" : "") + (input_feeding ? ", input feeding" : "") + ")";
}

}  // namespace heed
