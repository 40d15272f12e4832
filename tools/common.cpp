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

namespace {

std::string meta_get(const std::string& path, const std::map<std::string, std::string>& meta, const std::string& key) {
  auto it = meta.find(key);
  if (it == meta.end())
    throw Error("load " + path + ": not a heed model checkpoint (its metadata has no '" + key + "')");
  return it->second;
}

int64_t meta_integer(const std::string& path, const std::map<std::string, std::string>& meta, const std::string& key) {
  try {
    return std::stoll(meta_get(path, meta, key));
  } catch (const std::logic_error&) {
    throw Error("load " + path + ": metadata '" + key + "' is not a number");
  }
}

}  // namespace

ModelConfig checkpoint_config(const std::string& path, const std::map<std::string, std::string>& metadata) {
  std::string format = meta_get(path, metadata, "format");
  if (format != kFormat)
    throw Error("load " + path + ": format '" + format + "' is not " + kFormat);
  return ModelConfig::from_metadata(metadata);
}

std::unique_ptr<Task> checkpoint_task(const std::string& path, const std::map<std::string, std::string>& metadata) {
  std::string task = meta_get(path, metadata, "task");
  int64_t vocab = task == "translate" ? 0 : meta_integer(path, metadata, "vocab");
  return make_task(task, vocab, meta_integer(path, metadata, "min_len"), meta_integer(path, metadata, "max_len"));
}

LoadedModel load_model(const std::string& path) {
  LoadedModel out;
  out.metadata = read_checkpoint_metadata(path);
  ModelConfig config = checkpoint_config(path, out.metadata);
  out.task = checkpoint_task(path, out.metadata);
  if (out.task->src_vocab().size() != config.src_vocab || out.task->tgt_vocab().size() != config.tgt_vocab)
    throw Error("load " + path + ": the model's vocabularies (" + std::to_string(config.src_vocab) + ", " +
                std::to_string(config.tgt_vocab) + ") do not fit task " + out.task->name());
  // A file too small for the model its metadata describes is refused before the model is
  // built: lying metadata must not make heed allocate (F16, the narrowest type, is 2 bytes).
  std::error_code ec;
  uint64_t bytes = std::filesystem::file_size(path, ec);
  if (ec || static_cast<uint64_t>(config.parameter_count()) > bytes / 2)
    throw Error("load " + path + ": its metadata describes a model of " + std::to_string(config.parameter_count()) +
                " parameters, more than its " + std::to_string(bytes) + " bytes can hold");
  Generator gen(0);  // the weights are about to be replaced
  out.model = std::make_unique<Seq2Seq>(config, gen);
  load_checkpoint(*out.model, path, &out.training);
  return out;
}

std::string format_duration(real seconds) {
  char buf[32];
  if (seconds < 60) std::snprintf(buf, sizeof buf, "%.1fs", seconds);
  else if (seconds < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", int(seconds) / 60, int(seconds) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", int(seconds) / 3600, int(seconds) / 60 % 60);
  return buf;
}

}  // namespace heed
