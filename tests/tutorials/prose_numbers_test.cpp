// The check that holds a chapter's prose to the numbers its blocks show.
#include "tests/support/prose_numbers.h"

#include <doctest/doctest.h>

TEST_SUITE("chapter_check") {
  TEST_CASE("prose numbers: a number no block shows is caught, with its line; a rounding of one is not") {
    const std::vector<std::string> readme = {
        "# a chapter",                                   // 1
        "<!-- output: -->",                              // 2
        "```",                                           // 3
        "peak at h_2, 7.4e-02; keys 30.8 33.5 16.0",     // 4
        "```",                                           // 5
        "The peak is 7.4e-2 and the keys reach 16.0,",   // 6: both shown
        "about 34 (33.5 rounds to 34) and 31 (30.8).",   // 7: integers are not read; 30.8 shown
        "The keys grew from 3.0 to 15.8.",               // 8: neither is shown
    };
    std::vector<std::string> m = unquoted_numbers(readme);
    REQUIRE(m.size() == 2);
    CHECK(m[0].find("line 8: the prose quotes 3.0,") == 0);
    CHECK(m[1].find("line 8: the prose quotes 15.8,") == 0);
  }

  TEST_CASE("prose numbers: 15.8 stands for [15.75, 15.85]; stale last digits are caught") {
    auto caught = [](const std::string& shown, const std::string& said) {
      return unquoted_numbers({"<!-- output: x -->", "```", shown, "```", "it is " + said + "."}).size();
    };
    CHECK(caught("15.79", "15.8") == 0);
    CHECK(caught("15.84", "15.8") == 0);
    CHECK(caught("15.86", "15.8") == 1);
    CHECK(caught("16.0", "15.8") == 1);
    CHECK(caught("0.0870", "8.7e-2") == 0);
    CHECK(caught("0.0740", "8.7e-2") == 1);
    CHECK(caught("-0.034", "0.034") == 0);  // the sign is the prose's to drop
  }

  TEST_CASE("prose numbers: a displayed equation (```math) is prose; its numbers are read like the text's") {
    const std::vector<std::string> readme = {
        "<!-- output: -->",                                       // 1
        "```",                                                    // 2
        "weights 0.306 0.074 0.620; output 0.926 1.389",          // 3
        "```",                                                    // 4
        "```math",                                                // 5
        "0.306 \\cdot (1, 0) + 0.074 \\cdot (0, 2) = (0.927, 1.389)",  // 6: 0.927 is not shown
        "```",                                                    // 7
    };
    std::vector<std::string> m = unquoted_numbers(readme);
    REQUIRE(m.size() == 1);
    CHECK(m[0].find("line 6: the prose quotes 0.927,") == 0);
  }

  TEST_CASE("prose numbers: unmarked blocks do not count, not-output comments exempt, section numbers are skipped") {
    const std::vector<std::string> readme = {
        "```",  // an unmarked block shows nothing the check holds
        "0.25",
        "```",
        "<!-- not-output: 2.72 (e, arithmetic in the text) -->",
        "a lead of 1 makes it e = 2.72 times as large; section 3.3, §3.4, App. A.2.2, v1.2.3, exercise 01.2;",
        "a quarter is 0.25.",
    };
    std::vector<std::string> m = unquoted_numbers(readme);
    REQUIRE(m.size() == 1);
    CHECK(m[0].find("line 6: the prose quotes 0.25,") == 0);
  }
}
