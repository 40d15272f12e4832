// Fuzz target: the safetensors reader on arbitrary bytes (make fuzz). Every input must end in
// a parsed file or a heed::Error; anything else -- a crash, a sanitizer report, another
// exception, a hang, gigabytes of memory -- is a bug. What parses must be self-consistent.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "io/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    heed::SafetensorsFile f = heed::parse_safetensors(bytes, "fuzz");
    uint64_t values = 0;
    for (const heed::NamedTensor& t : f.tensors) {
      int64_t n = 1;
      for (int64_t d : t.value.shape()) n *= d;
      if (n != t.value.numel()) __builtin_trap();  // the shape and the data disagree
      values += static_cast<uint64_t>(n);
    }
    if (values * 2 > size) __builtin_trap();  // every value takes at least 2 bytes of the file
  } catch (const heed::Error&) {
  }
  return 0;
}
