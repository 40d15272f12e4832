// Whole numbers from text, read one way everywhere: the command line's flags and a checkpoint's
// metadata go through the same function, so a value one of them refuses the other refuses too.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace heed {

// The integer `text` spells: an optional '-' then decimal digits, and nothing else -- "12abc",
// " 12", "12 ", "+12", "1e3", "1.5" and "" are refused -- within [lo, hi]. Otherwise heed::Error
// naming `what` and the text: "--steps: '12abc' is not a whole number", "--hidden:
// 99999999999999999999 is out of range [1, 4096]" (a number past int64 is out of range too).
int64_t parse_int64(std::string_view text, const std::string& what,
                    int64_t lo = std::numeric_limits<int64_t>::min(), int64_t hi = std::numeric_limits<int64_t>::max());

}  // namespace heed
