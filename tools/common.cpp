#include "tools/common.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>

#include "io/parse.h"
#include "io/paths.h"
#include "models/tasks/data.h"
#include "models/tasks/text.h"
#include "nn/checkpoint.h"

namespace heed {

// 2: tensors named as PyTorch's state_dict (encoder.weight_ih_l0, attention.v.weight (1, A)),
// vocabularies in the metadata.
const char* const kFormat = "heed-seq2seq-2";

namespace {

std::string joined(const Vocab& v) {
  std::string out;
  for (const std::string& t : v.tokens()) out += (out.empty() ? "" : " ") + t;
  return out;
}
}

std::map<std::string, std::string> checkpoint_metadata(const ModelConfig& config, const Task& task,
                                                       const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> meta = config.to_metadata();
  meta["format"] = kFormat;
  meta["task"] = task.name();
  meta["min_len"] = std::to_string(task.min_len());
  meta["max_len"] = std::to_string(task.max_len());
  const Task* base = &task;  // a task written as one sequence (reverse-seq) keeps its base task's V
  if (const auto* one = dynamic_cast<const OneSequenceTask*>(&task)) base = &one->base();
  if (const auto* s = dynamic_cast<const SymbolTask*>(base)) meta["vocab"] = std::to_string(s->num_symbols());
  if (const auto* d = dynamic_cast<const DataTask*>(&task)) {  // what reading new text needs
    meta["max_target_len"] = std::to_string(d->max_target_len());
    meta["data.tokenizer"] = kDataTokenizer;
    meta["data.lower"] = d->options().tok.lower ? "1" : "0";
    meta["data.min_count"] = std::to_string(d->options().min_count);
    meta["data.max_len"] = std::to_string(d->options().max_len);
    if (!d->train_path().empty()) {  // where the pairs are, for --resume
      char buf[40];
      meta["data.path"] = d->train_path();
      meta["data.valid"] = d->options().valid_path;
      std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(d->options().valid_fraction));
      meta["data.valid_fraction"] = buf;
      std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(d->fingerprint()));
      meta["data.fingerprint"] = buf;
    }
  }
  if (const auto* t = dynamic_cast<const TextTask*>(&task))
    for (const auto& [k, v] : t->metadata()) meta[k] = v;
  meta["src_tokens"] = joined(task.src_vocab());
  meta["tgt_tokens"] = joined(task.tgt_vocab());
  for (const auto& [k, v] : extra) meta[k] = v;
  return meta;
}

void check_safetensors_signature(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char head[9] = {};
  if (!in.read(reinterpret_cast<char*>(head), 9)) return;  // missing, a folder, too short: the reader says which
  // A safetensors file is an 8-byte little-endian header length followed by a JSON header,
  // which the format requires to begin with '{'.
  if (head[8] == '{') return;
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | head[i];
  throw Error("load " + path + ": not a safetensors file (byte 8 should open its JSON header with '{'; " +
              "as a header length, its first 8 bytes read " + std::to_string(n) +
              "); give a checkpoint written by heed train --save");
}

namespace {

std::string meta_get(const std::string& path, const std::map<std::string, std::string>& meta, const std::string& key) {
  auto it = meta.find(key);
  if (it == meta.end())
    throw Error("load " + path + ": not a heed model checkpoint (its metadata has no '" + key + "')");
  return it->second;
}

// An integer of the metadata in [lo, hi]: the error names the key, not a flag nobody gave.
int64_t meta_integer(const std::string& path, const std::map<std::string, std::string>& meta, const std::string& key,
                     int64_t lo = std::numeric_limits<int64_t>::min(), int64_t hi = std::numeric_limits<int64_t>::max()) {
  return parse_int64(meta_get(path, meta, key), "load " + path + ": metadata '" + key + "'", lo, hi);
}

}  // namespace

ModelConfig checkpoint_config(const std::string& path, const std::map<std::string, std::string>& metadata) {
  std::string format = meta_get(path, metadata, "format");
  if (format == "heed-seq2seq-1")
    throw Error("load " + path + ": format 'heed-seq2seq-1' is from before heed named its tensors as PyTorch's "
                "state_dict does (encoder.cell.weight_ih became encoder.weight_ih_l0, attention.v became "
                "attention.v.weight of shape (1, A)) and kept the vocabulary in the file; train the model again");
  if (format != kFormat)
    throw Error("load " + path + ": format '" + format + "' is not " + kFormat);
  return ModelConfig::from_metadata(metadata);
}

Vocab file_vocab(const std::string& path, const std::map<std::string, std::string>& meta, const std::string& key,
                 int64_t size);

