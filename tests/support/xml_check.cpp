#include "tests/support/xml_check.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "io/utf8.h"

namespace heed {

namespace {

// The characters XML 1.0 allows in a document.
bool xml_char(char32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

bool name_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80;
}

bool name_char(unsigned char c) {
  return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// One pass over the text; every rule that fails records its byte offset and stops.
class Checker {
 public:
  explicit Checker(const std::string& text) : s_(text) {}

  bool document() {
    if (s_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;  // a UTF-8 byte-order mark
    if (starts("<?xml") && pos_ + 5 < s_.size() && (space(s_[pos_ + 5]) || s_[pos_ + 5] == '?')) {
      if (!declaration()) return false;
    }
    if (!misc("before")) return false;
    if (pos_ >= s_.size()) return fail(pos_, "no root element");
    if (!element()) return false;
    if (!misc("after")) return false;
    if (pos_ < s_.size()) {
      if (s_[pos_] == '<' && pos_ + 1 < s_.size() &&
          name_start(static_cast<unsigned char>(s_[pos_ + 1])))
        return fail(pos_, "a second root element; a document has exactly one");
      return fail(pos_, "unexpected markup after the root element");
    }
    return true;
  }

  const std::string& error() const { return error_; }

 private:
  bool fail(std::size_t at, const std::string& what) {
    error_ = "byte " + std::to_string(at) + ": " + what;
    return false;
  }
  bool starts(const char* literal) const {
    return s_.compare(pos_, std::char_traits<char>::length(literal), literal) == 0;
  }
  void skip_space() {
    while (pos_ < s_.size() && space(s_[pos_])) ++pos_;
  }

  // One character of text, an attribute value, a comment or a PI: valid UTF-8 and an XML Char.
  bool character() {
    char32_t c = 0;
    int len = static_cast<int>(utf8_length(s_, pos_, &c));
    if (len == 0) return fail(pos_, "invalid UTF-8");
    if (!xml_char(c)) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(c));
      return fail(pos_, std::string("character ") + hex + " is not allowed in XML");
    }
    pos_ += len;
    return true;
  }

  bool name(std::string* out) {
    std::size_t begin = pos_;
    if (pos_ >= s_.size() || !name_start(static_cast<unsigned char>(s_[pos_])))
      return fail(pos_, "expected a name");
    while (pos_ < s_.size() && name_char(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    *out = s_.substr(begin, pos_ - begin);
    return true;
  }

  // At '&': a predefined entity (&amp; &lt; &gt; &quot; &apos;) or a character reference.
  bool reference() {
    std::size_t begin = pos_++;
    std::size_t semi = s_.find(';', pos_);
    if (semi == std::string::npos || semi - begin > 12)
      return fail(begin, "'&' does not start an entity reference (write &amp;)");
    std::string body = s_.substr(pos_, semi - pos_);
    pos_ = semi + 1;
    if (body == "amp" || body == "lt" || body == "gt" || body == "quot" || body == "apos")
      return true;
    if (body.size() >= 2 && body[0] == '#') {
      bool hex = body[1] == 'x';
      std::string digits = body.substr(hex ? 2 : 1);
      const char* allowed = hex ? "0123456789abcdefABCDEF" : "0123456789";
      if (!digits.empty() && digits.size() <= 8 &&
          digits.find_first_not_of(allowed) == std::string::npos) {
        unsigned long value = std::stoul(digits, nullptr, hex ? 16 : 10);
        if (xml_char(static_cast<char32_t>(value)) && value <= 0x10FFFF) return true;
        return fail(begin, "&" + body + "; is not a character XML allows");
      }
      return fail(begin, "malformed character reference &" + body + ";");
    }
    return fail(begin, "unknown entity &" + body + "; (XML knows amp, lt, gt, quot, apos)");
  }

  // Attributes of a start tag or the declaration, up to (not including) `>`, `/>` or `?>`.
  bool attributes(const std::string& element) {
    std::vector<std::string> seen;
    while (true) {
      std::size_t before = pos_;
      skip_space();
      if (pos_ >= s_.size()) return fail(pos_, "unterminated tag <" + element);
      char c = s_[pos_];
      if (c == '>' || c == '/' || c == '?') return true;
      if (pos_ == before)
        return fail(pos_, "expected whitespace before an attribute in <" + element);
      std::string attr;
      std::size_t at = pos_;
      if (!name(&attr)) return fail(pos_, "bad attribute name in <" + element + ">");
      if (std::find(seen.begin(), seen.end(), attr) != seen.end())
        return fail(at, "duplicate attribute " + attr + " in <" + element + ">");
      seen.push_back(attr);
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != '=')
        return fail(pos_, "attribute " + attr + " in <" + element + "> has no '=value'");
      ++pos_;
      skip_space();
      if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\''))
        return fail(pos_, "value of attribute " + attr + " is not quoted");
      char quote = s_[pos_++];
      while (true) {
        if (pos_ >= s_.size()) return fail(at, "unterminated value of attribute " + attr);
        if (s_[pos_] == quote) break;
        if (s_[pos_] == '<') return fail(pos_, "'<' inside the value of attribute " + attr);
        if (s_[pos_] == '&' ? !reference() : !character()) return false;
      }
      ++pos_;
    }
  }

