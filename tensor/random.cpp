#include "tensor/random.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "tensor/math.h"

namespace heed {

namespace {

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Generator::Generator(uint64_t seed) {
  for (uint64_t& s : s_) s = splitmix64(seed);
}

// xoshiro256** (Blackman and Vigna).
uint64_t Generator::next_u64() {
  uint64_t result = rotl(s_[1] * 5, 7) * 9;
  uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

real Generator::uniform() { return static_cast<real>(next_u64() >> 11) * 0x1.0p-53; }

real Generator::uniform(real lo, real hi) { return std::fma(hi - lo, uniform(), lo); }  // one rounding, as everywhere

real Generator::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  real u1 = uniform();
  while (u1 <= 0) u1 = uniform();  // log(0) is not allowed
  real u2 = uniform();
  real r = std::sqrt(-2 * math::log(u1));
  real theta = 2 * 3.14159265358979323846 * u2;
  spare_ = r * math::sin(theta);
  has_spare_ = true;
  return r * math::cos(theta);
}

int64_t Generator::randint(int64_t lo, int64_t hi) {
  if (hi < lo) throw Error("randint: empty range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  // In unsigned arithmetic: hi - lo overflows int64_t for ranges wider than half of it.
  uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
  if (range == 0) return static_cast<int64_t>(next_u64());  // the full 64-bit range
  // Rejection sampling: drop the top partial copy of [0, range) so every value is equally likely.
  uint64_t limit = UINT64_MAX - UINT64_MAX % range;
  uint64_t x;
  do x = next_u64();
  while (x >= limit);
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + x % range);
}

Generator Generator::split() { return Generator(next_u64()); }

std::string Generator::state() const {
  std::string out;
  for (uint64_t s : s_) out += std::to_string(s) + " ";
  if (!has_spare_) return out + "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", static_cast<double>(spare_));  // hex: exact
  return out + buf;
}

Generator Generator::from_state(const std::string& text) {
  auto fail = [&]() -> Error {
    return Error("Generator: state '" + text.substr(0, 120) + "' is not 4 unsigned integers and a spare");
  };
  std::istringstream in(text);
  Generator g;
  std::string word;
  for (uint64_t& s : g.s_) {
    if (!(in >> word) || word.empty() || word.size() > 20 || word.find_first_not_of("0123456789") != std::string::npos)
      throw fail();
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(word.c_str(), &end, 10);
    if (errno != 0 || *end != '\0') throw fail();
    s = static_cast<uint64_t>(v);
  }
  if (!(in >> word)) throw fail();
  if (word != "-") {
    char* end = nullptr;
    double v = std::strtod(word.c_str(), &end);
    if (*end != '\0' || !std::isfinite(v)) throw fail();
    g.has_spare_ = true;
    g.spare_ = static_cast<real>(v);
  }
  if (in >> word) throw fail();
  if ((g.s_[0] | g.s_[1] | g.s_[2] | g.s_[3]) == 0) throw fail();  // xoshiro's one forbidden state
  return g;
}

}  // namespace heed
