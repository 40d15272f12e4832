// Chapter 04, checkpoints: decimal text to double and float (io/decimal.h), the JSON reader's
// numbers. Correct rounding is checked three ways: values worked out by hand where rounding is
// hardest, the round trip of everything the JSON writer writes, and the C library's strtod
// (correctly rounded in glibc) on random decimal numbers.
#include <doctest/doctest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>

#include "io/decimal.h"
#include "io/json.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

uint64_t bits_of(double x) { return std::bit_cast<uint64_t>(x); }
uint32_t bits_of(float x) { return std::bit_cast<uint32_t>(x); }

// The shortest text that reads back as x, which is what Json::dump writes.
template <class T>
std::string shortest(T x) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

// Every finite T of random bits (all exponents alike), then the edges of the range.
template <class T, class Bits>
std::vector<T> sample_values(size_t count) {
  using L = std::numeric_limits<T>;
  std::vector<T> out = {T(0), -T(0), L::denorm_min(), L::min(), L::max(), -L::max(), T(1), T(0.1),
                        std::nextafter(L::min(), T(0)), std::nextafter(L::max(), T(0)),
                        std::nextafter(T(1), T(2)), std::nextafter(T(1), T(0))};
  std::mt19937_64 rng(34);
  while (out.size() < count) {
    T x = std::bit_cast<T>(static_cast<Bits>(rng()));
    if (std::isfinite(x)) out.push_back(x);
  }
  return out;
}

}  // namespace

TEST_SUITE("ch04_layers") {

TEST_CASE("decimal: correctly rounded where rounding is hardest (ties, the subnormal edge, overflow)") {
  // 2^53 + 1 lies halfway between the doubles 2^53 and 2^53 + 2: ties go to the even significand.
  CHECK(decimal_to_binary<double>("9007199254740993") == 9007199254740992.0);
  CHECK(decimal_to_binary<double>("9007199254740995") == 9007199254740996.0);
  // Anything past the halfway point goes up, however far out it is: here the 901st significant
  // digit, beyond the 800 the converter keeps, decides.
  const std::string just_past = "9007199254740993." + std::string(884, '0') + "1";
  CHECK(decimal_to_binary<double>(just_past) == 9007199254740994.0);
  CHECK(decimal_to_binary<double>("9007199254740993." + std::string(884, '0')) == 9007199254740992.0);
  // The subnormal edge: 2^-1074 is 4.94065645841246544e-324, half of it 2.47032822920623272e-324.
  CHECK(decimal_to_binary<double>("4.9406564584124654e-324") == std::numeric_limits<double>::denorm_min());
  CHECK(bits_of(decimal_to_binary<double>("2.4703282292062327e-324")) == 0);
  CHECK(decimal_to_binary<double>("2.4703282292062328e-324") == std::numeric_limits<double>::denorm_min());
  CHECK(bits_of(decimal_to_binary<double>("-1e-400")) == bits_of(-0.0));
  // Between the largest subnormal and the smallest normal (the midpoint is 2.2250738585072011360...e-308).
  CHECK(bits_of(decimal_to_binary<double>("2.2250738585072011e-308")) == 0x000FFFFFFFFFFFFFu);
  CHECK(bits_of(decimal_to_binary<double>("2.2250738585072012e-308")) == 0x0010000000000000u);
  // The overflow edge: max is 1.79769313486231570815e308, max + half an ulp 1.79769313486231580794e308.
  CHECK(decimal_to_binary<double>("1.7976931348623158e308") == std::numeric_limits<double>::max());
  CHECK(decimal_to_binary<double>("1.7976931348623159e308") == std::numeric_limits<double>::infinity());
  CHECK(decimal_to_binary<double>("-1e309") == -std::numeric_limits<double>::infinity());
  CHECK(decimal_to_binary<double>("0.1") == 0.1);
  CHECK(decimal_to_binary<double>("0.000001e6") == 1.0);

  // float: 1 + 2^-24 is halfway between 1 and the next float; max + half an ulp is 2^128 - 2^103,
  // a tie whose even neighbour is 2^128, too large.
  CHECK(decimal_to_binary<float>("1.000000059604644775390625") == 1.0f);
  CHECK(decimal_to_binary<float>("1.000000059604644775390626") == std::nextafter(1.0f, 2.0f));
  CHECK(decimal_to_binary<float>("1.4e-45") == std::numeric_limits<float>::denorm_min());
  CHECK(bits_of(decimal_to_binary<float>("7.006492321624085e-46")) == 0);
  CHECK(decimal_to_binary<float>("340282346638528859811704183484516925440") == std::numeric_limits<float>::max());
  CHECK(decimal_to_binary<float>("340282356779733661637539395458142568447") == std::numeric_limits<float>::max());
  CHECK(decimal_to_binary<float>("340282356779733661637539395458142568448") == std::numeric_limits<float>::infinity());
}

TEST_CASE("decimal: every double and float the JSON writer writes reads back bit for bit") {
  size_t checked = 0;
  for (double x : sample_values<double, uint64_t>(20000)) {
    std::string text = shortest(x);
    REQUIRE_MESSAGE(bits_of(decimal_to_binary<double>(text)) == bits_of(x), text);
    char buf[64];  // and with all 17 digits, as %.17g would write it
    auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific, 16);
    REQUIRE_MESSAGE(bits_of(decimal_to_binary<double>(std::string(buf, r.ptr))) == bits_of(x), std::string(buf, r.ptr));
    ++checked;
  }
  for (float x : sample_values<float, uint32_t>(20000)) {
    std::string text = shortest(x);
    REQUIRE_MESSAGE(bits_of(decimal_to_binary<float>(text)) == bits_of(x), text);
    ++checked;
  }
  CHECK(checked == 40000);
  // Through the JSON writer and reader themselves, in this build's real.
  using Bits = std::conditional_t<sizeof(real) == 8, uint64_t, uint32_t>;
  for (real x : sample_values<real, Bits>(2000)) {
    Json back = parse_json(Json(x).dump());
    REQUIRE(back.is_number());
    REQUIRE(test::same_bits(back.as_real(), x));
  }
}