  bool declaration() {
    std::size_t begin = pos_;
    pos_ += 5;
    if (!attributes("?xml")) return false;
    if (!starts("?>")) return fail(pos_, "the XML declaration does not end with '?>'");
    if (s_.compare(begin, 15, "<?xml version=\"") != 0 &&
        s_.compare(begin, 15, "<?xml version='") != 0)
      return fail(begin, "the XML declaration must start with version=\"...\"");
    pos_ += 2;
    return true;
  }

  bool comment() {
    std::size_t begin = pos_;
    pos_ += 4;
    while (pos_ < s_.size()) {
      if (starts("--")) {
        if (starts("-->")) {
          pos_ += 3;
          return true;
        }
        return fail(pos_, "'--' inside a comment");
      }
      if (!character()) return false;
    }
    return fail(begin, "unterminated comment");
  }

  bool processing_instruction() {
    std::size_t begin = pos_;
    pos_ += 2;
    std::string target;
    if (!name(&target)) return false;
    std::string lower = target;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) { return c | 0x20; });
    if (lower == "xml") return fail(begin, "the XML declaration is only allowed at the very start");
    while (pos_ < s_.size()) {
      if (starts("?>")) {
        pos_ += 2;
        return true;
      }
      if (!character()) return false;
    }
    return fail(begin, "unterminated processing instruction <?" + target);
  }

  // Whitespace, comments and processing instructions outside the root element.
  bool misc(const char* where) {
    while (true) {
      skip_space();
      if (starts("<!--")) {
        if (!comment()) return false;
      } else if (starts("<!DOCTYPE")) {
        return fail(pos_, "<!DOCTYPE> is not supported by this checker");
      } else if (starts("<?")) {
        if (!processing_instruction()) return false;
      } else if (pos_ < s_.size() && s_[pos_] != '<') {
        return fail(pos_, std::string("text ") + where + " the root element");
      } else {
        return true;
      }
    }
  }

  // The root element and everything inside it, iteratively (deep nesting cannot overflow).
  bool element() {
    struct Open {
      std::string name;
      std::size_t at;
    };
    std::vector<Open> open;
    if (pos_ + 1 >= s_.size() || s_[pos_] != '<' ||
        !name_start(static_cast<unsigned char>(s_[pos_ + 1])))
      return fail(pos_, "expected the root element's start tag");
    do {
      if (pos_ >= s_.size()) {
        return fail(pos_, "end of document inside <" + open.back().name + "> opened at byte " +
                              std::to_string(open.back().at));
      }
      if (starts("</")) {
        std::size_t at = pos_;
        pos_ += 2;
        std::string closing;
        if (!name(&closing)) return false;
        skip_space();
        if (pos_ >= s_.size() || s_[pos_] != '>')
          return fail(pos_, "end tag </" + closing + " has no '>'");
        ++pos_;
        if (open.empty()) return fail(at, "end tag </" + closing + "> without a start tag");
        if (closing != open.back().name) {
          return fail(at, "end tag </" + closing + "> does not match <" + open.back().name +
                              "> opened at byte " + std::to_string(open.back().at));
        }
        open.pop_back();
      } else if (starts("<!--")) {
        if (!comment()) return false;
      } else if (starts("<![CDATA[")) {
        std::size_t end = s_.find("]]>", pos_);
        if (end == std::string::npos) return fail(pos_, "unterminated CDATA section");
        for (pos_ += 9; pos_ < end;)
          if (!character()) return false;
        pos_ = end + 3;
      } else if (starts("<?")) {
        if (!processing_instruction()) return false;
      } else if (starts("<!")) {
        return fail(pos_, "unexpected '<!' (only comments and CDATA may start so)");
      } else if (s_[pos_] == '<') {
        std::size_t at = pos_++;
        std::string tag;
        if (!name(&tag)) return fail(pos_, "'<' not followed by a tag name (write &lt;)");
        if (!attributes(tag)) return false;
        if (starts("/>")) {
          pos_ += 2;
        } else if (s_[pos_] == '>') {
          ++pos_;
          open.push_back({tag, at});
        } else {
          return fail(pos_, "unexpected character in tag <" + tag + ">");
        }
      } else if (s_[pos_] == '&') {
        if (!reference()) return false;
      } else if (starts("]]>")) {
        return fail(pos_, "']]>' is not allowed in text");
      } else if (!character()) {
        return false;
      }
    } while (!open.empty());
    return true;
  }

  const std::string& s_;
  std::size_t pos_ = 0;
  std::string error_;
};

}  // namespace

bool xml_well_formed(const std::string& text, std::string* error) {
  Checker checker(text);
  bool ok = checker.document();
  if (error) *error = ok ? std::string() : checker.error();
  return ok;
}

}  // namespace heed
