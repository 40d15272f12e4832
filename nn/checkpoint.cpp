#include "nn/checkpoint.h"

#include <cmath>
#include <set>

#include "io/safetensors.h"

namespace heed {

namespace {

// Index of the first non-finite value of t, or -1.
int64_t first_non_finite(const Tensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i)
    if (!std::isfinite(t[i])) return i;
  return -1;
}

bool is_training_state(const std::string& name) { return name.rfind(kTrainingPrefix, 0) == 0; }

std::string describe_value(const std::string& name, const Tensor& t, int64_t i) {
  return std::string(is_training_state(name) ? "training tensor '" : "parameter '") + name + "' " +
         shape_str(t.shape()) + " holds " + std::to_string(t[i]) + " at flat index " + std::to_string(i);
}

// "a, b, c and 4 more": long lists stay readable.
std::string join_capped(const std::vector<std::string>& items) {
  constexpr size_t kShown = 8;
  std::string out;
  for (size_t i = 0; i < items.size() && i < kShown; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > kShown) out += " and " + std::to_string(items.size() - kShown) + " more";
  return out;
}

}  // namespace

void save_checkpoint(const Module& m, const std::string& path, const std::map<std::string, std::string>& metadata,
                     const std::vector<NamedTensor>& training, const SafetensorsWriteHook& before_rename) {
  std::vector<NamedTensor> tensors;
  for (const auto& [name, v] : m.named_parameters()) {
    if (is_training_state(name))
      throw Error("save_checkpoint: " + path + ": parameter '" + name + "' has the training-state prefix " +
                  kTrainingPrefix);
    tensors.push_back({name, v.value()});
  }
  for (const NamedTensor& t : training) {
    if (!is_training_state(t.name))
      throw Error("save_checkpoint: " + path + ": training tensor '" + t.name + "' must start with " + kTrainingPrefix);
    tensors.push_back(t);
  }
  for (const NamedTensor& t : tensors) {
    int64_t bad = first_non_finite(t.value);
    if (bad >= 0) throw Error("save_checkpoint: " + path + ": " + describe_value(t.name, t.value, bad) + "; not saved");
  }
  write_safetensors(path, tensors, metadata, before_rename);
}

std::map<std::string, std::string> load_checkpoint(Module& m, const std::string& path,
                                                   std::vector<NamedTensor>* training) {
  return load_checkpoint(m, read_safetensors(path), path, training);
}

std::map<std::string, std::string> load_checkpoint(Module& m, SafetensorsFile file, const std::string& path,
                                                   std::vector<NamedTensor>* training) {
  std::map<std::string, const Tensor*> in_file;
  for (const NamedTensor& t : file.tensors)
    if (!is_training_state(t.name)) in_file[t.name] = &t.value;

  auto params = m.named_parameters();
  std::vector<std::string> missing, unexpected, mismatched;
  std::set<std::string> in_module;
  for (const auto& [name, v] : params) {
    in_module.insert(name);
    auto it = in_file.find(name);
    if (it == in_file.end()) missing.push_back(name + " " + shape_str(v.shape()));
    else if (it->second->shape() != v.shape())
      mismatched.push_back(name + " (file " + shape_str(it->second->shape()) + ", module " + shape_str(v.shape()) + ")");
  }
  for (const NamedTensor& t : file.tensors)
    if (!in_module.count(t.name) && !is_training_state(t.name)) unexpected.push_back(t.name + " " + shape_str(t.value.shape()));
  if (!missing.empty() || !unexpected.empty() || !mismatched.empty()) {
    std::string msg = "load_checkpoint: " + path + ": the file does not match the module";
    if (!missing.empty()) msg += "; missing from the file: " + join_capped(missing);
    if (!unexpected.empty()) msg += "; unexpected in the file: " + join_capped(unexpected);
    if (!mismatched.empty()) msg += "; shape mismatch: " + join_capped(mismatched);
    throw Error(msg);
  }
  for (const NamedTensor& t : file.tensors) {
    int64_t bad = first_non_finite(t.value);
    if (bad >= 0) throw Error("load_checkpoint: " + path + ": " + describe_value(t.name, t.value, bad));
  }
  for (auto& [name, v] : params) v.value() = *in_file.at(name);  // all checked: now copy
  if (training) {
    training->clear();
    for (NamedTensor& t : file.tensors)
      if (is_training_state(t.name)) training->push_back(std::move(t));
  }
  return std::move(file.metadata);
}

std::map<std::string, std::string> read_checkpoint_metadata(const std::string& path) {
  return read_safetensors_metadata(path);
}

}  // namespace heed
