// Json: a JSON value (null, bool, number, string, array, or object whose keys keep their
// insertion order), with a strict parser and a compact writer, enough for safetensors headers.
// The parser follows RFC 8259 and nothing more: no comments, no trailing commas, no NaN, no
// duplicate keys, valid UTF-8 only, nesting limited (no stack overflow on "[[[[..."). A number
// written as an integer that fits int64 stays exact; any other number is a heed::real.
// Parsing and writing never depend on the locale. Errors are heed::Error with the byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/utf8.h"
#include "tensor/tensor.h"

namespace heed {

class Json {
 public:
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;  // in insertion order

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool b) : kind_(Kind::kBool), bool_(b) {}
  Json(int i) : Json(static_cast<int64_t>(i)) {}
  Json(int64_t i) : kind_(Kind::kNumber), is_int_(true), int_(i) {}
  Json(real x) : kind_(Kind::kNumber), real_(x) {}
  Json(std::string s) : kind_(Kind::kString), string_(std::move(s)) {}
  Json(const char* s) : Json(std::string(s)) {}
  Json(Array a) : kind_(Kind::kArray), array_(std::move(a)) {}
  // An object with these members (none: an empty object). Throws heed::Error on a repeated key.
  static Json object(Object members = {});

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool is_number() const { return kind_ == Kind::kNumber; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_object() const { return kind_ == Kind::kObject; }
  // A number held exactly as int64: written without fraction or exponent, within int64.
  bool is_int() const { return kind_ == Kind::kNumber && is_int_; }

  // Accessors throw heed::Error when the value is of another kind.
  bool as_bool() const;
  real as_real() const;    // any number
  int64_t as_int() const;  // REQUIRES: is_int()
  const std::string& as_string() const;
  const Array& as_array() const;
  const Object& items() const;  // REQUIRES: is_object()

  size_t size() const;  // elements of an array or members of an object
  // The member named `key`, or nullptr. REQUIRES: is_object().
  const Json* find(const std::string& key) const;
  // Sets member `key` (replacing it in place if present). REQUIRES: is_object().
  void set(const std::string& key, Json value);
  void push_back(Json value);  // REQUIRES: is_array()

  // Compact JSON text. Throws heed::Error for a non-finite number or a string that is not
  // valid UTF-8 (neither can be written as JSON).
  std::string dump() const;

  friend bool operator==(const Json& a, const Json& b);

 private:
  void dump_to(std::string& out) const;

  Kind kind_ = Kind::kNull;
  bool bool_ = false;
  bool is_int_ = false;  // a number held in int_ rather than real_
  int64_t int_ = 0;
  real real_ = 0;
  std::string string_;
  Array array_;
  Object object_;
};

inline constexpr int kJsonMaxDepth = 64;

// Parses one JSON value that makes up all of `text` (surrounding whitespace allowed).
// Throws heed::Error("json: offset 17: expected ':' after object key") on anything else, and
// when the text holds more than `max_values` values (containers count), which bounds the
// memory: a parsed value takes about a hundred bytes, whatever its text ("0," is two).
Json parse_json(std::string_view text, int max_depth = kJsonMaxDepth, size_t max_values = SIZE_MAX);

// How json_quote treats what plain JSON leaves open. kStrict: invalid UTF-8 is a heed::Error
// (text that heed reads back). kScript: for a literal inside an HTML <script> element (viz/'s
// pages): invalid UTF-8 becomes '?', and < > & U+2028 U+2029 are \u escapes too, so no token
// can close the element or end a line of the script.
enum class JsonQuoting { kStrict, kScript };

// `s` as a JSON string literal, quotes included: " and \ escaped, control characters and DEL
// as \n \t ... or \u00XX, everything else as it is.
std::string json_quote(std::string_view s, JsonQuoting how = JsonQuoting::kStrict);

}  // namespace heed
