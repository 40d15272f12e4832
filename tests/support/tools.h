// Programs a test needs from the system (chromium, script, pkg-config): where one is missing, the
// test says it was skipped and why, and passes, so that make test runs anywhere. In CI, which
// installs every one of them (.ci/run), a skip would hide a test that never ran: there
// HEED_REQUIRE_TOOLS=1 turns "skipped: tool missing" into a failure. (HEED_REQUIRE_TORCH does the
// same for the PyTorch loader's test, tests/io/ch04_pytorch_test.cpp.)
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace heed::test {

inline bool have_program(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

// False when every program is there. Otherwise says that `what` is skipped and which program is
// missing (with the package to install), and returns true, so the test returns; under
// HEED_REQUIRE_TOOLS the test fails instead.
inline bool tools_missing(const std::vector<std::string>& programs, const std::string& what,
                          const std::string& install) {
  std::string missing;
  for (const std::string& p : programs)
    if (!have_program(p)) missing += (missing.empty() ? "" : ", ") + p;
  if (missing.empty()) return false;
  REQUIRE_MESSAGE(std::getenv("HEED_REQUIRE_TOOLS") == nullptr,
                  "HEED_REQUIRE_TOOLS is set but " << missing << " is missing, so " << what << " cannot run");
  MESSAGE("skipped: " << missing << " is missing (" << install << "), so " << what << " is not run");
  return true;
}

}  // namespace heed::test
