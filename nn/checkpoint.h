// Checkpoints: a Module's parameters in a safetensors file, named by their dotted paths
// (named_parameters()), stored as F64 (F32 in the float build), with the model's configuration as string metadata so a
// program can rebuild the model before loading its weights. Policy: a checkpoint never holds a
// non-finite value -- saving refuses one, and loading refuses a file that holds one.
#pragma once

#include <map>
#include <string>

#include "io/safetensors.h"
#include "nn/module.h"

namespace heed {

// Tensors whose names start with this prefix hold a run's training state (an optimiser's
// moments, say), not parameters: save_checkpoint writes them after the parameters, and
// load_checkpoint sets them aside instead of matching them against the module.
inline const std::string kTrainingPrefix = "training.";

// Writes every parameter of `m` to `path`, then the `training` tensors (each name must start
// with kTrainingPrefix), atomically (see write_safetensors): on any error, including a NaN or
// infinite value (the error names the tensor), the previous file stays. `before_rename` as in
// write_safetensors (tests only).
void save_checkpoint(const Module& m, const std::string& path, const std::map<std::string, std::string>& metadata = {},
                     const std::vector<NamedTensor>& training = {}, const SafetensorsWriteHook& before_rename = {});

// Reads `path` into the parameters of `m` and returns its metadata. The file's tensors must
// match m.named_parameters() exactly in names and shapes; otherwise the error lists the
// missing, unexpected and mismatched names with their shapes. Everything is read and checked
// before the first value is copied, so on any error `m` is left untouched. Gradients are kept.
// Tensors named kTrainingPrefix... go to `training` when given (and are checked finite too).
std::map<std::string, std::string> load_checkpoint(Module& m, const std::string& path,
                                                   std::vector<NamedTensor>* training = nullptr);
// The same for a file already read (read_safetensors); `path` names it in messages. A program
// that checks the metadata before building the module reads the file once this way, so the
// metadata and the tensors come from the same bytes.
std::map<std::string, std::string> load_checkpoint(Module& m, SafetensorsFile file, const std::string& path,
                                                   std::vector<NamedTensor>* training = nullptr);

// The metadata of a checkpoint, without reading its tensors (the header is fully checked).
std::map<std::string, std::string> read_checkpoint_metadata(const std::string& path);

}  // namespace heed
