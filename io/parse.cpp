#include "io/parse.h"

#include <charconv>
#include <system_error>

#include "tensor/tensor.h"  // heed::Error

namespace heed {

int64_t parse_int64(std::string_view text, const std::string& what, int64_t lo, int64_t hi) {
  // std::from_chars reads exactly this grammar (no sign but '-', no space, no base prefix) and
  // does not depend on the locale; all that is left is to insist it used every character.
  const char* first = text.data();
  const char* last = first + text.size();
  int64_t value = 0;
  auto [end, err] = std::from_chars(first, last, value);
  bool digits = err != std::errc::invalid_argument;
  if (!digits || end != last) throw Error(what + ": '" + std::string(text) + "' is not a whole number");
  if (err == std::errc::result_out_of_range || value < lo || value > hi)
    throw Error(what + ": " + std::string(text) + " is out of range [" + std::to_string(lo) + ", " +
                std::to_string(hi) + "]");
  return value;
}

}  // namespace heed
