// Programs a test needs from the system (chromium, script, pkg-config): where one is missing, the
// test says it was skipped and why, and passes, so that make test runs anywhere. In CI, which
// installs every one of them (.ci/run), a skip would hide a test that never ran: there
// HEED_REQUIRE_TOOLS=1 turns "skipped: tool missing" into a failure. (HEED_REQUIRE_TORCH does the
// same for the PyTorch tests, through python_or_skip.)
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

// The first interpreter that imports torch: $HEED_PYTHON, python3, then Debian's own (a
// python3 of pyenv or a virtualenv first on PATH does not see Debian's packages); or "" after
// saying the test is skipped (a failure under HEED_REQUIRE_TORCH, which CI sets).
inline std::string python_or_skip() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("HEED_PYTHON")) candidates.push_back(env);
  candidates.push_back("python3");
  candidates.push_back("/usr/bin/python3");
  for (const std::string& py : candidates)
    if (std::system((py + " -c 'import torch' >/dev/null 2>&1").c_str()) == 0) return py;
  REQUIRE_MESSAGE(std::getenv("HEED_REQUIRE_TORCH") == nullptr, "HEED_REQUIRE_TORCH is set but no python3 imports torch");
  MESSAGE("skipped: no python3 with torch (apt-get install python3-torch), so the PyTorch loader is not run");
  return "";
}

}  // namespace heed::test
