// The layers of docs/architecture.md, held to their rule: a folder includes only from itself and
// the folders below it (arrows point down). io/ sits on tensor/ alone, beside autograd/, so nn/
// and viz/ can both read and write through it. Runs from the repository root, as make test does.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

namespace {

// Each folder and the folders its files may include from (besides itself).
const std::map<std::string, std::set<std::string>> kBelow = {
    {"tensor", {}},
    {"io", {"tensor"}},
    {"autograd", {"tensor"}},
    {"nn", {"tensor", "io", "autograd"}},
    {"viz", {"tensor", "io", "autograd", "nn"}},
    {"models", {"tensor", "io", "autograd", "nn", "viz"}},
    {"tools", {"tensor", "io", "autograd", "nn", "viz", "models"}},
};

}  // namespace

TEST_SUITE("io") {

TEST_CASE("layers: every #include in tensor/ io/ autograd/ nn/ viz/ models/ tools/ points down") {
  int files = 0;
  for (const auto& layer : kBelow) {
    const auto& folder = layer.first;  // not a structured binding: CHECK_MESSAGE captures it (clang < 16)
    const auto& below = layer.second;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
      std::string ext = entry.path().extension().string();
      if (ext != ".h" && ext != ".cpp") continue;
      ++files;
      std::ifstream in(entry.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        if (line.rfind("#include \"", 0) != 0) continue;
        std::string target = line.substr(10, line.find('"', 10) - 10);
        std::string from = target.substr(0, target.find('/'));
        if (target.find('/') == std::string::npos || from == folder) continue;
        CHECK_MESSAGE(below.count(from) == 1, entry.path().string(), ":", n, ": ", folder, "/ includes ", target,
                      ", from a folder that is not below it");
      }
    }
  }
  CHECK(files > 50);  // the folders were found: the test runs from the repository root
}

}  // TEST_SUITE
