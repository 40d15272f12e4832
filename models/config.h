// ModelConfig: what a checkpoint's metadata says a model is, apart from the model itself.
// The command line fills one, validate() checks it before anything is allocated,
// parameter_count() sizes it without building it, and to_metadata/from_metadata carry it in
// and out of a checkpoint. make_model (models/model.h) builds the model it names.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tensor/real.h"

namespace heed {

// The model kinds. ModelConfig::model keeps the name (for metadata and the command line); a
// model resolves it to a ModelKind once, when it is built, and dispatches on that, not on the
// string.
enum class ModelKind { kPlain, kAdditive, kGeneral, kDot, kScaled, kCosine, kLocation, kTransformer, kDecoder };
// The kind `name` spells; heed::Error listing the names for any other.
ModelKind model_kind(const std::string& name);
// Every kind's name, in ModelKind's order: what --model accepts.
std::vector<std::string> model_names();
// general, dot, scaled, cosine, location: Luong's models (attend with s_t, attentional state h~_t).
bool is_luong(ModelKind kind);

struct ModelConfig {
  std::string model = "additive";  // plain, additive, general, dot, scaled, cosine, location, transformer, decoder
  int64_t src_vocab = 13, tgt_vocab = 13;  // sizes including the three specials
  int64_t embed = 32;  // embedding size; the transformer's width D
  int64_t max_src_len = 64;  // the positions location attention (and learned positions) can address
  // The recurrent models only (Seq2Seq, models/seq2seq.h):
  std::string cell = "gru";  // gru, lstm, rnn
  int64_t hidden = 64;
  bool bidirectional = false;
  bool input_feeding = false;  // Luong models only: the cell reads [emb(y_{t-1}); h~_{t-1}]
  // The transformer (TransformerSeq2Seq, models/transformer.h) and the decoder-only model
  // (DecoderModel, models/decoder_model.h):
  int64_t layers = 2, heads = 4, ff = 128;  // N encoder and N decoder layers (the decoder: N), h heads, FF width
  bool norm_first = false;                  // pre-norm; false: post-norm, as the paper
  std::string positions = "sinusoidal";     // sinusoidal or learned
  real dropout = 0;
  // The decoder-only model only: layers of causal self-attention alone, no feed-forward and no
  // LayerNorm (Elhage et al. 2021); ff and norm_first then do not apply.
  bool attention_only = false;
  // The output layer's weight is the target embedding's table (Vaswani et al. section 3.4): one
  // (tgt_vocab, D) matrix instead of two. The output keeps its own bias. The transformer's and
  // the decoder-only model's (whose one embedding is its target's, tied as GPT-2 ties it).
  bool share_embeddings = false;

  ModelKind kind() const { return model_kind(model); }  // heed::Error for an unknown name
  bool is_transformer() const { return kind() == ModelKind::kTransformer; }
  bool is_decoder() const { return kind() == ModelKind::kDecoder; }
  // Whether layers, heads, ff, norm_first, positions and dropout describe the model: the
  // transformer's and the decoder-only model's.
  bool has_layers() const { return is_transformer() || is_decoder(); }
  // Throws heed::Error naming the field and value when something is out of range, and when the
  // model would have more than kMaxParameters parameters.
  void validate() const;
  // Exactly make_model(*this, gen)->num_parameters(), computed without building the model.
  // REQUIRES: each size is within validate()'s range.
  int64_t parameter_count() const;
  // 2^26 parameters are 512 MiB as doubles; training holds four such buffers (values,
  // gradients, Adam's two moments), 2 GiB. Larger models are refused before any allocation.
  static constexpr int64_t kMaxParameters = int64_t(1) << 26;
  // The longest source the model can read: max_src_len where a table has a row per source
  // position (location attention's W_a, the transformer's learned positions); no limit
  // (INT64_MAX) for the others, which read a source of any length.
  int64_t source_limit() const;
  // What holds that row per source position, for a refusal: "location attention", "transformer
  // with learned positions".
  std::string position_table() const;
  // Whether it has attention weights to draw (over the source, or a decoder-only model's over
  // its own sequence): every model but plain.
  bool has_attention() const { return kind() != ModelKind::kPlain; }
  // Its shape in the words of heed train's first line: "gru cell, bidirectional", "2+2 layers,
  // 4 heads, d 32, ff 128, post-norm, sinusoidal positions".
  std::string shape() const;
  // The model in words, for titles and captions: "additive attention (gru, bidirectional
  // encoder)", "transformer (D 32, 2+2 layers, 4 heads)".
  std::string describe() const;
  // What a decoding step's attention weights (StepOutput::weights) are, for a film's title:
  // "attention" (the recurrent models'), "cross-attention (layer 1, the last: mean of 4 heads)".
  std::string step_weights_name() const;
  // The sizes heed bench prints: "E 32 H 64" (embedding, hidden), "D 64 layers 2 heads 4".
  std::string sizes() const;
  // The checkpoint's metadata keys. A recurrent model's file has no transformer keys and a
  // transformer's has its own, so that each kind of file keeps its bytes.
  std::map<std::string, std::string> to_metadata() const;
  static ModelConfig from_metadata(const std::map<std::string, std::string>& meta);
};

}  // namespace heed
