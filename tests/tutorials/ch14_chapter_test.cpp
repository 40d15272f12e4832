// Chapter 14 (tutorials/14_induction_heads): its README shows what its program prints, and the
// film its phase section writes holds what the chapter says it holds: one frame per measurement,
// each a causal attention pattern (nothing above the diagonal, every row a distribution).
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "tests/support/chapter_check.h"
#include "tests/support/heed_cli.h"  // slurp
#include "tests/support/precision.h"
#include "viz/film.h"

TEST_SUITE("ch14_chapter") {
  TEST_CASE("chapter 14 shows what its program prints" * DOUBLE_ONLY(kChapterTextReason)) {
    check_chapter("tutorials/14_induction_heads");
  }

  TEST_CASE("chapter 14's film: one causal frame per measurement of the 2-layer run") {
    const std::string dir =
        (std::filesystem::temp_directory_path() / ("heed-ch14-" + std::to_string(::getpid()))).string();
    std::filesystem::remove_all(dir);
    const std::string command = runner() + build_dir() + "/tutorial-14 --quick --out " + dir + " phase >/dev/null 2>&1";
    REQUIRE(std::system(command.c_str()) == 0);
    const heed::Film film = heed::read_film(heed::slurp(dir + "/induction_film.html"));
    // --quick: 40 steps measured every 20, and step 0.
    REQUIRE(film.frames.size() == 3);
    const size_t T = film.source.size();
    CHECK(T == 17);  // <bos> and the 8-symbol segment twice
    CHECK(film.reference.back() == "<eos>");
    for (size_t f = 0; f < film.frames.size(); ++f) {
      const heed::FilmFrame& frame = film.frames[f];
      CAPTURE(f);
      CHECK(frame.step == static_cast<int64_t>(20 * f));
      REQUIRE(frame.weights.size() == T);
      for (size_t t = 0; t < T; ++t) {
        double sum = 0;
        for (size_t s = 0; s < T; ++s) {
          if (s > t) CHECK(frame.weights[t][s] == 0);  // the causal mask: no weight on a later position
          sum += frame.weights[t][s];
        }
        CHECK(std::fabs(sum - 1) <= T * 0.0005 + 1e-12);  // the page keeps each weight to the thousandth
      }
    }
    CHECK(std::filesystem::exists(dir + "/phase_change.svg"));
    std::filesystem::remove_all(dir);
  }

  TEST_CASE("chapter 14's program refuses an unknown section, naming the ones it has") {
    const std::string command = runner() + build_dir() + "/tutorial-14 induction 2>&1";
    FILE* p = popen(command.c_str(), "r");
    REQUIRE(p);
    std::string out;
    char buf[512];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int raw = pclose(p);
    CHECK(WIFEXITED(raw));
    CHECK(WEXITSTATUS(raw) == 2);
    CHECK(out.find("unknown argument 'induction'") != std::string::npos);
    CHECK(out.find("causal|sample|repeat|heads|ablate|phase") != std::string::npos);
  }
}