TEST_CASE("decimal: the same as the C library's strtod and strtof on random decimal numbers") {
  // Up to 30 digits, a point anywhere, exponents across both types' ranges and past them.
  std::mt19937_64 rng(3434);
  for (int n = 0; n < 20000; ++n) {
    std::string text = rng() % 2 ? "-" : "";
    const size_t digits = 1 + rng() % 30;
    std::string d(1, static_cast<char>('1' + rng() % 9));
    while (d.size() < digits) d += static_cast<char>('0' + rng() % 10);
    const size_t point = 1 + rng() % digits;  // digits before the point
    text += d.substr(0, point);
    if (point < digits) text += "." + d.substr(point);
    text += "e" + std::to_string(static_cast<int>(rng() % 720) - 360);
    const double expected = std::strtod(text.c_str(), nullptr);
    const float expected_float = std::strtof(text.c_str(), nullptr);
    REQUIRE_MESSAGE(bits_of(decimal_to_binary<double>(text)) == bits_of(expected), text);
    REQUIRE_MESSAGE(bits_of(decimal_to_binary<float>(text)) == bits_of(expected_float), text);
  }
}

TEST_CASE("json: a number past the largest real is out of range, naming it; one past the smallest is a zero") {
  const std::string past_max = test::kFloatBuild ? "3.5e38" : "1.7976931348623159e308";
  CHECK_THROWS_WITH_AS(parse_json("[1, " + past_max + "]"),
                       ("json: offset 4: number " + past_max + " is out of range").c_str(), Error);
  CHECK(test::same_bits(parse_json("1e-99999999999999999999").as_real(), real(0)));
  CHECK(parse_json("0." + std::string(5000, '0') + "1e5001").as_real() == 1);
}

}  // TEST_SUITE
