#include "tools/common.h"

#include <cstdio>
#include <filesystem>

#include "nn/checkpoint.h"

namespace heed {

namespace {
const char* kFormat = "heed-seq2seq-1";
}

std::map<std::string, std::string> checkpoint_metadata(const ModelConfig& config, const Task& task,
                                                       const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> meta = config.to_metadata();
  meta["format"] = kFormat;
  meta["task"] = task.name();
  meta["min_len"] = std::to_string(task.min_len());
  meta["max_len"] = std::to_string(task.max_len());
  if (const auto* s = dynamic_cast<const SymbolTask*>(&task)) meta["vocab"] = std::to_string(s->num_symbols());
  for (const auto& [k, v] : extra) meta[k] = v;
  return meta;
}

LoadedModel load_model(const std::string& path) {
  LoadedModel out;
  out.metadata = read_checkpoint_metadata(path);
  auto get = [&](const std::string& key) -> std::string {
    auto it = out.metadata.find(key);
    if (it == out.metadata.end())
      throw Error("load " + path + ": not a heed model checkpoint (its metadata has no '" + key + "')");
    return it->second;
  };
  if (get("format") != kFormat)
    throw Error("load " + path + ": format '" + get("format") + "' is not " + kFormat);
  ModelConfig config = ModelConfig::from_metadata(out.metadata);
  auto integer = [&](const std::string& key) -> int64_t {
    try {
      return std::stoll(get(key));
    } catch (const std::logic_error&) {
      throw Error("load " + path + ": metadata '" + key + "' is not a number");
    }
  };
  std::string task = get("task");
  int64_t vocab = task == "translate" ? 0 : integer("vocab");
  out.task = make_task(task, vocab, integer("min_len"), integer("max_len"));
  if (out.task->src_vocab().size() != config.src_vocab || out.task->tgt_vocab().size() != config.tgt_vocab)
    throw Error("load " + path + ": the model's vocabularies (" + std::to_string(config.src_vocab) + ", " +
                std::to_string(config.tgt_vocab) + ") do not fit task " + task);
  // A file too small for the model its metadata describes is refused before the model is
  // built: lying metadata must not make heed allocate (F16, the narrowest type, is 2 bytes).
  std::error_code ec;
  uint64_t bytes = std::filesystem::file_size(path, ec);
  if (ec || static_cast<uint64_t>(config.parameter_count()) > bytes / 2)
    throw Error("load " + path + ": its metadata describes a model of " + std::to_string(config.parameter_count()) +
                " parameters, more than its " + std::to_string(bytes) + " bytes can hold");
  Generator gen(0);  // the weights are about to be replaced
  out.model = std::make_unique<Seq2Seq>(config, gen);
  load_checkpoint(*out.model, path);
  return out;
}

void read_transformer_flags(const Args& a, ModelConfig& c) {
  if (c.model != "transformer") {
    for (const std::string& f : kTransformerFlags)
      if (a.has(f)) throw a.error(f + " is for --model transformer, not " + c.model);
    if (a.has(kTransformerSwitch)) throw a.error(std::string(kTransformerSwitch) + " is for --model transformer, not " + c.model);
    return;
  }
  if (a.has("--hidden")) throw a.error("--hidden is not used by the transformer: its width is --embed");
  c.layers = a.integer("--layers", 2, 1, 64);
  c.heads = a.integer("--heads", 4, 1, 4096);
  c.ff = a.integer("--ff", 128, 1, 65536);
  c.norm_first = a.has(kTransformerSwitch);
  c.positions = a.choice("--positions", "sinusoidal", {"sinusoidal", "learned"});
  c.dropout = a.has("--dropout") ? a.number("--dropout", 0, -1e-300, 0.99) : 0;
  if (c.embed % c.heads != 0)
    throw a.error("--heads " + std::to_string(c.heads) + " must divide --embed " + std::to_string(c.embed));
}

std::string format_duration(real seconds) {
  char buf[32];
  if (seconds < 60) std::snprintf(buf, sizeof buf, "%.1fs", seconds);
  else if (seconds < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", int(seconds) / 60, int(seconds) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", int(seconds) / 3600, int(seconds) / 60 % 60);
  return buf;
}

}  // namespace heed
