// The build itself: any CXXFLAGS builds (-O0 included, whose unoptimised kernel sets once shared a
// function with every other file and were refused), and a change of compiler flags rebuilds what
// was built with the old ones (the flags stamp, $(BUILD)/flags). make runs on a scratch BUILD
// folder, a file or two at a time. Also HEED_REQUIRE_TOOLS (tests/support/tools.h): a test whose program
// is missing fails under it rather than skip.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/support/chapter_check.h"  // build_dir
#include "tests/support/heed_cli.h"

using namespace heed;
namespace fs = std::filesystem;

namespace {

// make as a user runs it from the repository root (not the make running these tests).
std::string make(const std::string& build, const std::string& args) {
  return "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory BUILD='" + build + "' " + args;
}

}  // namespace

TEST_SUITE("build") {
  TEST_CASE("make: CXXFLAGS='-O0 -g' builds the kernel sets; a change of flags compiles again, the same flags do not") {
    Scratch s("build-flags");
    const std::string b = s.path("b");
    const std::string real_o = b + "/obj/tensor/real.o";
#if defined(__x86_64__)
    const std::string kernel_o = b + "/obj/tensor/gemm_kernel.avx2.o";  // a set that is not the target's own
#else
    const std::string kernel_o = b + "/obj/tensor/gemm_kernel.portable.o";
#endif
    Shell o0 = sh(s, ".", make(b, "CXXFLAGS='-O0 -g' " + real_o + " " + kernel_o));
    INFO(o0.out);
    REQUIRE(o0.status == 0);
    CHECK(o0.out.find("defines code other files share") == std::string::npos);
    CHECK(fs::exists(kernel_o));

    Shell again = sh(s, ".", make(b, "CXXFLAGS='-O0 -g' " + real_o));
    INFO(again.out);
    CHECK(again.status == 0);
    CHECK(again.out.find("tensor/real.cpp") == std::string::npos);  // up to date: nothing compiled

    Shell changed = sh(s, ".", make(b, "CXXFLAGS='-O1' " + real_o));
    INFO(changed.out);
    CHECK(changed.status == 0);
    CHECK(changed.out.find("-O1 -c tensor/real.cpp") != std::string::npos);  // compiled again, with -O1
    CHECK(slurp(b + "/flags").find("-O1") != std::string::npos);
  }

  TEST_CASE("HEED_REQUIRE_TOOLS: a test whose program is missing fails, where it would otherwise say skipped") {
    Scratch s("require-tools");
    // The browser test with no chromium to be found (an empty PATH), with and without the switch.
    // (A runner, qemu for ARM64, is found before PATH is emptied.)
    std::string r = runner();
    if (!r.empty()) r = "\"$(command -v " + r.substr(0, r.find(' ')) + ")\"" + r.substr(r.find(' '));
    const std::string run =
        "PATH=/nonexistent " + r + build_dir() + "/tests --no-intro -tc='html_film in headless Chromium*'";
    Shell skipped = sh(s, ".", "env -u HEED_REQUIRE_TOOLS " + run);
    INFO(skipped.out);
    CHECK(skipped.status == 0);
    CHECK(skipped.out.find("skipped: chromium is missing") != std::string::npos);
    Shell failed = sh(s, ".", "env HEED_REQUIRE_TOOLS=1 " + run);
    INFO(failed.out);
    CHECK(failed.status != 0);
    CHECK(failed.out.find("HEED_REQUIRE_TOOLS is set but chromium is missing") != std::string::npos);
  }
}
