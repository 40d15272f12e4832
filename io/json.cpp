#include "io/json.h"

#include <charconv>
#include <cmath>
#include <set>

namespace heed {

namespace {

const char* kind_name(Json::Kind k) {
  switch (k) {
    case Json::Kind::kNull: return "null";
    case Json::Kind::kBool: return "a bool";
    case Json::Kind::kNumber: return "a number";
    case Json::Kind::kString: return "a string";
    case Json::Kind::kArray: return "an array";
    case Json::Kind::kObject: return "an object";
  }
  return "?";
}

[[noreturn]] void wrong_kind(Json::Kind have, const char* want) {
  throw Error(std::string("json: expected ") + want + ", found " + kind_name(have));
}

}  // namespace

Json Json::object(Object members) {
  std::set<std::string_view> seen;
  for (const auto& m : members)
    if (!seen.insert(m.first).second) throw Error("json: duplicate key " + json_quote(m.first));
  Json j;
  j.kind_ = Kind::kObject;
  j.object_ = std::move(members);
  return j;
}

bool Json::as_bool() const {
  if (kind_ != Kind::kBool) wrong_kind(kind_, "a bool");
  return bool_;
}

real Json::as_real() const {
  if (kind_ != Kind::kNumber) wrong_kind(kind_, "a number");
  return is_int_ ? static_cast<real>(int_) : real_;
}

int64_t Json::as_int() const {
  if (!is_int()) wrong_kind(kind_, "an integer");
  return int_;
}

const std::string& Json::as_string() const {
  if (kind_ != Kind::kString) wrong_kind(kind_, "a string");
  return string_;
}

const Json::Array& Json::as_array() const {
  if (kind_ != Kind::kArray) wrong_kind(kind_, "an array");
  return array_;
}

const Json::Object& Json::items() const {
  if (kind_ != Kind::kObject) wrong_kind(kind_, "an object");
  return object_;
}

size_t Json::size() const {
  if (kind_ == Kind::kArray) return array_.size();
  if (kind_ == Kind::kObject) return object_.size();
  wrong_kind(kind_, "an array or an object");
}

const Json* Json::find(const std::string& key) const {
  for (const auto& [k, v] : items())
    if (k == key) return &v;
  return nullptr;
}

void Json::set(const std::string& key, Json value) {
  if (kind_ != Kind::kObject) wrong_kind(kind_, "an object");
  for (auto& [k, v] : object_)
    if (k == key) {
      v = std::move(value);
      return;
    }
  object_.emplace_back(key, std::move(value));
}

void Json::push_back(Json value) {
  if (kind_ != Kind::kArray) wrong_kind(kind_, "an array");
  array_.push_back(std::move(value));
}

bool operator==(const Json& a, const Json& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case Json::Kind::kNull: return true;
    case Json::Kind::kBool: return a.bool_ == b.bool_;
    case Json::Kind::kNumber:
      if (a.is_int_ && b.is_int_) return a.int_ == b.int_;
      return a.as_real() == b.as_real();
    case Json::Kind::kString: return a.string_ == b.string_;
    case Json::Kind::kArray: return a.array_ == b.array_;
    case Json::Kind::kObject: return a.object_ == b.object_;  // members in order
  }
  return false;
}

std::string json_quote(std::string_view s, JsonQuoting how) {
  static const char* hex = "0123456789abcdef";
  const bool script = how == JsonQuoting::kScript;
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    char32_t cp = 0;
    size_t n = utf8_length(s, i, &cp);
    if (n == 0 && !script) throw Error("json: string is not valid UTF-8 (byte " + std::to_string(i) + ")");
    if (n == 0) {
      out += '?';
      i += 1;
      continue;
    }
    if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c == '\b') out += "\\b";
    else if (c == '\f') out += "\\f";
    else if (c < 0x20 || c == 0x7F || (script && (c == '<' || c == '>' || c == '&')))
      out += std::string("\\u00") + hex[c >> 4] + hex[c & 15];
    else if (script && (cp == 0x2028 || cp == 0x2029)) out += cp == 0x2028 ? "\\u2028" : "\\u2029";
    else out.append(s.substr(i, n));
    i += n;
  }
  return out + "\"";
}

void Json::dump_to(std::string& out) const {
  switch (kind_) {
    case Kind::kNull: out += "null"; break;
    case Kind::kBool: out += bool_ ? "true" : "false"; break;
    case Kind::kNumber: {
      if (is_int_) {
        out += std::to_string(int_);
        break;
      }
      if (!std::isfinite(real_)) throw Error("json: cannot write the non-finite number " + std::to_string(real_));
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, real_);  // shortest text that reads back exactly
      std::string text(buf, r.ptr);
      // Keep it a non-integer when read back ("3" would come back as the integer 3).
      if (text.find_first_of(".e") == std::string::npos) text += ".0";
      out += text;
      break;
    }
    case Kind::kString: out += json_quote(string_); break;
    case Kind::kArray:
      out += '[';
      for (size_t i = 0; i < array_.size(); ++i) {
        if (i) out += ',';
        array_[i].dump_to(out);
      }
      out += ']';
      break;
    case Kind::kObject:
      out += '{';
      for (size_t i = 0; i < object_.size(); ++i) {
        if (i) out += ',';
        out += json_quote(object_[i].first);
        out += ':';
        object_[i].second.dump_to(out);
      }
      out += '}';
      break;
  }
}

std::string Json::dump() const {
  std::string out;
  dump_to(out);
  return out;
}

}  // namespace heed