std::unique_ptr<Task> checkpoint_task(const std::string& path, const std::map<std::string, std::string>& metadata) {
  std::string task = meta_get(path, metadata, "task");
  if (task == "data") {  // the vocabularies and the tokenizer's settings; the pairs stay in their file
    const ModelConfig config = checkpoint_config(path, metadata);
    if (meta_get(path, metadata, "data.tokenizer") != kDataTokenizer)
      throw Error("load " + path + ": metadata 'data.tokenizer' is '" + metadata.at("data.tokenizer") + "', not " +
                  kDataTokenizer);
    DataOptions opt;
    opt.tok.lower = meta_integer(path, metadata, "data.lower", 0, 1) == 1;
    opt.min_count = meta_integer(path, metadata, "data.min_count", 1, INT64_MAX);
    opt.max_len = meta_integer(path, metadata, "data.max_len", 1, SymbolTask::kMaxLength);
    const int64_t min_len = meta_integer(path, metadata, "min_len", 1, SymbolTask::kMaxLength);
    const int64_t max_len = meta_integer(path, metadata, "max_len", min_len, SymbolTask::kMaxLength);
    const int64_t max_target = meta_integer(path, metadata, "max_target_len", 1, SymbolTask::kMaxLength);
    try {
      return std::make_unique<DataTask>(file_vocab(path, metadata, "src_tokens", config.src_vocab),
                                        file_vocab(path, metadata, "tgt_tokens", config.tgt_vocab), opt, min_len,
                                        max_len, max_target);
    } catch (const Error& e) {
      throw Error("load " + path + ": " + e.what());
    }
  }
  if (task == "text") {  // the vocabulary and the tokenizer's settings; the text stays in its file
    const ModelConfig config = checkpoint_config(path, metadata);
    try {
      return std::make_unique<TextTask>(file_vocab(path, metadata, "tgt_tokens", config.tgt_vocab),
                                        TextTask::options_from_metadata(metadata, "load " + path));
    } catch (const Error& e) {
      const std::string what = e.what();
      throw Error(what.rfind("load ", 0) == 0 ? what : "load " + path + ": " + what);
    }
  }
  const bool grammar = task == "translate" || task == "translate-seq" || task == "german";  // no V to give
  int64_t vocab = grammar ? 0 : meta_integer(path, metadata, "vocab", 1, SymbolTask::kMaxVocab);
  const int64_t min_len = meta_integer(path, metadata, "min_len", 1, SymbolTask::kMaxLength);
  const int64_t max_len = meta_integer(path, metadata, "max_len", min_len, SymbolTask::kMaxLength);
  return make_task(task, vocab, min_len, max_len);
}

// The vocabulary stored under `key`: `size` tokens, the three specials first.
Vocab file_vocab(const std::string& path, const std::map<std::string, std::string>& meta, const std::string& key,
                 int64_t size) {
  std::vector<std::string> tokens;
  std::string text = meta_get(path, meta, key), word;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ' ') {
      tokens.push_back(word);
      word.clear();
    } else {
      word += text[i];
    }
  }
  Vocab specials;
  if (static_cast<int64_t>(tokens.size()) != size)
    throw Error("load " + path + ": metadata '" + key + "' holds " + std::to_string(tokens.size()) +
                " tokens; the model's vocabulary has " + std::to_string(size));
  for (int64_t i = 0; i < Vocab::kNumSpecials; ++i)
    if (tokens[i] != specials.token(i))
      throw Error("load " + path + ": metadata '" + key + "' must start with <pad> <bos> <eos>");
  std::vector<std::string> words(tokens.begin() + Vocab::kNumSpecials, tokens.end());
  Vocab symbols = Vocab::symbols(std::max<int64_t>(1, size - Vocab::kNumSpecials));
  if (symbols.tokens() == tokens) return symbols;  // "0" .. "V-1": messages show the range
  try {
    return Vocab(words);
  } catch (const Error& e) {
    throw Error("load " + path + ": metadata '" + key + "': " + e.what());
  }
}

namespace {
RunObserver& observer_slot() {
  static RunObserver observer;
  return observer;
}
}  // namespace

void set_run_observer(RunObserver observer) { observer_slot() = std::move(observer); }
const RunObserver& run_observer() { return observer_slot(); }

LoadedModel load_model(const std::string& path) {
  check_regular_input(path, "load");  // a FIFO would block the reader forever
  check_safetensors_signature(path);
  LoadedModel out;
  ModelConfig config;
  // One read of one open file: the metadata is checked when the header is in, before anything
  // is allocated for the tensors, which then come from the same bytes (a file replaced while
  // heed reads it gives the old checkpoint whole, never its metadata with another's tensors).
  SafetensorsFile file = read_safetensors(path, [&](const std::map<std::string, std::string>& meta, uint64_t bytes) {
    out.metadata = meta;
    config = checkpoint_config(path, out.metadata);
    out.src_vocab = file_vocab(path, out.metadata, "src_tokens", config.src_vocab);
    out.tgt_vocab = file_vocab(path, out.metadata, "tgt_tokens", config.tgt_vocab);
    out.task = checkpoint_task(path, out.metadata);
    // A file too small for the model its metadata describes is refused before the model is
    // built: lying metadata must not make heed allocate (F16, the narrowest type, is 2 bytes).
    if (static_cast<uint64_t>(config.parameter_count()) > bytes / 2)
      throw Error("load " + path + ": its metadata describes a model of " + std::to_string(config.parameter_count()) +
                  " parameters, more than its " + std::to_string(bytes) + " bytes can hold");
    if (run_observer().after_header) run_observer().after_header(path);
  });
  Generator gen(0);  // the weights are about to be replaced
  out.model = make_model(config, gen);
  load_checkpoint(*out.model, std::move(file), path, &out.training);
  return out;
}

