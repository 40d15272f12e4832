// Chapter 04, checkpoints: our JSON reader and writer (the safetensors header format).
#include <doctest/doctest.h>

#include <bit>
#include <limits>

#include "io/json.h"
#include "tests/support/precision.h"

using namespace heed;

TEST_SUITE("ch04_layers") {

TEST_CASE("json: every kind of value parses, keeps key order and writes back compactly") {
  Json v = parse_json(R"( {"b": [1, -2.5e3, true, false, null], "a": "x", "big": 9007199254740993, "e": {}} )");
  REQUIRE(v.is_object());
  REQUIRE(v.size() == 4);
  CHECK(v.items()[0].first == "b");
  CHECK(v.items()[1].first == "a");
  const Json& b = *v.find("b");
  CHECK(b.as_array()[0].is_int());
  CHECK(b.as_array()[0].as_int() == 1);
  CHECK_FALSE(b.as_array()[1].is_int());
  CHECK(b.as_array()[1].as_real() == -2500);
  CHECK(b.as_array()[2].as_bool());
  CHECK(b.as_array()[4].is_null());
  CHECK(v.find("a")->as_string() == "x");
  CHECK(v.find("big")->as_int() == 9007199254740993LL);  // 2^53 + 1: exact, no double in between
  CHECK(v.find("nope") == nullptr);
  CHECK(v.dump() == R"({"b":[1,-2500.0,true,false,null],"a":"x","big":9007199254740993,"e":{}})");
  CHECK(parse_json(v.dump()) == v);

  // Integers are exact across the whole int64 range; beyond it a number becomes a real.
  CHECK(parse_json("9223372036854775807").as_int() == std::numeric_limits<int64_t>::max());
  CHECK(parse_json("-9223372036854775808").as_int() == std::numeric_limits<int64_t>::min());
  CHECK_FALSE(parse_json("9223372036854775808").is_int());
  CHECK(parse_json("9223372036854775808").as_real() == 9223372036854775808.0);

  // Reals read back bit for bit, including the extremes; a real stays a real ("3.0", not "3").
  // (The float build: the same values where float has them, and float's own extremes.)
  const std::vector<real> reals =
      test::kFloatBuild ? std::vector<real>{real(0.1), real(1) / 3, 3, real(-0.0), 1e-30f, std::numeric_limits<real>::denorm_min(),
                                            std::numeric_limits<real>::max(), 1e21f, -123456.125f}
                        : std::vector<real>{real(0.1), real(1.0 / 3.0), 3, real(-0.0), real(1e-300), real(4.9e-324),
                                            real(1.7976931348623157e308), real(1e21), real(-123456789.125)};
  for (real x : reals) {
    std::string text = Json(x).dump();
    CAPTURE(text);
    Json back = parse_json(text);
    CHECK_FALSE(back.is_int());
    CHECK(test::same_bits(back.as_real(), x));
  }
  CHECK(Json(real(3)).dump() == "3.0");
  // Below the smallest subnormal a number underflows to a signed zero, as strtod does.
  CHECK(test::same_bits(parse_json("-1e-400").as_real(), real(-0.0)));
}

TEST_CASE("json: string escapes, \\u with surrogate pairs, and a writer that escapes") {
  Json s = parse_json(R"("q\"b\\s\/\b\f\n\r\t\u00e9\u20AC\ud83d\ude00.")");
  CHECK(s.as_string() == "q\"b\\s/\b\f\n\r\t\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80.");
  CHECK(json_quote("a\"b\\c\n\x01\x1f\x7f") == R"("a\"b\\c\n\u0001\u001f\u007f")");
  CHECK(json_quote("caf\xC3\xA9 \xF0\x9F\x98\x80") == "\"caf\xC3\xA9 \xF0\x9F\x98\x80\"");  // UTF-8 as is
  std::string every;
  for (int c = 1; c < 128; ++c) every += static_cast<char>(c);
  every += "\xC3\xA9\xF0\x9F\x98\x80";
  CHECK(parse_json(Json(every).dump()).as_string() == every);
  CHECK_THROWS_WITH_AS(Json("bad \xFF").dump(), doctest::Contains("not valid UTF-8"), Error);
  CHECK_THROWS_WITH_AS(Json(std::numeric_limits<real>::quiet_NaN()).dump(), doctest::Contains("non-finite"), Error);
  CHECK_THROWS_WITH_AS(Json::object({{"k", Json(1)}, {"k", Json(2)}}), doctest::Contains("duplicate key \"k\""), Error);
  CHECK_THROWS_WITH_AS(parse_json("[1]").as_string(), doctest::Contains("expected a string, found an array"), Error);
}

TEST_CASE("json: each syntax error names the byte offset and what was expected") {
  struct Case {
    std::string text, message;
  };
  const Case cases[] = {
      {R"({"a" 1})", "json: offset 5: expected ':' after object key"},
      {"", "offset 0: expected a value, found end of input"},
      {"  ", "offset 2: expected a value, found end of input"},
      {"[1, 2] x", "offset 7: expected end of input after the value, found 'x'"},
      {"{} {}", "offset 3: expected end of input"},
      {"[1, 2,]", "offset 6: expected a value, found ']'"},
      {R"({"a": 1,})", "offset 8: expected '\"' to begin an object key, found '}'"},
      {R"({a: 1})", "offset 1: expected '\"' to begin an object key, found 'a'"},
      {R"({"a": 1 "b": 2})", "offset 8: expected ',' or '}' after object member, found '\"'"},
      {"[1 2]", "offset 3: expected ',' or ']' after array element, found '2'"},
      {"[1", "offset 2: expected ',' or ']' after array element, found end of input"},
      {R"("abc)", "offset 0: unterminated string"},
      {R"("a\qb")", "offset 2: invalid escape '\\q' in string"},
      {"\"a\nb\"", "offset 2: control character byte 0x0a in string"},
      {R"("\ud800")", "offset 1: unpaired high surrogate"},
      {R"("\ud800\u0041")", "offset 1: unpaired high surrogate"},
      {R"("\udc00")", "offset 1: unpaired low surrogate"},
      {R"("\u12g4")", "offset 3: expected 4 hex digits after \\u"},
      {"\"\xFF\"", "offset 1: invalid UTF-8 byte 0xff in string"},
      {"\"\xC0\xAF\"", "offset 1: invalid UTF-8"},        // overlong '/'
      {"\"\xED\xA0\x80\"", "offset 1: invalid UTF-8"},    // an encoded surrogate
      {"01", "offset 0: leading zero in number"},
      {"1.", "offset 2: expected a digit after '.'"},
      {"-", "offset 1: expected a digit in number"},
      {"-x", "offset 1: expected a digit in number"},
      {"1e+", "offset 3: expected a digit in exponent"},
      {".5", "offset 0: expected a value, found '.'"},
      {"1e999", "offset 0: number 1e999 is out of range"},
      {"tru", "offset 0: expected 'true'"},
      {"nul", "offset 0: expected 'null'"},
      {"NaN", "offset 0: expected a value, found 'N'"},
      {"// c\n1", "offset 0: expected a value, found '/'"},
      {R"({"a": 1, "a": 2})", "offset 9: duplicate key \"a\""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    CHECK_THROWS_WITH_AS(parse_json(c.text), doctest::Contains(c.message.c_str()), Error);
  }
}

TEST_CASE("json: nesting is limited, so deep input is an error and not a stack overflow") {
  std::string ok = std::string(64, '[') + std::string(64, ']');
  CHECK(parse_json(ok).is_array());
  std::string deep = std::string(65, '[') + std::string(65, ']');
  CHECK_THROWS_WITH_AS(parse_json(deep), doctest::Contains("offset 64: nesting deeper than 64 levels"), Error);
  std::string hostile(1000000, '[');
  CHECK_THROWS_WITH_AS(parse_json(hostile), doctest::Contains("nesting deeper than 64"), Error);
  std::string objects;
  for (int i = 0; i < 70; ++i) objects += "{\"k\":";
  CHECK_THROWS_WITH_AS(parse_json(objects), doctest::Contains("nesting deeper than 64"), Error);
}

}  // TEST_SUITE
