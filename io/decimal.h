// Decimal text to the nearest double or float, correctly rounded (ties to even), the same on every
// machine and in every locale. The JSON parser reads its real numbers through it. It exists
// because std::from_chars for floating point is missing from libc++ (the C++ library of macOS's
// clang) before LLVM 20, and strtod and streams depend on the C library and the locale.
#pragma once

#include <string_view>

namespace heed {

// The value `text` spells, rounded to the nearest T (float or double), ties to the even
// significand; a value too small for T's smallest subnormal rounds to a zero of its sign, and a
// value too large for T gives an infinity of its sign (the caller decides whether that is an error).
// REQUIRES: `text` is a JSON number (RFC 8259): -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
template <class T>
T decimal_to_binary(std::string_view text);

extern template float decimal_to_binary<float>(std::string_view);
extern template double decimal_to_binary<double>(std::string_view);

}  // namespace heed
