// make yours-test's comparison of a chapter program's output with what its chapter shows
// (exercises/yours/blocks.awk reads the blocks, exercises/yours/compare.awk compares): the words
// exactly, numbers within 1e-9 of their size, and only the lines exercises/yours/differences names
// excused, each counted. On small texts written here, so each rule is seen to hold and to fail.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

struct Run {
  int status = -1;
  std::string out;
};

Run sh(const std::string& command) {
  Run r;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int raw = pclose(p);
  r.status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

void write(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

// compare.awk on the chapter's text and the program's output, with an excuse pattern.
Run compare(const std::filesystem::path& dir, const std::string& text, const std::string& yours, const std::string& excuse = "") {
  write(dir / "text", text);
  write(dir / "yours", yours);
  return sh("awk -v excuse='" + excuse + "' -f exercises/yours/compare.awk " + (dir / "text").string() + " " +
            (dir / "yours").string());
}

}  // namespace

TEST_SUITE("exercises") {
  TEST_CASE("your heed: a chapter's output is compared with its text, numbers to 1e-9 of their size, excused lines named") {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("heed-yours-cmp-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string text = "loss 2.6043640000 after 40 steps\nweights [0.25, -1.5e-3]\n  T  10:    14 nodes\n";
    // The same: exit 0, nothing excused.
    Run r = compare(dir, text, text);
    CHECK(r.status == 0);
    CHECK(r.out == "excused 0\n");
    // Last-bit differences are the same numbers; the tolerance is relative (1e-12 at least).
    r = compare(dir, text, "loss 2.6043640000000004 after 40 steps\nweights [0.25, -1.5000000001e-3]\n  T  10:    14 nodes\n");
    CHECK(r.status == 0);
    // A difference of 1e-6 is not; the line is shown, as the text has it and as yours does.
    r = compare(dir, text, "loss 2.604365 after 40 steps\nweights [0.25, -1.5e-3]\n  T  10:    14 nodes\n");
    CHECK(r.status == 1);
    CHECK(r.out.find("  line 1: the text: loss 2.6043640000 after 40 steps\n           yours:    loss 2.604365 after 40 steps\n") !=
          std::string::npos);
    // Words must be the same, and so must the number of lines.
    CHECK(compare(dir, text, "loss 2.6043640000 after 41 steps\nweights [0.25, -1.5e-3]\n  T  10:    14 nodes\n").status == 1);
    CHECK(compare(dir, text, "loss 2.6043640000 before 40 steps\nweights [0.25, -1.5e-3]\n  T  10:    14 nodes\n").status == 1);
    r = compare(dir, text, "loss 2.6043640000 after 40 steps\nweights [0.25, -1.5e-3]\n");
    CHECK(r.status == 1);
    CHECK(r.out.find("yours:    (it ends before)") != std::string::npos);
    // An excused line differs and is counted; the excuse covers only the lines it matches.
    const std::string nodes = "^  T +[0-9]+: +[0-9]+ nodes";
    r = compare(dir, text, "loss 2.6043640000 after 40 steps\nweights [0.25, -1.5e-3]\n  T  10:    17 nodes\n", nodes);
    CHECK(r.status == 0);
    CHECK(r.out == "excused 1\n");
    CHECK(compare(dir, text, "loss 2.7 after 40 steps\nweights [0.25, -1.5e-3]\n  T  10:    17 nodes\n", nodes).status == 1);
    // The differences make yours-test excuses: each names its chapter, arguments, pattern and why.
    std::ifstream table("exercises/yours/differences");
    int rows = 0;
    for (std::string line; std::getline(table, line);) {
      if (line.empty() || line[0] == '#') continue;
      ++rows;
      size_t bars = 0;
      for (char c : line) bars += c == '|';
      CHECK_MESSAGE(bars == 3, line);
      CHECK_MESSAGE(line.size() - line.rfind('|') > 30, "the reason is written out: " << line);
    }
    CHECK(rows >= 1);
    std::filesystem::remove_all(dir);
  }

  TEST_CASE("your heed: the output blocks of a chapter are read as make test reads them, pieces joined") {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("heed-yours-blocks-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    write(dir / "README.md",
          "# A chapter\n<!-- output: --quick -->\n```\nfirst\n```\nprose\n<!-- output-full: -->\n```\nlong\n```\n"
          "<!-- output: one -->\n````\n```\ninner\n````\n<!-- not-output: 1.5, and why -->\n<!-- output: --quick -->\n```\nsecond\n```\n"
          "<!-- output: empty -->\nno block\n");
    const Run r = sh("awk -f exercises/yours/blocks.awk " + (dir / "README.md").string());
    CHECK(r.status == 0);
    CHECK(r.out == "@@--quick\nfirst\nsecond\n@@one\n```\ninner\n");
    std::filesystem::remove_all(dir);
  }
}
