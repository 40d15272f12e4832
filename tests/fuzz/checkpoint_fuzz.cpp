// Fuzz target: what `heed eval --load FILE` and `heed predict` do with a file -- read the
// metadata, rebuild the task and model, load the weights strictly -- on arbitrary bytes written
// to a temporary file; a model that loads then decodes one source. Every input must end in a
// heed::Error or a loaded model; anything else is a bug (make fuzz).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "tools/common.h"

namespace {

std::string scratch_file() {
  std::filesystem::path dir = std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
  return (dir / ("heed-checkpoint-fuzz-" + std::to_string(::getpid()) + ".safetensors")).string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = scratch_file();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    heed::LoadedModel m = heed::load_model(path);
    heed::Example ex;
    ex.src = {heed::Vocab::kNumSpecials};  // the first word
    heed::Batch batch = heed::make_batch({ex});
    heed::Decoded d = m.model->greedy(batch, 3);
    if (d.tokens.size() != 1 || d.tokens[0].size() != 3) __builtin_trap();
  } catch (const heed::Error&) {
  }
  std::remove(path.c_str());
  return 0;
}
