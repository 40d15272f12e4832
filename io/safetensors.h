// safetensors: the tensor file format of Hugging Face's safetensors library, with no knowledge
// of modules. Layout: an 8-byte little-endian u64 N; N bytes of JSON header, an object holding
// "__metadata__" (a map of strings to strings) and, per tensor name, {"dtype", "shape",
// "data_offsets": [begin, end]} with offsets counted from the start of the data section; then
// the data section: raw little-endian values, row-major. heed writes F64 (F32 in the float build);
// it reads F64, F32, F16 and BF16, converted to heed::real (F64 into float rounds to nearest). Every problem with a file is a heed::Error naming it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "io/atomic_file.h"
#include "tensor/tensor.h"

namespace heed {

struct NamedTensor {
  std::string name;
  Tensor value;
};

// A header larger than this is refused before anything is allocated for it (the reference
// implementation's limit).
inline constexpr uint64_t kSafetensorsMaxHeader = 100'000'000;
// A header holding more JSON values than this is refused while it is parsed: a value takes about
// a hundred bytes in memory, so a 100 MB header of "0,0,0,..." would otherwise need gigabytes.
// A tensor's entry is 7 values, so the limit leaves room for tens of thousands of tensors.
inline constexpr size_t kSafetensorsMaxHeaderValues = 500'000;

// Writes the tensors as F64 (F32 in the float build: heed::real's own width), in the given order, with `metadata` as "__metadata__". The header
// is padded with spaces to a multiple of 8 bytes, as the reference writer does, so the data is
// 8-byte aligned. The write is atomic (io/atomic_file.h): if anything fails, `path` keeps its
// previous content. REQUIRES: names are distinct, non-empty and not "__metadata__".
// `before_rename` is for tests only (see BeforeRenameHook).
using SafetensorsWriteHook = BeforeRenameHook;
void write_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                       const std::map<std::string, std::string>& metadata,
                       const SafetensorsWriteHook& before_rename = {});

struct SafetensorsFile {
  std::map<std::string, std::string> metadata;
  std::vector<NamedTensor> tensors;  // in the order of their data in the file
};

// Reads and checks the whole file. The header must be a strict JSON object; each tensor needs
// exactly dtype, shape and data_offsets, with shape x dtype size equal to its byte span; the
// spans must tile the data section exactly -- no overlap, no gap, no bytes after the last
// tensor (the format's rule: a file with unaccounted bytes is refused, not guessed at).
//
// The file is opened once and every byte comes from that one open file, so a file replaced
// while it is read (renamed over by another writer) gives the old file whole, never a mix.
// `after_header`, when given, runs once the header is read and checked and before any tensor
// data is read, with the metadata and the file's size: a caller can check the metadata there
// (and throw) before anything is allocated for the tensors.
using SafetensorsHeaderCheck =
    std::function<void(const std::map<std::string, std::string>& metadata, uint64_t file_size)>;
SafetensorsFile read_safetensors(const std::string& path, const SafetensorsHeaderCheck& after_header = {});

// The same as read_safetensors, for the bytes of a file already in memory; `name` stands for
// the file in error messages.
SafetensorsFile parse_safetensors(std::string_view bytes, const std::string& name = "<memory>");

// The "__metadata__" map alone (empty if absent), after the same checks of the header and of
// the offsets against the file size; the tensor data is not read.
std::map<std::string, std::string> read_safetensors_metadata(const std::string& path);

}  // namespace heed
