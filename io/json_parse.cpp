// The strict JSON parser (RFC 8259): recursive descent with a depth limit.
#include <charconv>
#include <cmath>
#include <set>
#include <system_error>

#include "io/decimal.h"
#include "io/json.h"

namespace heed {

namespace {

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Parser {
 public:
  Parser(std::string_view text, int max_depth, size_t max_values)
      : s_(text), max_depth_(max_depth), max_values_(max_values) {}

  Json parse_document() {
    Json v = parse_value(0);
    skip_ws();
    if (pos_ != s_.size()) fail(pos_, "expected end of input after the value, found " + found(pos_));
    return v;
  }

 private:
  [[noreturn]] void fail(size_t at, const std::string& what) const {
    throw Error("json: offset " + std::to_string(at) + ": " + what);
  }

  std::string found(size_t at) const {
    if (at >= s_.size()) return "end of input";
    unsigned char c = static_cast<unsigned char>(s_[at]);
    if (c >= 0x20 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
    static const char* hex = "0123456789abcdef";
    return std::string("byte 0x") + hex[c >> 4] + hex[c & 15];
  }

  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }

  bool peek(char c) const { return pos_ < s_.size() && s_[pos_] == c; }

  Json parse_value(int depth) {
    skip_ws();
    if (pos_ >= s_.size()) fail(pos_, "expected a value, found end of input");
    if (++values_ > max_values_) fail(pos_, "more than " + std::to_string(max_values_) + " values");
    char c = s_[pos_];
    if (c == '{' || c == '[') {
      if (depth >= max_depth_) fail(pos_, "nesting deeper than " + std::to_string(max_depth_) + " levels");
      return c == '{' ? parse_object(depth + 1) : parse_array(depth + 1);
    }
    if (c == '"') return Json(parse_string());
    if (c == '-' || is_digit(c)) return parse_number();
    if (c == 't') return parse_literal("true", Json(true));
    if (c == 'f') return parse_literal("false", Json(false));
    if (c == 'n') return parse_literal("null", Json());
    fail(pos_, "expected a value, found " + found(pos_));
  }

  Json parse_literal(std::string_view word, Json value) {
    if (s_.substr(pos_, word.size()) != word) fail(pos_, "expected '" + std::string(word) + "'");
    pos_ += word.size();
    return value;
  }

  Json parse_object(int depth) {
    ++pos_;  // '{'
    Json::Object members;
    std::set<std::string> seen;
    skip_ws();
    if (peek('}')) {
      ++pos_;
      return Json::object();
    }
    for (;;) {
      skip_ws();
      size_t key_at = pos_;
      if (!peek('"')) fail(pos_, "expected '\"' to begin an object key, found " + found(pos_));
      std::string key = parse_string();
      if (!seen.insert(key).second) fail(key_at, "duplicate key " + json_quote(key));
      skip_ws();
      if (!peek(':')) fail(pos_, "expected ':' after object key");
      ++pos_;
      Json value = parse_value(depth);
      members.emplace_back(std::move(key), std::move(value));
      skip_ws();
      if (peek(',')) {
        ++pos_;
        continue;
      }
      if (peek('}')) {
        ++pos_;
        return Json::object(std::move(members));
      }
      fail(pos_, "expected ',' or '}' after object member, found " + found(pos_));
    }
  }

  Json parse_array(int depth) {
    ++pos_;  // '['
    Json arr{Json::Array{}};
    skip_ws();
    if (peek(']')) {
      ++pos_;
      return arr;
    }
    for (;;) {
      arr.push_back(parse_value(depth));
      skip_ws();
      if (peek(',')) {
        ++pos_;
        continue;
      }
      if (peek(']')) {
        ++pos_;
        return arr;
      }
      fail(pos_, "expected ',' or ']' after array element, found " + found(pos_));
    }
  }

  uint32_t parse_hex4() {
    if (pos_ + 4 > s_.size()) fail(pos_, "expected 4 hex digits after \\u");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = s_[pos_ + k];
      uint32_t d = is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : 99;
      if (d == 99) fail(pos_, "expected 4 hex digits after \\u");
      v = v * 16 + d;
    }
    pos_ += 4;
    return v;
  }

  std::string parse_string() {
    size_t open = pos_++;  // '"'
    std::string out;
    for (;;) {
      if (pos_ >= s_.size()) fail(open, "unterminated string");
      unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c < 0x20) fail(pos_, "control character " + found(pos_) + " in string (must be escaped)");
      if (c != '\\') {
        size_t n = utf8_length(s_, pos_);
        if (n == 0) fail(pos_, "invalid UTF-8 " + found(pos_) + " in string");
        out.append(s_.substr(pos_, n));
        pos_ += n;
        continue;
      }
      size_t esc = pos_++;
      if (pos_ >= s_.size()) fail(open, "unterminated string");
      char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp = parse_hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF) fail(esc, "unpaired low surrogate in \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {  // a high surrogate: a low one must follow
            if (s_.substr(pos_, 2) != "\\u") fail(esc, "unpaired high surrogate in \\u escape");
            pos_ += 2;
            uint32_t lo = parse_hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail(esc, "unpaired high surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default: fail(esc, "invalid escape '\\" + std::string(1, e) + "' in string");
      }
    }
  }

  // RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  Json parse_number() {
    size_t start = pos_;
    if (peek('-')) ++pos_;
    if (pos_ >= s_.size() || !is_digit(s_[pos_])) fail(pos_, "expected a digit in number");
    if (s_[pos_] == '0' && pos_ + 1 < s_.size() && is_digit(s_[pos_ + 1]))
      fail(pos_, "leading zero in number");
    // The grammar checked here; the value is read below, from the same characters.
    while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
    bool integral = true;
    if (peek('.')) {
      integral = false;
      ++pos_;
      if (pos_ >= s_.size() || !is_digit(s_[pos_])) fail(pos_, "expected a digit after '.'");
      while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
    }
    if (peek('e') || peek('E')) {
      integral = false;
      ++pos_;
      if (peek('+') || peek('-')) ++pos_;
      if (pos_ >= s_.size() || !is_digit(s_[pos_])) fail(pos_, "expected a digit in exponent");
      while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + pos_;
    if (integral) {
      int64_t i = 0;
      auto r = std::from_chars(first, last, i);
      if (r.ec == std::errc() && r.ptr == last) return Json(i);
    }
    // The nearest real, correctly rounded (io/decimal.h); a value below the smallest subnormal
    // comes back as a zero of its sign, as close to it as there is.
    real x = decimal_to_binary<real>(std::string_view(first, static_cast<size_t>(last - first)));
    if (std::isinf(x)) fail(start, "number " + std::string(first, last) + " is out of range");
    return Json(x);
  }

  std::string_view s_;
  size_t pos_ = 0;
  int max_depth_;
  size_t max_values_;
  size_t values_ = 0;  // parsed so far, containers included
};

}  // namespace

Json parse_json(std::string_view text, int max_depth, size_t max_values) {
  return Parser(text, max_depth, max_values).parse_document();
}

}  // namespace heed
