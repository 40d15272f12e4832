// io/: the layer below nn/ and viz/ that reads and writes bytes. The UTF-8 check both JSON and
// the pictures rely on, whole numbers read one way, JSON quoting in its two forms (strict, and safe inside an HTML script),
// and atomic file writes: a failed write leaves the old file whole, and two writers never share
// a temporary file.
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "io/atomic_file.h"
#include "io/json.h"
#include "io/parse.h"
#include "io/utf8.h"
#include "tests/support/heed_cli.h"  // slurp

using namespace heed;

namespace {

struct TempDir {
  std::filesystem::path path;
  TempDir() : path(std::filesystem::temp_directory_path() / ("heed-io-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
  int entries() const {
    int n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(path)) ++n;
    return n;
  }
};

}  // namespace

TEST_SUITE("io") {

TEST_CASE("utf8_length: RFC 3629's valid sequences, and 0 for overlong, surrogate, truncated, too large") {
  char32_t cp = 0;
  CHECK(utf8_length("a", 0, &cp) == 1);
  CHECK(cp == U'a');
  CHECK(utf8_length("\xC3\xA9", 0, &cp) == 2);  // é
  CHECK(cp == 0xE9);
  CHECK(utf8_length("\xE2\x80\xA8", 0, &cp) == 3);  // U+2028
  CHECK(cp == 0x2028);
  CHECK(utf8_length("\xF0\x9F\x98\x80", 0, &cp) == 4);  // U+1F600
  CHECK(cp == 0x1F600);
  CHECK(utf8_length("\xF4\x8F\xBF\xBF", 0, &cp) == 4);  // U+10FFFF, the last code point
  CHECK(cp == 0x10FFFF);
  for (const char* bad : {"\xC0\xAF", "\xE0\x80\xAF", "\xF0\x80\x80\xAF",  // overlong '/'
                          "\xED\xA0\x80",                                  // surrogate U+D800
                          "\xF4\x90\x80\x80",                              // U+110000
                          "\xE2\x80", "\x80", "\xFF"})                     // truncated, stray, never
    CHECK_MESSAGE(utf8_length(bad, 0) == 0, bad);
  CHECK(utf8_length("ab", 2) == 0);  // past the end
}

TEST_CASE("json_quote: strict refuses invalid UTF-8; the script form replaces it and escapes < > & U+2028") {
  CHECK_THROWS_WITH_AS(json_quote("a\xFF"), doctest::Contains("not valid UTF-8 (byte 1)"), Error);
  CHECK(json_quote("a\xFF", JsonQuoting::kScript) == "\"a?\"");
  CHECK(json_quote("</script>&") == "\"</script>&\"");
  CHECK(json_quote("</script>&", JsonQuoting::kScript) == R"("\u003c/script\u003e\u0026")");
  CHECK(json_quote("a\xE2\x80\xA8" "b", JsonQuoting::kScript) == R"("a\u2028b")");
  // Both forms share the rest: quotes, backslashes, control characters, UTF-8 as it is.
  for (JsonQuoting how : {JsonQuoting::kStrict, JsonQuoting::kScript})
    CHECK(json_quote("\"\\\n\x01 caf\xC3\xA9", how) == "\"\\\"\\\\\\n\\u0001 caf\xC3\xA9\"");
  // What the script form writes is JSON that reads back as the text (invalid bytes aside).
  CHECK(parse_json(json_quote("<b> & \xE2\x80\xA9", JsonQuoting::kScript)).as_string() == "<b> & \xE2\x80\xA9");
}

TEST_CASE("parse_int64: '-' and digits only, within the range; the message names what and the text") {
  CHECK(parse_int64("12", "n") == 12);
  CHECK(parse_int64("-7", "n") == -7);
  CHECK(parse_int64("007", "n") == 7);
  CHECK(parse_int64("9223372036854775807", "n") == INT64_MAX);
  CHECK(parse_int64("-9223372036854775808", "n") == INT64_MIN);
  CHECK(parse_int64("5", "n", 5, 5) == 5);
  for (const char* bad : {"12abc", " 12", "12 ", "+12", "", "-", "1e3", "1.5", "0x10", "ten", "1,2"}) {
    std::string says = "--steps: '" + std::string(bad) + "' is not a whole number";
    CHECK_THROWS_WITH_AS(parse_int64(bad, "--steps"), says.c_str(), Error);
  }
  CHECK_THROWS_WITH_AS(parse_int64("9223372036854775808", "x"),
                       "x: 9223372036854775808 is out of range [-9223372036854775808, 9223372036854775807]", Error);
  CHECK_THROWS_WITH_AS(parse_int64("-99999999999999999999", "x", 0, 10), "x: -99999999999999999999 is out of range [0, 10]",
                       Error);
  CHECK_THROWS_WITH_AS(parse_int64("0", "--hidden", 1, 4096), "--hidden: 0 is out of range [1, 4096]", Error);
  CHECK_THROWS_WITH_AS(parse_int64("4097", "--hidden", 1, 4096), "--hidden: 4097 is out of range [1, 4096]", Error);
}

TEST_CASE("write_text_file: replaces the file whole, leaves no temporary file, refuses a folder") {
  TempDir dir;
  std::string path = dir.file("picture.svg");
  write_text_file(path, "first");
  write_text_file(path, "<svg/>\n");
  CHECK(slurp(path) == "<svg/>\n");
  CHECK(dir.entries() == 1);
  CHECK_THROWS_WITH_AS(write_text_file(dir.path.string(), "x"), doctest::Contains("is a folder"), Error);
  std::string missing = dir.file("missing/x.svg");
  CHECK_THROWS_WITH_AS(write_text_file(missing, "x"),
                       doctest::Contains(("write_text_file: " + missing + ": cannot create a temporary file").c_str()),
                       Error);
  CHECK(dir.entries() == 1);
}

TEST_CASE("write_text_file: a write that fails leaves the old file intact and no temporary file") {
  TempDir dir;
  std::string path = dir.file("notes.txt");
  write_text_file(path, "old content\n");

  SUBCASE("failing just before the rename") {
    std::string temp;
    auto hook = [&](const std::string& t) {
      temp = t;
      CHECK(slurp(t) == "new content\n");  // written and fsynced, not yet in place
      throw Error("simulated crash");
    };
    CHECK_THROWS_WITH_AS(write_text_file(path, "new content\n", hook), "simulated crash", Error);
    CHECK_FALSE(std::filesystem::exists(temp));
  }
  SUBCASE("failing half-way through the data (the file size limit: EFBIG, even for root)") {
    struct rlimit old_limit {};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
    auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails instead of killing
    struct rlimit small = old_limit;
    small.rlim_cur = 4;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    bool threw = false;
    std::string message;
    try {
      write_text_file(path, std::string(100, 'n'));
    } catch (const Error& e) {
      threw = true;
      message = e.what();
    }
    ::setrlimit(RLIMIT_FSIZE, &old_limit);
    std::signal(SIGXFSZ, old_handler);
    CHECK(threw);
    CHECK(message.find("cannot write the temporary file") != std::string::npos);
  }
  SUBCASE("a read-only folder (skipped as root, whom permissions do not stop)") {
    if (::geteuid() != 0) {
      std::filesystem::permissions(dir.path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
      CHECK_THROWS_WITH_AS(write_text_file(path, "new content\n"), doctest::Contains("cannot create a temporary file"),
                           Error);
      std::filesystem::permissions(dir.path, std::filesystem::perms::owner_all);
    }
  }
  CHECK(slurp(path) == "old content\n");
  CHECK(dir.entries() == 1);
}

TEST_CASE("AtomicFile: two writers of one path never share a temporary file, and one whole file wins") {
  TempDir dir;
  std::string path = dir.file("shared.txt");
  {
    AtomicFile a(path, "test"), b(path, "test");
    CHECK(a.temp_path() != b.temp_path());
    CHECK(a.temp_path() != path + ".tmp");
    a.write("aaaa", 4);
    b.write("bb", 2);
    b.commit();
    CHECK(slurp(path) == "bb");
    a.commit();
    CHECK(slurp(path) == "aaaa");  // each rename put a whole file in place
  }
  CHECK(dir.entries() == 1);

  // Writers on several threads at once: the file ends as one writer's text, whole.
  std::vector<std::string> texts;
  for (int w = 0; w < 4; ++w) texts.push_back(std::string(4096, static_cast<char>('a' + w)));
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([&, w] {
      for (int k = 0; k < 10; ++k) write_text_file(path, texts[w]);
    });
  for (auto& t : writers) t.join();
  std::string final_text = slurp(path);
  CHECK(std::find(texts.begin(), texts.end(), final_text) != texts.end());
  CHECK(dir.entries() == 1);
}

}  // TEST_SUITE
