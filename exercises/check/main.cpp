// build/exercise-NN: checks the student's exercises of the chapters linked in (one, normally),
// one line per exercise, then "NN: k of n passed". Exit status 0 only when every one passed.
#include <cstdio>
#include <string>

#include "exercises/check/check.h"

namespace {

// The first line of a message indented for the report; the rest kept under it.
std::string indent(const std::string& s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '\n') out += "      ";
  }
  return out;
}

}  // namespace

int main() {
  using namespace heed::check;
  bool all = true;
  for (const Chapter& c : chapters()) {
    if (c.variant != "student") continue;
    std::printf("exercises of chapter %s (%s/README.md)\n", c.number.c_str(), c.folder.c_str());
    std::vector<Exercise> list = c.make();
    int passed = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      Outcome o = run(list[i]);
      if (o.status == Status::kPassed) ++passed;
      std::printf("  %s.%zu %-24s %s%s%s\n", c.number.c_str(), i + 1, list[i].name.c_str(), status_word(o.status),
                  o.detail.empty() ? "" : ": ", indent(o.detail).c_str());
    }
    std::printf("%s: %d of %zu passed\n", c.number.c_str(), passed, list.size());
    std::fflush(stdout);
    all = all && passed == static_cast<int>(list.size());
  }
  return all ? 0 : 1;
}
