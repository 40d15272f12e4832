// The layers of docs/architecture.md, held to their rule: a folder includes only from itself and
// the folders below it (arrows point down). io/ sits on tensor/ alone, beside autograd/, so nn/
// and viz/ can both read and write through it. A folder's subfolders belong to it (models/tasks/
// is models/). And no two source files share a name across folders, so a name says which file.
// Runs from the repository root, as make test does.
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
    for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
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

TEST_CASE("layers: no two source files of the library, the tools and the tests share a name") {
  // Two kinds of twins are meant: an op's differentiable form in autograd/ and its kernel in
  // tensor/ (autograd/matmul.cpp over tensor/matmul.cpp), and the chapters' main.cpp and
  // exercises.cpp (the folder is the chapter; they are outside these folders).
  std::map<std::string, std::string> seen;  // file name -> the first path that has it
  int files = 0;
  for (const char* folder : {"tensor", "io", "autograd", "nn", "viz", "models", "tools", "tests"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
      std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
      ++files;
      std::string name = entry.path().filename().string();
      std::string path = entry.path().generic_string();
      auto added = seen.emplace(name, path);  // not a structured binding: CHECK_MESSAGE captures it
      bool op_and_kernel = !added.second && path.rfind("autograd/", 0) == 0 &&
                           added.first->second == "tensor/" + name;
      CHECK_MESSAGE((added.second || op_and_kernel), path, " and ", added.first->second, " share the name ", name,
                    ": rename one");
    }
  }
  CHECK(files > 100);
}

}  // TEST_SUITE
