// UTF-8 checks (RFC 3629), shared by the JSON writer and parser and by viz/'s escaping: one
// definition of which bytes are valid text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace heed {

// Length (1-4) of the valid UTF-8 sequence that starts at s[i], or 0 if none does: overlong
// forms, surrogates, code points above U+10FFFF, truncated sequences and i >= s.size() all
// give 0. `*code_point` (when not null) receives the decoded value of a valid sequence.
size_t utf8_length(std::string_view s, size_t i, char32_t* code_point = nullptr);

// `s` made safe to print on a terminal: control characters (all of C0, DEL and C1), which a
// file or an argument could use to move the cursor or retitle the window, become \xNN (\u{NN}
// for C1), as do the bytes of invalid UTF-8; a backslash stays itself; anything else is kept.
std::string terminal_safe(std::string_view s);

}  // namespace heed
