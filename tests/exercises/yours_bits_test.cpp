// Your own heed, trained in full (exercises/README.md, "Your own heed"): built on the solutions
// (exercises/solutions/), build-yours/heed's default `train --task reverse --model additive` of
// 3000 steps must save the very bytes heed's own does. The solutions compute in heed's order
// (heed's exp, log and pow, its sums fused with std::fma: each says so where it matters), so every
// step rounds as heed's does; a solution in another order drifts by a last bit a step, and after
// thousands of steps of a chaotic trainer the final loss differs in its fifth digit.
//
// Three pieces are left out: context (07.3), gru (05.1) and additive (07.1). Their solutions are
// compositions of autograd ops (a product, then a sum), where heed's weighted_sum, gru_step and
// additive_score are fused ops (nn/attention.cpp, nn/rnn_cell.cpp) that round once with std::fma
// where the composition rounds twice, and add their gradients in place where the graph adds a
// tensor per node. No composition of ops rounds as they do; those three give heed's losses to
// about 1e-16 a step (make yours-test compares 40 steps to 1e-9), not heed's bits over 3000.
//
// About a minute (two trainings at once): in the skipped suite "chapters_full", which make
// check-chapters runs, beside chapter 07's other long check (tests/exercises/yours_path_test.cpp).
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdio>
#include <set>
#include <sstream>
#include <string>

#include "tests/support/chapter_check.h"
#include "tests/support/heed_cli.h"  // slurp, Scratch

namespace {

// A shell command's status and its stdout and stderr together.
int shell(const std::string& command, std::string& out) {
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int raw = pclose(p);
  return raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

}  // namespace

TEST_SUITE("chapters_full" * doctest::skip()) {
  TEST_CASE("your heed on the solutions trains reverse to heed's very bits: 3000 steps, the same checkpoint") {
    if (!chapter_chosen("07")) return;  // make check-chapters checks it once
    // Every piece of exercises/yours/pieces but the three fused ones (above).
    const std::set<std::string> fused = {"context", "gru", "additive"};
    std::istringstream table(heed::slurp("exercises/yours/pieces"));
    std::string line, pieces;
    int count = 0;
    while (std::getline(table, line)) {
      std::istringstream words(line);
      std::string name;
      if (!(words >> name) || name[0] == '#' || fused.count(name)) continue;
      pieces += (pieces.empty() ? "" : " ") + name;
      ++count;
    }
    REQUIRE(count >= 21);
    const std::string dir = build_dir() + "/yours-bits";
    std::string built;
    const int made = shell("env -u MAKEFLAGS -u MFLAGS YOURS_PIECES='" + pieces + "' ${MAKE:-make} --no-print-directory -s yours BUILD=" +
                               build_dir() + " ANSWERS=exercises/solutions YOURS=" + dir + " YOURS_CHAPTERS=",
                           built);
    INFO(built);
    REQUIRE(made == 0);
    REQUIRE(built.find(std::to_string(count) + " of ") != std::string::npos);

    // The default run (3000 steps) on both, at once: one core each.
    heed::Scratch s("yours-bits");
    const std::string args = " train --task reverse --model additive --json --save ";
    const std::string heeds = runner() + build_dir() + "/heed" + args + s.path("heed.safetensors") + " >" +
                              s.path("heed.out") + " 2>&1 & " + runner() + dir + "/heed" + args +
                              s.path("yours.safetensors") + " >" + s.path("yours.out") + " 2>&1; y=$?; wait $!; h=$?; " +
                              "[ $h -eq 0 ] && [ $y -eq 0 ]";
    std::string ran;
    CHECK(shell(heeds, ran) == 0);
    const std::string theirs = heed::slurp(s.path("heed.out")), mine = heed::slurp(s.path("yours.out"));
    INFO("heed: " << theirs.substr(theirs.rfind('\n', theirs.size() - 2) + 1));
    INFO("yours: " << mine.substr(mine.rfind('\n', mine.size() - 2) + 1));
    const std::string a = heed::slurp(s.path("heed.safetensors")), b = heed::slurp(s.path("yours.safetensors"));
    REQUIRE(!a.empty());
    CHECK(a.size() == b.size());
    CHECK_MESSAGE(a == b, "the checkpoints differ: a solution no longer computes in heed's order");
  }
}