void check_task_vocab(const LoadedModel& m, const std::string& path) {
  const ModelConfig& config = m.model->config();
  if (m.task->src_vocab().size() != config.src_vocab || m.task->tgt_vocab().size() != config.tgt_vocab)
    throw Error("load " + path + ": the model's vocabularies (" + std::to_string(config.src_vocab) + ", " +
                std::to_string(config.tgt_vocab) + ") do not fit task " + m.task->name());
  if (m.task->src_vocab().tokens() != m.src_vocab.tokens() || m.task->tgt_vocab().tokens() != m.tgt_vocab.tokens())
    throw Error("load " + path + ": the file's vocabularies differ from those of this heed's task " +
                m.task->name() + ", which draws the data");
}

void read_transformer_flags(const Args& a, ModelConfig& c) {
  if (a.has(kAttentionOnlySwitch) && !c.is_decoder())
    throw a.error(std::string(kAttentionOnlySwitch) + " is for --model decoder, not " + c.model);
  if (!c.has_layers()) {
    for (const std::string& f : kTransformerFlags)
      if (a.has(f)) throw a.error(f + " is for --model transformer or decoder, not " + c.model);
    for (const char* f : {kTransformerSwitch, kShareEmbeddings})
      if (a.has(f)) throw a.error(std::string(f) + " is for --model transformer or decoder, not " + c.model);
    return;
  }
  // The recurrent models' flags: the transformer has no cell, no hidden size, no direction and
  // no attentional state to feed back.
  for (const char* f : {"--cell", "--hidden", "--bidirectional", "--input-feeding"})
    if (a.has(f))
      throw a.error(std::string(f) + " is for the recurrent models, not --model " + c.model +
                    (f == std::string("--hidden") ? " (its width is --embed)" : ""));
  // Attention-only layers have no feed-forward and no LayerNorm to place.
  c.attention_only = a.has(kAttentionOnlySwitch);
  if (c.attention_only)
    for (const char* f : {"--ff", kTransformerSwitch})
      if (a.has(f))
        throw a.error(std::string(f) + " does not apply to " + kAttentionOnlySwitch + " (no feed-forward, no LayerNorm)");
  c.layers = a.integer("--layers", 2, 1, 64);
  c.heads = a.integer("--heads", 4, 1, 4096);
  c.ff = a.integer("--ff", 128, 1, 65536);
  c.norm_first = a.has(kTransformerSwitch);
  c.positions = a.choice("--positions", "sinusoidal", {"sinusoidal", "learned"});
  c.dropout = a.has("--dropout") ? a.number_from("--dropout", 0, 0, 0.99) : 0;
  c.share_embeddings = a.has(kShareEmbeddings);
  if (c.embed % c.heads != 0)
    throw a.error("--heads " + std::to_string(c.heads) + " must divide --embed " + std::to_string(c.embed));
}

std::string model_flags(const ModelConfig& c) {
  std::string f = "--model " + c.model;
  if (!c.has_layers())
    return f + " --cell " + c.cell + (c.bidirectional ? " --bidirectional" : "") +
           (c.input_feeding ? " --input-feeding" : "") + " --embed " + std::to_string(c.embed) + " --hidden " +
           std::to_string(c.hidden);
  f += " --embed " + std::to_string(c.embed) + " --layers " + std::to_string(c.layers) + " --heads " +
       std::to_string(c.heads) + " --ff " + std::to_string(c.ff);
  if (c.norm_first) f += std::string(" ") + kTransformerSwitch;
  if (c.attention_only) f += std::string(" ") + kAttentionOnlySwitch;
  if (c.positions != "sinusoidal") f += " --positions " + c.positions;
  if (c.share_embeddings) f += std::string(" ") + kShareEmbeddings;
  if (c.dropout > 0) {
    char d[32];
    std::snprintf(d, sizeof d, "%.17g", c.dropout);  // the value the run used, exactly
    f += std::string(" --dropout ") + d;
  }
  return f;
}

std::string format_duration(real seconds) {
  char buf[32];
  if (seconds < 60) std::snprintf(buf, sizeof buf, "%.1fs", seconds);
  else if (seconds < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", int(seconds) / 60, int(seconds) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", int(seconds) / 3600, int(seconds) / 60 % 60);
  return buf;
}

}  // namespace heed
