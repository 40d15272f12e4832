// The exercises (exercises/, make exercises) hold what they promise: build/exercise-selftest runs
// every chapter's checks against the solutions (all pass), the untouched exercise files (all
// "not done yet", none crashes) and the wrong answers of tests/exercises/ (each rejected).
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>

#include "tests/chapter_check.h"
#include "tests/precision.h"

TEST_SUITE("exercises") {
  TEST_CASE("chapter exercises: solutions pass, stubs are not done, wrong answers are rejected" *
            DOUBLE_ONLY(kGradcheckReason)) {  // the checks gradcheck what the student writes
    const std::string program = build_dir() + "/exercise-selftest";
    REQUIRE_MESSAGE(std::filesystem::exists(program), program << " is missing: make test builds it");
    std::string out;
    FILE* p = popen((runner() + program + " 2>&1").c_str(), "r");
    REQUIRE(p);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    int raw = pclose(p);
    int status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    INFO(out);
    CHECK(status == 0);
    CHECK(out.find("0 failures") != std::string::npos);
  }
}
