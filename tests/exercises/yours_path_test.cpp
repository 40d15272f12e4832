// The reader's path in full (chapter 07, "Your own heed"): make yours-test with every solution in
// place, every chapter program linked and the translation's whole budget, line for line the
// second block of chapter 07's section. About a minute: in the skipped suite "chapters_full",
// which make check-chapters runs (make test runs the reduced form, tests/exercises/exercises_test.cpp).
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "tests/support/chapter_check.h"
#include "tests/support/heed_cli.h"  // slurp

TEST_SUITE("chapters_full" * doctest::skip()) {
  TEST_CASE("chapter 07 shows the reader's whole path: make yours-test on every solution, every chapter, the translation") {
    if (!chapter_chosen("07")) return;  // make check-chapters checks it once
    const std::string dir = build_dir() + "/yours-path";
    const std::string command = "env -u MAKEFLAGS -u MFLAGS ${MAKE:-make} --no-print-directory -s yours-test BUILD=" + build_dir() +
                                " ANSWERS=exercises/solutions YOURS=" + dir + " 2>&1";
    FILE* p = popen(command.c_str(), "r");
    REQUIRE(p);
    std::string out;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int raw = pclose(p);
    INFO(out);
    CHECK((raw != -1 && WIFEXITED(raw) && WEXITSTATUS(raw) == 0));
    CHECK(out.find("your heed translates the seed sentence: yes") != std::string::npos);
    // The block under its comment, line for line (build-yours/ where this test builds elsewhere).
    for (size_t at; (at = out.find(dir + "/")) != std::string::npos;) out.replace(at, dir.size() + 1, "build-yours/");
    const std::string readme = heed::slurp("tutorials/07_additive_attention/README.md");
    const std::string marker = "<!-- the reader's heed (tests/exercises/yours_path_test.cpp holds this block to make yours-test) -->\n```\n";
    const size_t mark = readme.find(marker);
    REQUIRE_MESSAGE(mark != std::string::npos, "chapter 07 lost its block of the full make yours-test");
    const size_t from = mark + marker.size();
    CHECK(readme.substr(from, readme.find("\n```\n", from) + 1 - from) == out);
  }
}
