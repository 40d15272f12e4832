// Decimal to binary floating point, exactly: the decimal number is a fraction N / M of two whole
// numbers (N = digits * 10^e, M = 1, or N = digits, M = 10^-e), scaled by a power of two until its
// whole part q holds the significand's bits and one more (the rounding bit); the remainder of the
// division says whether anything lies beyond that bit. Whole numbers of any size (Natural, below)
// keep every step exact, so the one rounding is the last one. Only integer arithmetic is used:
// no floating-point operation, no C library, no locale.
#include "io/decimal.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace heed {

namespace {

// A whole number of any size: 32-bit limbs, least significant first, no zero limb on top (zero
// has no limbs). Just the operations the conversion needs.
class Natural {
 public:
  bool is_zero() const { return limbs_.empty(); }

  // The number of bits: floor(log2(n)) + 1, and 0 for zero.
  int64_t bit_count() const {
    if (limbs_.empty()) return 0;
    return 32 * static_cast<int64_t>(limbs_.size() - 1) + std::bit_width(limbs_.back());
  }

  // n = n * m + add
  void multiply_add(uint32_t m, uint32_t add) {
    uint64_t carry = add;
    for (uint32_t& limb : limbs_) {
      uint64_t t = static_cast<uint64_t>(limb) * m + carry;
      limb = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    if (carry) limbs_.push_back(static_cast<uint32_t>(carry));
  }

  // n = n * 10^k, nine decimal places at a time. REQUIRES: k >= 0
  void multiply_pow10(int64_t k) {
    for (; k >= 9; k -= 9) multiply_add(1000000000, 0);
    uint32_t p = 1;
    for (; k > 0; --k) p *= 10;
    multiply_add(p, 0);
  }

  // n = n * 2^k. REQUIRES: k >= 0
  void shift_left(int64_t k) {
    if (limbs_.empty()) return;
    const int bits = static_cast<int>(k % 32);
    if (bits) {
      uint32_t carry = 0;
      for (uint32_t& limb : limbs_) {
        uint32_t out = limb >> (32 - bits);
        limb = (limb << bits) | carry;
        carry = out;
      }
      if (carry) limbs_.push_back(carry);
    }
    limbs_.insert(limbs_.begin(), static_cast<size_t>(k / 32), 0u);
  }

  // n = n - b. REQUIRES: b <= n
  void subtract(const Natural& b) {
    uint32_t borrow = 0;
    for (size_t i = 0; i < limbs_.size(); ++i) {
      uint64_t take = static_cast<uint64_t>(i < b.limbs_.size() ? b.limbs_[i] : 0) + borrow;
      borrow = limbs_[i] < take;
      limbs_[i] = static_cast<uint32_t>(limbs_[i] - take);  // modulo 2^32: adds 2^32 when borrowing
    }
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }

  friend bool operator>=(const Natural& a, const Natural& b) {
    if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() > b.limbs_.size();
    for (size_t i = a.limbs_.size(); i-- > 0;)
      if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] > b.limbs_[i];
    return true;
  }

 private:
  std::vector<uint32_t> limbs_;
};

// Significant digits kept. A number halfway between two doubles has at most 767 significant
// digits, so digits past the 800th cannot move the value across one: all that matters of them is
// whether one is nonzero, and a final '1' digit stands for that.
constexpr size_t kMaxDigits = 800;

}  // namespace

