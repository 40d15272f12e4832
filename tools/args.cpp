#include "tools/args.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "io/parse.h"

namespace heed {

Error Args::error(const std::string& message) const { return Error("heed " + command_ + ": " + message); }

Args::Args(std::string command, const std::vector<std::string>& argv, const std::set<std::string>& valued,
           const std::set<std::string>& switches, int64_t max_positional, const std::set<std::string>& may_be_empty)
    : command_(std::move(command)) {
  const std::string hint = " (see heed " + command_ + " --help)";
  for (size_t i = 0; i < argv.size(); ++i) {
    std::string a = argv[i];
    if (a.size() > 2 && a.compare(0, 2, "--") == 0) {
      std::string name = a, value;
      bool inline_value = false;
      if (size_t eq = a.find('='); eq != std::string::npos) {
        name = a.substr(0, eq);
        value = a.substr(eq + 1);
        inline_value = true;
      }
      if (switches.count(name)) {
        if (inline_value) throw error(name + " takes no value");
        if (!switches_.insert(name).second) throw error(name + " is given twice");
        continue;
      }
      if (!valued.count(name)) throw error("unknown flag " + name + hint);
      if (values_.count(name)) throw error(name + " is given twice");
      if (!inline_value) {
        if (i + 1 >= argv.size()) throw error(name + " needs a value");
        value = argv[++i];
      }
      if (value.empty() && !may_be_empty.count(name)) throw error(name + " needs a value");
      values_[name] = value;
    } else if (a.size() > 1 && a[0] == '-' && !(a[1] >= '0' && a[1] <= '9')) {
      throw error("unknown flag " + a + hint);
    } else {
      if (static_cast<int64_t>(positional_.size()) >= max_positional)
        throw error(max_positional ? "too many arguments; quote the source tokens as one argument" + hint
                                   : "unexpected argument '" + a + "'" + hint);
      positional_.push_back(a);
    }
  }
}

bool Args::has(const std::string& flag) const { return values_.count(flag) || switches_.count(flag); }

std::string Args::text(const std::string& flag, const std::string& fallback) const {
  auto it = values_.find(flag);
  return it == values_.end() ? fallback : it->second;
}

std::string Args::choice(const std::string& flag, const std::string& fallback,
                         const std::vector<std::string>& choices) const {
  std::string v = text(flag, fallback);
  std::string list;
  for (const std::string& c : choices) {
    if (c == v) return v;
    list += (list.empty() ? "" : ", ") + c;
  }
  throw error(flag + ": '" + v + "' is not one of " + list);
}

int64_t Args::parse_int(const std::string& flag, const std::string& s, int64_t lo, int64_t hi) const {
  try {
    return parse_int64(s, flag, lo, hi);
  } catch (const Error& e) {
    throw error(e.what());  // the same message, after "heed <command>: "
  }
}

int64_t Args::integer(const std::string& flag, int64_t fallback, int64_t lo, int64_t hi) const {
  auto it = values_.find(flag);
  return it == values_.end() ? fallback : parse_int(flag, it->second, lo, hi);
}

namespace {

// A range's end as a person writes it: 0, 0.99, 1000000 (not 0.000000).
std::string shown(real v) {
  // The fewest digits that read back as the same real: 0.99, not 0.990000009536743 in a float build.
  char text[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(v));
    const bool plain = !std::strchr(text, 'e') || std::fabs(v) < 1e-4 || std::fabs(v) >= 1e15;  // 1000, not 1e+03
    if (plain && static_cast<real>(std::strtod(text, nullptr)) == v) break;
  }
  return text;
}

// The flag's value as a finite number (heed::Error naming the flag when it is not one).
real finite_number(const Args& a, const std::string& flag, const std::string& s) {
  char* end = nullptr;
  real v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || std::isspace(static_cast<unsigned char>(s[0])) || !std::isfinite(v))
    throw a.error(flag + ": '" + s + "' is not a finite number");
  return v;
}

}  // namespace

real Args::number(const std::string& flag, real fallback, real lo, real hi) const {
  auto it = values_.find(flag);
  if (it == values_.end()) return fallback;
  const real v = finite_number(*this, flag, it->second);
  if (!(v > lo && v <= hi))
    throw error(flag + ": " + it->second + " is out of range (" + shown(lo) + ", " + shown(hi) + "]");
  return v;
}

// (Not number() with a lower end just below lo: -1e-300 is -0 in a float build, and 0 > -0 is false.)
real Args::number_from(const std::string& flag, real fallback, real lo, real hi) const {
  auto it = values_.find(flag);
  if (it == values_.end()) return fallback;
  const real v = finite_number(*this, flag, it->second);
  if (!(v >= lo && v <= hi))
    throw error(flag + ": " + it->second + " is out of range [" + shown(lo) + ", " + shown(hi) + "]");
  return v;
}

std::vector<int64_t> Args::integers(const std::string& flag, const std::vector<int64_t>& fallback, int64_t lo,
                                    int64_t hi) const {
  auto it = values_.find(flag);
  if (it == values_.end()) return fallback;
  std::vector<int64_t> out;
  std::string s = it->second;
  size_t start = 0;
  while (true) {
    size_t comma = s.find(',', start);
    out.push_back(parse_int(flag, s.substr(start, comma - start), lo, hi));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.size() > 1000) throw error(flag + ": more than 1000 values");
  return out;
}

}  // namespace heed
