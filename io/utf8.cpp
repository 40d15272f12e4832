#include "io/utf8.h"

#include <cstdio>

namespace heed {

// RFC 3629's table of well-formed byte sequences: the second byte's range is narrowed after
// E0 (no overlong), ED (no surrogates), F0 (no overlong) and F4 (nothing above U+10FFFF).
size_t utf8_length(std::string_view s, size_t i, char32_t* code_point) {
  auto byte = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return byte(k) >= lo && byte(k) <= hi; };
  if (i >= s.size()) return 0;
  unsigned c = byte(0);
  size_t n = 0;
  if (c < 0x80) n = 1;
  else if (c >= 0xC2 && c <= 0xDF) n = cont(1) ? 2 : 0;
  else if (c == 0xE0) n = cont(1, 0xA0) && cont(2) ? 3 : 0;
  else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) n = cont(1) && cont(2) ? 3 : 0;
  else if (c == 0xED) n = cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;  // no surrogates
  else if (c == 0xF0) n = cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  else if (c >= 0xF1 && c <= 0xF3) n = cont(1) && cont(2) && cont(3) ? 4 : 0;
  else if (c == 0xF4) n = cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  if (n != 0 && code_point) {
    static const unsigned kLead[] = {0, 0x7F, 0x1F, 0x0F, 0x07};  // payload bits of the lead byte
    char32_t cp = c & kLead[n];
    for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (byte(k) & 0x3F);
    *code_point = cp;
  }
  return n;
}

std::string terminal_safe(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  char hex[12];
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    size_t n = utf8_length(s, i, &cp);
    if (n == 0) {  // not UTF-8: the byte as a number
      std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned char>(s[i]));
      out += hex;
      i += 1;
      continue;
    }
    if (cp < 0x20 || cp == 0x7F) {
      std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned>(cp));
      out += hex;
    } else if (cp >= 0x80 && cp <= 0x9F) {
      std::snprintf(hex, sizeof hex, "\\u{%02X}", static_cast<unsigned>(cp));
      out += hex;
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  return out;
}

}  // namespace heed