template <class T>
T decimal_to_binary(std::string_view text) {
  using Limits = std::numeric_limits<T>;
  using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  static_assert(Limits::is_iec559 && sizeof(T) == sizeof(Bits), "IEEE 754 binary32 or binary64");
  constexpr int kP = Limits::digits;                          // significand bits: 53 (double), 24 (float)
  constexpr int64_t kLowest = Limits::min_exponent - kP;      // the smallest subnormal is 2^kLowest: -1074, -149
  constexpr uint64_t kInfinity = Limits::max_exponent - Limits::min_exponent + 2;  // its exponent field: 2047, 255
  constexpr int64_t kExponentCap = 100000000;  // |written exponent| saturates here: far past any range

  // 1. The value as digits * 10^exponent, the digits without leading zeros.
  const bool negative = !text.empty() && text[0] == '-';
  size_t i = negative ? 1 : 0;
  std::string digits;
  int64_t exponent = 0;
  bool dropped_nonzero = false;
  auto take = [&](char c, bool after_point) {
    if (digits.empty() && c == '0') {
      if (after_point) --exponent;  // 0.001: each zero after the point is another power of ten down
    } else if (digits.size() < kMaxDigits) {
      digits += c;
      if (after_point) --exponent;
    } else {
      dropped_nonzero = dropped_nonzero || c != '0';
      if (!after_point) ++exponent;  // a dropped digit before the point still counts a power of ten
    }
  };
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) take(text[i], false);
  if (i < text.size() && text[i] == '.')
    for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) take(text[i], true);
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool minus = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    int64_t written = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
      written = std::min(written * 10 + (text[i] - '0'), kExponentCap);
    exponent += minus ? -written : written;
  }
  if (dropped_nonzero) {
    digits += '1';
    --exponent;
  }
  const T zero = negative ? -T(0) : T(0);
  const T infinity = negative ? -Limits::infinity() : Limits::infinity();
  if (digits.empty()) return zero;

  // 2. Out of range either way, judged by the decimal order of magnitude: the value lies in
  // [10^(n + exponent - 1), 10^(n + exponent)) for n digits.
  const int64_t order = static_cast<int64_t>(digits.size()) + exponent;
  if (order - 1 > Limits::max_exponent10) return infinity;  // at least 10^309 (double)
  if (order < Limits::min_exponent10 - Limits::max_digits10 - 2) return zero;  // below 10^-326: under half 2^-1074

  // 3. The fraction N / M, exactly.
  Natural n, m;
  for (size_t at = 0; at < digits.size(); at += 9) {  // nine digits a step
    uint32_t chunk = 0, scale = 1;
    for (size_t j = at; j < digits.size() && j < at + 9; ++j) {
      chunk = chunk * 10 + static_cast<uint32_t>(digits[j] - '0');
      scale *= 10;
    }
    n.multiply_add(scale, chunk);
  }
  m.multiply_add(0, 1);  // m = 1
  if (exponent >= 0) n.multiply_pow10(exponent);
  else m.multiply_pow10(-exponent);

  // 4. Scale by 2^s so that q = floor(N * 2^s / M) has kP + 1 bits: 2^kP <= q < 2^(kP+1), the
  // value being q * 2^-s. From the bit counts, N / M lies in [2^(bits_n - bits_m - 1),
  // 2^(bits_n - bits_m + 1)): the first guess of s gives q in [2^kP, 2^(kP+2)), one halving at
  // most puts it in range. Below the normal range fewer bits are all there is: the last bit
  // kept (2^(1-s)) may not fall below the smallest subnormal's, so s stops at 1 - kLowest.
  int64_t s = (kP + 1) - (n.bit_count() - m.bit_count());
  s = std::min(s, 1 - kLowest);
  if (s >= 0) n.shift_left(s);
  else m.shift_left(-s);
  Natural top = m;  // M * 2^kP: q's first bit is the comparison of N with it
  top.shift_left(kP);
  Natural twice_top = top;
  twice_top.shift_left(1);
  if (n >= twice_top) {  // q would have kP + 2 bits
    m.shift_left(1);
    top = twice_top;
    --s;
  }

  // 5. Long division, one bit of q at a time (kP + 1 of them); what remains in N is the remainder.
  uint64_t q = 0;
  for (int b = 0; b <= kP; ++b) {
    q <<= 1;
    if (n >= top) {
      n.subtract(top);
      q |= 1;
    }
    n.shift_left(1);
  }

  // 6. Round to nearest, ties to even: the last bit of q is worth half the significand's last
  // bit; the remainder says whether the value lies beyond that half.
  uint64_t significand = q >> 1;
  const bool half = q & 1;
  if (half && (!n.is_zero() || (significand & 1))) ++significand;

  // 7. The bits of the result. The significand's last bit is worth 2^(1-s) = 2^(kLowest + k).
  // For the exponent field e of an IEEE number that bit is 2^(kLowest + max(e - 1, 0)), and its
  // bits are e * 2^(kP-1) + (the significand without its leading 1); adding the significand
  // whole, leading 1 included, at k = e - 1 gives the same sum, and for a subnormal (k = 0, no
  // leading 1) the significand is all the bits. A carry from rounding (significand = 2^kP) moves
  // into the exponent field by itself.
  const uint64_t k = static_cast<uint64_t>(1 - s - kLowest);
  if (k >= kInfinity) return infinity;
  const uint64_t bits = (k << (kP - 1)) + significand;
  if (bits >= (kInfinity << (kP - 1))) return infinity;
  const T value = std::bit_cast<T>(static_cast<Bits>(bits));
  return negative ? -value : value;
}

template float decimal_to_binary<float>(std::string_view);
template double decimal_to_binary<double>(std::string_view);

}  // namespace heed
