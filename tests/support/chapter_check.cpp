// The chapter check (see chapter_check.h), and the skipped suite "chapters_full" that checks the
// long runs of every chapter.
#include "tests/support/chapter_check.h"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "tests/support/heed_cli.h"  // slurp
#include "tests/support/prose_numbers.h"
#include "tests/support/precision.h"

namespace {

// A fenced block of a README with the marker line right above it.
struct Block {
  std::string kind;                // "output", "output-full" or "code"
  std::string arg;                 // the program's arguments, or the quoted file's path
  int line = 0;                    // 1-based line of the marker
  std::vector<std::string> lines;  // the block's contents, without the fences
  std::vector<int> pieces;         // the lines of later blocks with the same marker, joined to this one
};

std::vector<std::string> read_lines(const std::string& path, bool& ok) {
  std::ifstream in(path);
  ok = static_cast<bool>(in);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The number of backticks opening a fence (0 when the line is not one).
size_t fence_length(const std::string& line) {
  std::string t = trim(line);
  size_t n = 0;
  while (n < t.size() && t[n] == '`') ++n;
  return n >= 3 ? n : 0;
}

// A marker line is `<!-- KIND: ARG -->`, KIND made of lower-case letters and '-'.
bool parse_marker(const std::string& line, std::string& kind, std::string& arg) {
  std::string t = trim(line);
  if (t.size() < 7 || t.compare(0, 4, "<!--") != 0 || t.compare(t.size() - 3, 3, "-->") != 0) return false;
  std::string inner = trim(t.substr(4, t.size() - 7));
  size_t k = 0;
  while (k < inner.size() && (std::islower(static_cast<unsigned char>(inner[k])) || inner[k] == '-')) ++k;
  if (k == 0 || k >= inner.size() || inner[k] != ':') return false;
  kind = inner.substr(0, k);
  arg = trim(inner.substr(k + 1));
  return true;
}

// Every marked block of the README at `path`. A marker that marks nothing, a block that never
// closes or an unknown marker above a block is a failed check: a typo must not stop checking.
std::vector<Block> marked_blocks(const std::string& path) {
  bool ok = false;
  std::vector<std::string> lines = read_lines(path, ok);
  INFO("reading " << path);
  REQUIRE_MESSAGE(ok, path << " cannot be read (tests run from the repository root)");
  std::vector<Block> blocks;
  for (size_t i = 0; i < lines.size(); ++i) {
    Block b;
    if (!parse_marker(lines[i], b.kind, b.arg)) continue;
    b.line = static_cast<int>(i) + 1;
    std::string where = path + ":" + std::to_string(b.line);
    size_t open = i + 1 < lines.size() ? fence_length(lines[i + 1]) : 0;
    if (b.kind != "output" && b.kind != "output-full" && b.kind != "code") {
      // Any other `<!-- word: ... -->` is an ordinary comment, unless it sits right above a
      // fenced block, where it is most likely a mistyped marker.
      if (open) FAIL_CHECK(where << ": unknown marker `" << b.kind << ":` (use output, output-full or code)");
      continue;
    }
    if (open == 0) {
      FAIL_CHECK(where << ": the marker is not followed by a fenced block on the next line");
      continue;
    }
    size_t j = i + 2;
    while (j < lines.size() && !(fence_length(lines[j]) >= open && trim(lines[j]).find_first_not_of('`') ==
                                                                         std::string::npos))
      b.lines.push_back(lines[j++]);
    if (j == lines.size()) {
      FAIL_CHECK(where << ": the fenced block never closes");
      break;
    }
    blocks.push_back(std::move(b));
    i = j;
  }
  return blocks;
}

// "tutorials/01_tensors" -> "build/tutorial-01" (or $HEED_BUILD/tutorial-01).
std::string program_of(const std::string& dir) {
  std::string base = std::filesystem::path(dir).lexically_normal().filename().string();
  if (base.empty()) base = std::filesystem::path(dir).parent_path().filename().string();
  REQUIRE_MESSAGE((base.size() >= 2 && std::isdigit(static_cast<unsigned char>(base[0])) &&
                   std::isdigit(static_cast<unsigned char>(base[1]))),
                  dir << ": a chapter directory starts with two digits, like tutorials/01_tensors");
  return build_dir() + "/tutorial-" + base.substr(0, 2);
}

// Runs `command` and returns its stdout; `status` gets its exit status (-1 if it did not exit).
std::string run(const std::string& command, int& status) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) {
    status = -1;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int raw = pclose(p);
  status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// Where `shown` (the README's block) and `printed` (the program's stdout) first differ.
std::string first_difference(const std::vector<std::string>& shown, const std::string& printed) {
  std::vector<std::string> got = split_lines(printed);
  size_t k = 0;
  while (k < shown.size() && k < got.size() && shown[k] == got[k]) ++k;
  std::ostringstream os;
  if (k == shown.size() && k == got.size()) {
    os << "every line agrees, but the program's output does not end with exactly one newline";
    return os.str();
  }
  os << "first difference at line " << k + 1 << " of the block:\n"
     << "    README : " << (k < shown.size() ? "\"" + shown[k] + "\"" : "(the block has ended)") << "\n"
     << "    program: " << (k < got.size() ? "\"" + got[k] + "\"" : "(the output has ended)") << "\n"
     << "  (the block has " << shown.size() << " lines, the program printed " << got.size() << ")";
  return os.str();
}

void check_output_block(const std::string& readme, const std::string& program, const Block& b,
                        std::map<std::string, std::string>& cache) {
  std::string command = runner() + program + (b.arg.empty() ? "" : " " + b.arg);
  std::string also;
  for (int at : b.pieces) also += (also.empty() ? "" : ", ") + std::to_string(at);
  INFO(readme << ":" << b.line << ": the block" << (also.empty() ? "" : " (joined with those at lines " + also + ")")
              << " shows the output of `" << command << "`");
  if (!cache.count(command)) {
    // The program's stderr (progress lines) is kept apart, and shown only if it fails, so that
    // make test prints its summary alone.
    const std::string err_file = (std::filesystem::temp_directory_path() /
                                  ("heed-chapter-" + std::to_string(getpid()) + ".stderr")).string();
    int status = 0;
    cache[command] = run(command + " 2>" + err_file, status);
    if (status != 0) FAIL_CHECK("`" << command << "` exited with status " << status << "; its stderr:\n" << heed::slurp(err_file));
    std::filesystem::remove(err_file);
  }
  const std::string& printed = cache[command];
  std::string shown;
  for (const std::string& line : b.lines) shown += line + "\n";
  if (shown != printed) FAIL_CHECK(first_difference(b.lines, printed));
  else CHECK(shown == printed);
}

void check_code_block(const std::string& readme, const Block& b) {
  INFO(readme << ":" << b.line << ": the block quotes " << b.arg);
  if (b.lines.empty()) {
    FAIL_CHECK("the block is empty, so it quotes nothing");
    return;
  }
  bool ok = false;
  std::vector<std::string> file = read_lines(b.arg, ok);
  if (!ok) {
    FAIL_CHECK(b.arg << " cannot be read (paths are relative to the repository root)");
    return;
  }
  // The longest run of the block's lines found contiguously in the file, for the message.
  size_t best = 0, best_at = 0;
  for (size_t at = 0; at < file.size() && best < b.lines.size(); ++at) {
    size_t k = 0;
    while (k < b.lines.size() && at + k < file.size() && file[at + k] == b.lines[k]) ++k;
    if (k > best) {
      best = k;
      best_at = at;
    }
  }
  if (best == b.lines.size()) {
    CHECK(best == b.lines.size());
    return;
  }
  std::ostringstream os;
  os << "the block's " << b.lines.size() << " lines are not contiguous lines of " << b.arg << ":\n";
  if (best == 0)
    os << "    its first line \"" << b.lines[0] << "\" is nowhere in the file";
  else
    os << "    its first " << best << " lines match at line " << best_at + 1 << ", then\n"
       << "    README: \"" << b.lines[best] << "\"\n"
       << "    file  : " << (best_at + best < file.size() ? "\"" + file[best_at + best] + "\"" : "(end of file)");
  FAIL_CHECK(os.str());
}

// Checks the blocks of the given kinds and returns every marked block of the chapter.
std::vector<Block> check_blocks(const std::string& dir, const std::set<std::string>& kinds) {
  std::string readme = dir + "/README.md";
  std::string program = program_of(dir);
  std::vector<Block> blocks = marked_blocks(readme);
  std::map<std::string, std::string> cache;  // a program run once per distinct ARGS
  bool needs_program = false;
  for (const Block& b : blocks) needs_program = needs_program || (kinds.count(b.kind) && b.kind != "code");
  if (needs_program && !std::filesystem::exists(program)) {
    FAIL_CHECK(program << " is missing: build it with `make " << program << "`");
    return blocks;
  }
  // Output blocks with the same marker are one output, shown in pieces next to the text that
  // explains each: joined in order, they must be the program's output.
  std::vector<Block> joined;
  std::map<std::string, size_t> group;  // kind + ARGS -> index in joined
  for (const Block& b : blocks) {
    if (!kinds.count(b.kind)) continue;
    if (b.kind == "code") {
      check_code_block(readme, b);
      continue;
    }
    const std::string key = b.kind + ":" + b.arg;
    if (!group.count(key)) {
      group[key] = joined.size();
      joined.push_back(b);
    } else {
      Block& j = joined[group[key]];
      j.lines.insert(j.lines.end(), b.lines.begin(), b.lines.end());
      j.pieces.push_back(b.line);
    }
  }
  for (const Block& j : joined) check_output_block(readme, program, j, cache);
  return blocks;
}

}  // namespace

std::string build_dir() {
  const char* dir = std::getenv("HEED_BUILD");
  return dir && *dir ? dir : "build";
}

bool chapter_chosen(const std::string& nn) {
  auto listed = [&nn](const char* env) { return ("," + std::string(env) + ",").find("," + nn + ",") != std::string::npos; };
  const char* only = std::getenv("HEED_CHAPTERS");
  const char* except = std::getenv("HEED_CHAPTERS_EXCEPT");
  return (!only || listed(only)) && (!except || !listed(except));
}

bool make_builds_here() {
  const char* makes = std::getenv("HEED_MAKES");
  return build_dir() == "build" || (makes && *makes);
}

std::string runner() {
  const char* run = std::getenv("HEED_RUN");
  return run && *run ? std::string(run) + " " : "";
}

void check_chapter(const std::string& dir) {
  // A chapter that marks nothing would pass without checking anything.
  bool any = false;
  for (const Block& b : check_blocks(dir, {"output", "code"})) any = any || b.kind != "output-full";
  CHECK_MESSAGE(any, dir << "/README.md marks no output or code block, so nothing in it is checked");
  // A number the prose quotes is one a checked block shows.
  bool ok = false;
  std::vector<std::string> lines = read_lines(dir + "/README.md", ok);
  for (const std::string& m : unquoted_numbers(lines)) FAIL_CHECK(dir << "/README.md " << m);
}

void check_chapter_full(const std::string& dir) { check_blocks(dir, {"output-full"}); }

std::vector<std::string> draw_figures(const std::string& dir, const std::string& into) {
  std::filesystem::create_directories(into);
  int status = 0;
  // Chapter 09's program draws its untrained heatmap in a section of its own, into --out DIR.
  const std::string args = dir.find("09_") != std::string::npos ? " untrained --out " : " figures ";
  std::string out = run(runner() + program_of(dir) + args + into, status);
  INFO("`" << program_of(dir) << args << into << "` printed:\n" << out);
  CHECK_MESSAGE(status == 0, program_of(dir) << args << "exited with status " << status);
  std::vector<std::string> names;
  for (const std::string& line : split_lines(out))
    if (line.rfind("wrote ", 0) == 0) names.push_back(std::filesystem::path(line.substr(6)).filename().string());
  return names;
}

void check_figures(const std::string& dir) {
  const std::string into = (std::filesystem::temp_directory_path() /
                            ("heed-figures-" + std::filesystem::path(dir).filename().string() + "-" +
                             std::to_string(::getpid())))
                               .string();
  std::filesystem::remove_all(into);
  std::vector<std::string> names = draw_figures(dir, into);
  CHECK_MESSAGE(!names.empty(), program_of(dir) << " figures drew nothing");
  for (const std::string& name : names) {
    INFO("figure " << name << " of " << dir << ", drawn now into " << into << " (make figures redraws them)");
    REQUIRE_MESSAGE(std::filesystem::exists(dir + "/" + name), "it is not committed next to the chapter");
    CHECK(heed::slurp(dir + "/" + name) == heed::slurp(into + "/" + name));
  }
  std::filesystem::remove_all(into);
}

const std::vector<std::string>& chapters_with_quick_figures() {
  static const std::vector<std::string> dirs = {"tutorials/02_autograd", "tutorials/05_recurrent_cells",
                                                "tutorials/06_seq2seq", "tutorials/07_additive_attention",
                                                "tutorials/03_gradient_checking", "tutorials/12_attention_zoo",
                                                "tutorials/04_classifiers", "tutorials/08_multiplicative_attention",
                                                "tutorials/09_attention_matrices", "tutorials/13_transformer"};
  return dirs;
}

// The long runs: skipped by default, run with build/tests -ts=chapters_full --no-skip.
// The figures drawn by the quick programs: make test checks them.
TEST_SUITE("chapter_check") {
  TEST_CASE("every chapter's quick figures are what its program draws now" * DOUBLE_ONLY(kChapterTextReason)) {
    for (const std::string& dir : chapters_with_quick_figures()) {
      INFO("chapter " << dir);
      check_figures(dir);
    }
  }
}

TEST_SUITE("chapters_full" * doctest::skip()) {
  TEST_CASE("every chapter's long runs print what the chapter shows") {
    REQUIRE_MESSAGE(std::filesystem::is_directory("tutorials"),
                    "no tutorials/ here: tests run from the repository root");
    std::vector<std::string> dirs;
    for (const auto& entry : std::filesystem::directory_iterator("tutorials"))
      if (std::filesystem::exists(entry.path() / "README.md")) dirs.push_back(entry.path().string());
    std::sort(dirs.begin(), dirs.end());
    REQUIRE_MESSAGE(!dirs.empty(), "no chapters found under tutorials/ (tests run from the repository root)");
    std::vector<std::string> chosen;
    for (const std::string& dir : dirs)
      if (chapter_chosen(std::filesystem::path(dir).filename().string().substr(0, 2))) chosen.push_back(dir);
    REQUIRE_MESSAGE(!chosen.empty(), "HEED_CHAPTERS/HEED_CHAPTERS_EXCEPT leave no chapter to check");
    for (const std::string& dir : chosen) {
      INFO("chapter " << dir);
      const auto started = std::chrono::steady_clock::now();
      check_chapter_full(dir);
      // Printed for make check-chapters' two processes (CHECK_APART in the Makefile balances them).
      MESSAGE(dir << "'s long runs took "
                  << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() << " s");
      // A figure committed next to a chapter (for the README to link) is what the long run draws
      // into build/chNN/: the same bytes.
      const std::string nn = std::filesystem::path(dir).filename().string().substr(0, 2);
      const auto& quick = chapters_with_quick_figures();
      std::vector<std::string> drawn_quickly;  // checked by check_figures in make test
      if (std::find(quick.begin(), quick.end(), dir) != quick.end())
        drawn_quickly = draw_figures(dir, (std::filesystem::temp_directory_path() /
                                           ("heed-figures-full-" + std::to_string(::getpid())))
                                              .string());
      for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".svg") continue;
        const std::string name = entry.path().filename().string();
        if (std::find(drawn_quickly.begin(), drawn_quickly.end(), name) != drawn_quickly.end()) continue;
        const std::filesystem::path drawn = "build/ch" + nn + "/" + entry.path().filename().string();
        INFO("committed figure " << entry.path().string() << ", drawn by the long run as " << drawn.string());
        REQUIRE(std::filesystem::exists(drawn));
        CHECK(heed::slurp(entry.path().string()) == heed::slurp(drawn.string()));
      }
    }
  }
}
