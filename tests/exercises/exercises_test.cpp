// The exercises (exercises/, make exercises) hold what they promise: build/exercise-selftest runs
// every chapter's checks against the solutions (all pass), the untouched exercise files (all
// "not done yet", none crashes) and the wrong answers of tests/exercises/ (each rejected).
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "io/json.h"

#include "tests/support/chapter_check.h"
#include "tests/support/precision.h"

namespace {
std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

TEST_SUITE("exercises") {
  TEST_CASE("chapter exercises: solutions pass, stubs are not done, wrong answers are rejected" *
            DOUBLE_ONLY(kGradcheckReason)) {  // the checks gradcheck what the student writes
    const std::string program = build_dir() + "/exercise-selftest";
    REQUIRE_MESSAGE(std::filesystem::exists(program), program << " is missing: make test builds it");
    std::string out;
    FILE* p = popen((runner() + program + " 2>&1").c_str(), "r");
    REQUIRE(p);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    int raw = pclose(p);
    int status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    INFO(out);
    CHECK(status == 0);
    CHECK(out.find("0 failures") != std::string::npos);
    // Every chapter folder exercises/NN_topic/ is in the self-test (its checks registered, its
    // solutions and wrong answers linked) and in exercises/README.md's table of chapters.
    int folders = 0;
    const std::string readme = read_text("exercises/README.md");
    for (const auto& entry : std::filesystem::directory_iterator("exercises")) {
      const std::string name = entry.path().filename().string();
      if (!entry.is_directory() || name.size() < 3 || !std::isdigit(static_cast<unsigned char>(name[0])) ||
          !std::isdigit(static_cast<unsigned char>(name[1])) || name[2] != '_')
        continue;
      ++folders;
      CHECK_MESSAGE(readme.find("](" + name + "/README.md) | ") != std::string::npos,
                    "exercises/README.md's table of chapters has no row for " << name);
    }
    CHECK(out.find("exercise self-test: " + std::to_string(folders) + " chapters,") != std::string::npos);
  }
}

// ---- the results document (make exercises JSON=FILE) and the grading script

namespace {

std::string run_command(const std::string& command, int* status) {
  std::string out;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  int raw = pclose(p);
  *status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

void write_text(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// The schema exercises/README.md documents: its ```json schema block.
heed::Json documented_schema() {
  const std::string readme = read_text("exercises/README.md");
  const size_t start = readme.find("```json schema\n");
  REQUIRE_MESSAGE(start != std::string::npos, "exercises/README.md has no ```json schema block");
  const size_t body = start + std::string("```json schema\n").size();
  return heed::parse_json(readme.substr(body, readme.find("```", body) - body));
}

// The JSON Schema keywords the documented schema uses: type, enum, required, properties,
// additionalProperties (false), items, minimum. Appends to `errors` each place `value` breaks it.
void validate(const heed::Json& value, const heed::Json& schema, const std::string& where, std::vector<std::string>& errors) {
  auto kind_is = [&](const std::string& type) {
    if (type == "object") return value.is_object();
    if (type == "array") return value.is_array();
    if (type == "string") return value.is_string();
    if (type == "boolean") return value.is_bool();
    if (type == "null") return value.is_null();
    if (type == "number") return value.is_number();
    if (type == "integer") return value.is_number() && value.as_real() == std::floor(value.as_real());
    errors.push_back(where + ": the schema names an unknown type " + type);
    return false;
  };
  if (const heed::Json* type = schema.find("type")) {
    bool ok = false;
    if (type->is_string()) ok = kind_is(type->as_string());
    else for (const heed::Json& t : type->as_array()) ok = ok || kind_is(t.as_string());
    if (!ok) return errors.push_back(where + ": not of type " + type->dump());
  }
  if (const heed::Json* options = schema.find("enum")) {
    bool ok = false;
    for (const heed::Json& o : options->as_array()) ok = ok || (value.is_string() && o.as_string() == value.as_string());
    if (!ok) errors.push_back(where + ": " + value.dump() + " is none of " + options->dump());
  }
  if (const heed::Json* minimum = schema.find("minimum"))
    if (value.is_number() && value.as_real() < minimum->as_real()) errors.push_back(where + ": below the minimum");
  if (value.is_object()) {
    if (const heed::Json* required = schema.find("required"))
      for (const heed::Json& key : required->as_array())
        if (!value.find(key.as_string())) errors.push_back(where + ": no member " + key.as_string());
    const heed::Json* properties = schema.find("properties");
    const heed::Json* additional = schema.find("additionalProperties");
    for (const auto& [key, member] : value.items()) {
      const heed::Json* sub = properties ? properties->find(key) : nullptr;
      if (sub) validate(member, *sub, where + "." + key, errors);
      else if (additional && additional->is_bool() && !additional->as_bool()) errors.push_back(where + ": unexpected member " + key);
    }
  }
  if (value.is_array())
    if (const heed::Json* items = schema.find("items"))
      for (size_t i = 0; i < value.as_array().size(); ++i)
        validate(value.as_array()[i], *items, where + "[" + std::to_string(i) + "]", errors);
}

// Beyond the schema: each chapter's counts add up to its total, the number of its exercises.
void check_counts(const heed::Json& doc) {
  for (const heed::Json& c : doc.find("chapters")->as_array()) {
    const heed::Json& counts = *c.find("counts");
    int64_t sum = 0;
    for (const char* k : {"passed", "not_done", "wrong", "refused"}) sum += counts.find(k)->as_int();
    CHECK(sum == counts.find("total")->as_int());
    CHECK(counts.find("total")->as_int() == static_cast<int64_t>(c.find("exercises")->size()));
  }
}

}  // namespace

TEST_SUITE("exercises") {
  TEST_CASE("exercises: the results document follows its schema" *
            DOUBLE_ONLY(kGradcheckReason)) {  // the exercise programs are built in double only
    const heed::Json schema = documented_schema();
    const std::string path = (std::filesystem::temp_directory_path() / ("heed-results-" + std::to_string(getpid()) + ".json")).string();
    int status = 0;
    // Chapter 01 untouched: every exercise not done; with the grader's seed named in the document.
    const std::string out = run_command(runner() + build_dir() + "/exercise-01 --seed 12 --json " + path, &status);
    INFO(out);
    CHECK(status == 1);  // not all passed
    const heed::Json doc = heed::parse_json(read_text(path));
    std::filesystem::remove(path);
    std::vector<std::string> errors;
    validate(doc, schema, "document", errors);
    for (const std::string& e : errors) FAIL_CHECK(e);
    CHECK(doc.find("seed")->as_int() == 12);
    REQUIRE(doc.find("chapters")->size() == 1);
    const heed::Json& chapter = doc.find("chapters")->as_array()[0];
    CHECK(chapter.find("counts")->find("not_done")->as_int() == 3);
    check_counts(doc);
    // The validator is not blind: a document with a status outside the schema's is caught.
    errors.clear();
    validate(heed::parse_json("{\"format\": \"heed-exercises 1\", \"seed\": null, \"chapters\": [{\"chapter\": \"01\", "
                              "\"folder\": \"x\", \"compiles\": true, \"message\": \"\", \"counts\": {\"passed\": 0, "
                              "\"not_done\": 0, \"wrong\": 0, \"refused\": 0, \"total\": 1}, \"exercises\": [{\"id\": "
                              "\"01.1\", \"name\": \"a\", \"grader_check\": false, \"status\": \"skipped\", "
                              "\"message\": \"\", \"seconds\": 0}]}]}"),
             schema, "document", errors);
    CHECK(errors.size() == 1);
  }

  // The script builds with the default build's commands (make exercise-commands) in build/: make
  // test runs it; the suites run from other builds (make sanitize, test-clang, test-float) skip it.
  TEST_CASE("exercises: grade_exercises.sh grades four students" * DOUBLE_ONLY(kGradcheckReason) *
            doctest::skip(std::getenv("HEED_BUILD") && std::string(std::getenv("HEED_BUILD")) != "build")) {
    // Three copies of chapters 01 and 12, taken from the solutions: one all right, one whose
    // softmax forgets to subtract the row's maximum (NaN on large logits: wrong), one whose causal
    // attention calls the library's (refused).
    const std::filesystem::path root =
        std::filesystem::temp_directory_path() / ("heed-class-" + std::to_string(getpid()));
    std::filesystem::remove_all(root);
    const std::string sol01 = read_text("exercises/solutions/01_tensors/exercises.cpp");
    const std::string sol12 = read_text("exercises/solutions/12_attention_zoo/exercises.cpp");
    const std::string shifted = "math::exp(x[i * D + j] - m)";
    REQUIRE(sol01.find(shifted) != std::string::npos);
    const size_t from = sol12.find("Var causal_attention(");
    const size_t to = sol12.find("\n}\n", from);
    REQUIRE(from != std::string::npos);
    REQUIRE(to != std::string::npos);
    std::string wrong01 = sol01;
    wrong01.replace(wrong01.find(shifted), shifted.size(), "math::exp(x[i * D + j])");
    const std::string refused12 =
        "#include \"nn/self_attention.h\"\n" + sol12.substr(0, from) +
        "Var causal_attention(const Var& q, const Var& k, const Var& v) {\n"
        "  return scaled_dot_product_attention(q, k, v, self_attention_mask(Tensor::ones({q.shape()[0], q.shape()[1]}), true)).output;"
        + sol12.substr(to);
    const std::string s = (root / "students").string();
    write_text(s + "/all_right/exercises/01_tensors/exercises.cpp", sol01);
    write_text(s + "/all_right/exercises/12_attention_zoo/exercises.cpp", sol12);
    write_text(s + "/one_wrong/exercises/01_tensors/exercises.cpp", wrong01);
    write_text(s + "/one_wrong/exercises/12_attention_zoo/exercises.cpp", sol12);
    // The same answer with other comments and spacing: listed as identical to all_right's.
    std::string respaced01 = "// my own work\n" + sol01;
    for (size_t at; (at = respaced01.find("\n  ")) != std::string::npos;) respaced01.replace(at, 3, "\n\t/* */ ");
    write_text(s + "/one_refused/exercises/01_tensors/exercises.cpp", respaced01);
    // A chapter that does not compile counts its three exercises as not passed; chapter 12 not handed in.
    write_text(s + "/no_build/exercises/01_tensors/exercises.cpp", sol01 + "\nthis line does not compile\n");
    write_text(s + "/one_refused/exercises/12_attention_zoo/exercises.cpp", refused12);
    int status = 0;
    const std::string out = run_command("CHAPTERS='01 12' tools/grade_exercises.sh " + s + " " + (root / "out").string(), &status);
    INFO(out);
    CHECK(status == 0);
    const std::string table = read_text((root / "out" / "table.txt").string());
    CHECK(table ==
          "student              01     12   total  notes\n"
          "all_right           3/3    3/3     6/6  \n"
          "no_build            0/3    0/3     0/6  01 does not compile\n"
          "one_refused         3/3    2/3     5/6  12.2 refused\n"
          "one_wrong           2/3    3/3     5/6  01.3 wrong\n");
    CHECK(read_text((root / "out" / "table.csv").string()) ==
          "student,01.1,01.2,01.3,12.1,12.2,12.3\n"
          "all_right,passed,passed,passed,passed,passed,passed\n"
          "no_build,wrong,wrong,wrong,not done,not done,not done\n"
          "one_refused,passed,passed,passed,passed,refused,passed\n"
          "one_wrong,passed,passed,wrong,passed,passed,passed\n");
    // Identical answers, whitespace and comments aside (the untouched chapter 12 of no_build is none).
    CHECK(read_text((root / "out" / "identical.txt").string()) ==
          "chapter 01: all_right, one_refused\n"
          "chapter 12: all_right, one_wrong\n");
    // Each student's document follows the schema.
    const heed::Json schema = documented_schema();
    const heed::Json no_build = heed::parse_json(read_text((root / "out" / "no_build.json").string()));
    const heed::Json& unbuilt = no_build.find("chapters")->as_array()[0];
    CHECK(!unbuilt.find("compiles")->as_bool());
    CHECK(unbuilt.find("counts")->find("total")->as_int() == 3);
    CHECK(unbuilt.find("counts")->find("wrong")->as_int() == 3);
    for (const char* name : {"all_right", "one_wrong", "one_refused", "no_build"}) {
      const heed::Json doc = heed::parse_json(read_text((root / "out" / (std::string(name) + ".json")).string()));
      std::vector<std::string> errors;
      validate(doc, schema, name, errors);
      for (const std::string& e : errors) FAIL_CHECK(e);
      check_counts(doc);
    }
    std::filesystem::remove_all(root);
  }
}

// ---- the syllabus: every chapter opens with what it teaches, what it needs and how long it takes,
// and closes with pen-and-paper problems whose answers are in the solutions.
TEST_SUITE("exercises") {
  TEST_CASE("exercises: every chapter has its objectives, prerequisites, times and pen-and-paper problems") {
    int chapters = 0;
    for (const auto& entry : std::filesystem::directory_iterator("tutorials")) {
      if (!entry.is_directory() || !std::filesystem::exists(entry.path() / "main.cpp")) continue;
      ++chapters;
      const std::string name = entry.path().filename().string();
      const std::string readme = read_text((entry.path() / "README.md").string());
      INFO(name);
      // The opening: right under the title, before the chapter's first section.
      const size_t first_section = readme.find("\n## ");
      const std::string opening = readme.substr(0, first_section);
      for (const char* part : {"> **What you can do after it:**", "> **Before it:**", "C++:", "> **Time:** reading", "running",
                               "the exercises"})
        CHECK_MESSAGE(opening.find(part) != std::string::npos, "the opening lacks " << part);
      CHECK(opening.find("> **What you can do after it:**") < opening.find("\n\n", readme.find('\n') + 2));
      // The closing: the last section, its numbered problems, one answer each in the solutions.
      const size_t closing = readme.rfind("\n## ");
      REQUIRE(closing != std::string::npos);
      CHECK(readme.compare(closing, 18, "\n## Pen and paper\n") == 0);
      int problems = 0;
      while (readme.find("\n" + std::to_string(problems + 1) + ". **", closing) != std::string::npos) ++problems;
      CHECK(problems >= 2);
      CHECK(problems <= 3);
      const std::string answers = read_text("exercises/solutions/" + name + "/problems.md");
      CHECK_MESSAGE(!answers.empty(), "exercises/solutions/" << name << "/problems.md is missing");
      for (int i = 1; i <= problems; ++i) CHECK(answers.find("\n## " + std::to_string(i) + ". ") != std::string::npos);
      CHECK(answers.find("\n## " + std::to_string(problems + 1) + ". ") == std::string::npos);
    }
    CHECK(chapters == 14);
  }
}

// ---- your own heed (make yours, make yours-test; exercises/README.md, "Your own heed")
namespace {

// make TARGET with the variables given, from the repository root, in make test's build.
std::string make_yours(const std::string& target, const std::string& vars, int* status) {
  // A make of its own (not a job of make test's: no jobserver to share, and no warning about it).
  return run_command("env -u MAKEFLAGS -u MFLAGS ${MAKE:-make} --no-print-directory -s " + target + " BUILD=" + build_dir() +
                         " " + vars,
                     status);
}

// The loss heed train --json reports (the mean of the last 50 steps).
double json_loss(const std::string& out) {
  const size_t at = out.find("\"loss\":");
  REQUIRE_MESSAGE(at != std::string::npos, out);
  return std::strtod(out.c_str() + at + 7, nullptr);
}

// How many pieces exercises/yours/pieces lists (its lines but comments and blank ones), as make
// yours counts them, and " of N pieces" as it prints them ("k of N pieces are yours").
int pieces_total() {
  std::ifstream in("exercises/yours/pieces");
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') ++n;
  return n;
}
std::string of_pieces() { return " of " + std::to_string(pieces_total()) + " pieces"; }

const std::string kShortTraining =
    " train --task reverse --model additive --min-len 3 --max-len 6 --embed 8 --hidden 16 --batch 8"
    " --steps 30 --seed 7 --eval-samples 20 --json";

}  // namespace

TEST_SUITE("exercises") {
  TEST_CASE("your heed: with the untouched exercise files, make yours is heed itself" *
            doctest::skip(!make_builds_here())) {
    const std::string dir = build_dir() + "/yours-untouched";
    int status = 0;
    std::string out = make_yours("yours", "YOURS=" + dir + " YOURS_CHAPTERS=07", &status);
    INFO(out);
    REQUIRE(status == 0);
    CHECK(out.find("0" + of_pieces() + " are yours") != std::string::npos);
    CHECK(out.find("linear_forward") != std::string::npos);
    CHECK(out.find("the chapter programs on your heed: " + dir + "/tutorial-NN, NN in 07") != std::string::npos);
    // A chapter's program prints what heed's prints (its stdout; the progress lines on stderr
    // tell the seconds taken).
    const std::string heed07 = run_command("(" + build_dir() + "/tutorial-07 --quick 2>/dev/null)", &status);
    REQUIRE(status == 0);
    const std::string yours07 = run_command("(" + dir + "/tutorial-07 --quick 2>/dev/null)", &status);
    REQUIRE(status == 0);
    CHECK(heed07.size() > 1000);
    CHECK(heed07 == yours07);
    // The same training, the same checkpoint bytes.
    const std::string a = dir + "/heed.safetensors", b = dir + "/yours.safetensors";
    std::filesystem::remove(a);
    std::filesystem::remove(b);
    out = run_command(build_dir() + "/heed" + kShortTraining + " --save " + a, &status);
    REQUIRE(status == 0);
    out = run_command(dir + "/heed" + kShortTraining + " --save " + b, &status);
    REQUIRE(status == 0);
    const std::string heed_bytes = read_text(a);
    CHECK(!heed_bytes.empty());
    CHECK(heed_bytes == read_text(b));
  }

  TEST_CASE("your heed: with every solution in place, make yours-test passes and trains as heed" *
            DOUBLE_ONLY(kGradcheckReason) *
            doctest::skip(!make_builds_here())) {
    const std::string dir = build_dir() + "/yours-solutions";
    int status = 0;
    // Two chapter programs (those whose outputs differ on the solutions where the chapters say
    // why) and a reduced budget for the translation: the full run is chapter 07's second block,
    // which make check-chapters holds (tests/exercises/yours_path_test.cpp).
    std::filesystem::remove(dir + "/seed.svg");
    std::string out = make_yours(
        "yours-test", "ANSWERS=exercises/solutions YOURS_CHAPTERS='01 05' YOURS_TRANSLATE_STEPS=20 YOURS=" + dir, &status);
    INFO(out);
    CHECK(status == 0);
    CHECK(out.find(std::to_string(pieces_total()) + of_pieces() + " are yours") != std::string::npos);
    CHECK(out.find("gradcheck linear 3-D       ok") != std::string::npos);
    CHECK(out.find("  tutorial-05  1 output as chapter 05 shows them; 4 lines excused") != std::string::npos);
    CHECK(out.find("equal heed's within 1e-9") != std::string::npos);
    CHECK(out.find("your heed trains reverse: yes; your heed translates the seed sentence: no (a reduced budget of 20 "
                   "steps, not judged: 300 translate it); your heed's losses equal heed's: yes") != std::string::npos);
    CHECK(read_text(dir + "/seed.svg").find("<svg") != std::string::npos);  // the attention matrix, drawn
    // Chapter 07 shows the full run as the reader's path (build-yours/ where this test builds
    // elsewhere), which make check-chapters holds line for line (tests/exercises/yours_path_test.cpp). This
    // reduced run must equal it but for the lines that depend on what it reduced: which chapter
    // programs are linked and checked, and the translation's budget.
    auto kept = [&](const std::string& text) {
      std::istringstream in(text);
      std::string line, keep;
      while (std::getline(in, line))
        if (line.rfind("the chapter programs on your heed:", 0) != 0 && line.rfind("  tutorial-", 0) != 0 &&
            line.find("--task translate") == std::string::npos && line.rfind("yours-test:   ich habe", 0) != 0 &&
            line.rfind("milestones:", 0) != 0)
          keep += line + "\n";
      return keep;
    };
    std::string shown = out;
    for (size_t at; (at = shown.find(dir + "/")) != std::string::npos;) shown.replace(at, dir.size() + 1, "build-yours/");
    const std::string readme = read_text("tutorials/07_additive_attention/README.md");
    const std::string marker = "<!-- the reader's heed (tests/exercises/yours_path_test.cpp holds this block to make yours-test) -->\n```\n";
    const size_t mark = readme.find(marker);
    REQUIRE_MESSAGE(mark != std::string::npos, "chapter 07 lost its block of make yours-test's output");
    const size_t from = mark + marker.size();
    const std::string block = readme.substr(from, readme.find("\n```\n", from) + 1 - from);
    CHECK(kept(block) == kept(shown));
    CHECK(kept(block).size() > 1000);
    // heed train on the student's heed: the same loss as heed's to 1e-9, not the same bits
    // (heed fuses multiply-adds where the solutions do not): so the pieces are the solutions'.
    const std::string heed = run_command(build_dir() + "/heed" + kShortTraining, &status);
    REQUIRE(status == 0);
    const std::string yours = run_command(dir + "/heed" + kShortTraining, &status);
    REQUIRE(status == 0);
    CHECK(std::fabs(json_loss(heed) - json_loss(yours)) <= 1e-9);
    CHECK(read_text(dir + "/losses-heed.txt") != read_text(dir + "/losses-yours.txt"));
  }

  TEST_CASE("your heed: a wrong piece and a refused piece are named, and nothing uses them" *
            DOUBLE_ONLY(kGradcheckReason) *
            doctest::skip(!make_builds_here())) {
    // The solutions with one known wrong answer for every piece but chapter 02's
    // (tests/exercises/yours_engine_test.cpp has those; the kinds tests/exercises/wrong/NN_wrong.cpp holds): a sum
    // that reads b's first row only, a product that assigns instead of adding, a softmax divided
    // by the row's length, a softmax gradient without its sum term, an embedding gradient that
    // assigns instead of adding, linear_forward's bias
    // forgotten, the cross-entropy gradient's sign flipped, Adam without its bias correction, the
    // mask ignored, clipping that scales up; and context_vector handing its work to heed's
    // weighted_sum (which, linked in its place, would call itself for ever).
    const std::string dir = build_dir() + "/yours-wrong";
    const std::string answers = dir + "/answers";
    struct Change {
      const char* folder;
      std::vector<std::pair<std::string, std::string>> edits;
    };
    const std::vector<Change> changes = {
        {"01_tensors",
         {{"s += a[i * K + k] * b[k * N + j];", "s = a[i * K + k] * b[k * N + j];"},
          {"b[(rb == 1 ? 0 : i) * cb + (cb == 1 ? 0 : j)]", "b[(cb == 1 ? 0 : j)]"},
          {"y[i * D + j] /= s;", "y[i * D + j] /= D;"}}},
        {"04_classifiers",
         {{"dot = std::fma(dy[i * D + k], y[i * D + k], dot);", "dot = 0;"},
          {"dW[ids[r] * E + e] += dy", "dW[ids[r] * E + e] = dy"},
          {"return matmul_nt(x, W) + b;", "return matmul_nt(x, W);"},
          {"if (j == targets[r]) d -= scale;", "if (j == targets[r]) d += scale;"},
          {"std::sqrt(v[i]) / correction2 + eps;", "std::sqrt(v[i]) + eps;"}}},
        {"07_additive_attention",
         {{"Var w = softmax(masked_fill(scores, off, -1e30), 1);", "Var w = softmax(scores, 1);"},
          {"return sum(reshape(weights, {B, S, 1}) * values, 1);", "(void)B; (void)S; return weighted_sum(weights, values);"}}},
        {"10_long_sequences", {{"if (factor < 1)", "if (factor > 1)"}}},
    };
    for (const Change& c : changes) {
      std::string text = read_text(std::string("exercises/solutions/") + c.folder + "/exercises.cpp");
      for (const auto& edit : c.edits) {  // not a structured binding: clang 14 cannot capture one in doctest's lambda
        const std::string& from = edit.first;
        const std::string& to = edit.second;
        REQUIRE_MESSAGE(text.find(from) != std::string::npos, c.folder << ": " << from);
        text.replace(text.find(from), from.size(), to);
      }
      if (std::string(c.folder) == "07_additive_attention") text = "#include \"nn/attention.h\"\n" + text;
      write_text(answers + "/" + c.folder + "/exercises.cpp", text);
    }
    int status = 0;
    std::string out = make_yours("yours-test", "ANSWERS=" + answers + " YOURS_CHAPTERS= YOURS=" + dir, &status);
    {
      INFO(out);
      CHECK(status != 0);
      for (const char* named : {"the piece broadcast_add is not right: 01.1 broadcast_add: wrong",
                                "the piece matmul is not right: 01.2 matmul_loops: wrong",
                                "the piece softmax_rows is not right: 01.3 softmax_rows: wrong",
                                "the piece softmax_grad is not right: 04.1 softmax_backward: wrong",
                                "the piece embedding is not right: 04.5 embedding_backward: wrong",
                                "the piece linear is not right: 04.4 linear_forward: wrong",
                                "the piece cross_entropy is not right: 04.3 cross_entropy_backward: wrong",
                                "the piece adam is not right: 04.6 adam_step: wrong",
                                "the piece masked_softmax is not right: 07.2 masked_softmax_rows: wrong",
                                "the piece context is not right: 07.3 context_vector: refused, it calls heed's own version",
                                "the piece clip is not right: 10.1 clip_by_global_norm: wrong"})
        CHECK_MESSAGE(out.find(named) != std::string::npos, named);
      // Each once, with its check's report under it.
      CHECK(out.find("the piece linear is not right") == out.rfind("the piece linear is not right"));
      CHECK(out.find("  04.4 linear_forward           wrong: linear_forward(x, W, b) differs") != std::string::npos);
      CHECK(out.find("11 piece(s) not right") != std::string::npos);
      CHECK(out.find("1" + of_pieces() + " are yours") != std::string::npos);  // 07's additive_scores, untouched
      CHECK(out.find("yours-test: the gradient checks") == std::string::npos);  // nothing built on them ran
      CHECK(out.find("training steps") == std::string::npos);
    }
    // The wrong linear linked in unchecked: the training's losses are no longer heed's, on
    // engine-check and on heed train. So the student's function is what heed's Linear runs in
    // build-yours (no inlined copy of heed's own).
    out = make_yours("yours-test", "ANSWERS=" + answers + " YOURS_CHAPTERS= YOURS=" + dir + " YOURS_PIECES=linear", &status);
    INFO(out);
    CHECK(status != 0);
    CHECK(out.find("1" + of_pieces() + " are yours") != std::string::npos);
    CHECK(out.find("your heed's losses differ from heed's") != std::string::npos);
    const std::string heed = run_command(build_dir() + "/heed" + kShortTraining, &status);
    REQUIRE(status == 0);
    const std::string yours = run_command(dir + "/heed" + kShortTraining, &status);
    REQUIRE(status == 0);
    CHECK(std::fabs(json_loss(heed) - json_loss(yours)) > 1e-6);
  }
}

TEST_SUITE("exercises") {
  TEST_CASE("your heed: make exercises' scoreboard counts the pieces whose every exercise passed") {
    // Reports as the checkers print them: cross_entropy needs both 04.2 and 04.3, adam is wrong,
    // chapters 01 and 07 were not checked.
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("heed-score-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    write_text((dir / "exercise-04.out").string(),
               "exercises of chapter 04 (exercises/04_classifiers/README.md)\n"
               "  04.2 cross_entropy_value      passed\n"
               "  04.3 cross_entropy_backward   passed\n"
               "  04.4 linear_forward           passed\n"
               "  04.6 adam_step                wrong: p differs at element [0]\n"
               "04: 3 of 6 passed\n");
    write_text((dir / "exercise-10.out").string(), "  10.1 clip_by_global_norm      not done yet: write it\n");
    int status = 0;
    const std::string score = "MODE=score BUILD=" + dir.string() + " YOURS=" + dir.string() + " bash exercises/yours/yours.sh";
    std::string out = run_command(score, &status);
    CHECK(status == 0);
    const std::string none_reached =
        "  capstone 07 (your decoder step, loss and training loop): 0 of 3 passed\n"
        "  milestones: make yours-test reaches them (your heed trains reverse, translates the seed sentence, its losses "
        "equal heed's)\n";
    CHECK(out == "  your heed: 2" + of_pieces() + " (make yours builds heed on them, make yours-test checks it)\n" + none_reached);
    write_text((dir / "exercise-10.out").string(), "  10.1 clip_by_global_norm      passed\n");
    out = run_command(score, &status);
    CHECK(out == "  your heed: 3" + of_pieces() + " (make yours builds heed on them, make yours-test checks it)\n" + none_reached);
    // The capstone counts 07.4-07.6 passed; the milestones are the last make yours-test's, when it passed.
    write_text((dir / "exercise-07.out").string(),
               "  07.3 context_vector           passed\n  07.4 decoder_step             passed\n"
               "  07.5 batch_loss               passed\n  07.6 train_loop               wrong: the loss of step 3\n");
    write_text((dir / "milestones").string(), "milestones: pieces done 3 of " + std::to_string(pieces_total()) + "; your heed trains reverse: yes\n");
    out = run_command(score, &status);
    CHECK(out.find("  capstone 07 (your decoder step, loss and training loop): 2 of 3 passed\n"
                   "  milestones: pieces done 3 of " + std::to_string(pieces_total()) + "; your heed trains reverse: yes (make yours-test, " + dir.string() + "/)\n") !=
          std::string::npos);
    std::filesystem::remove_all(dir);
  }
}

TEST_SUITE("exercises") {
  TEST_CASE("exercises: make exercises prints its scoreboard, your heed's pieces included, without JSON=" *
            doctest::skip(!make_builds_here())) {
    // Chapter 01 alone (its checker is built by make test), untouched: nothing passed. The recipe
    // runs in /bin/sh (dash on Debian), which parses the JSON branch even when it is not taken.
    int status = 0;
    const std::string out = make_yours("exercises", "EX_DIRS=exercises/01_tensors", &status);
    INFO(out);
    CHECK(status != 0);  // not all passed
    CHECK(out.find("Syntax error") == std::string::npos);
    CHECK(out.find("scoreboard\n  01: 0 of 3 passed\n  all: 0 of 3 passed\n"
                   "  your heed: 0" + of_pieces() + " (make yours builds heed on them, make yours-test checks it)\n") !=
          std::string::npos);
  }
}

TEST_SUITE("exercises") {
  TEST_CASE("exercises: a file saved while make exercise-NN compiles it is compiled again, and the run says so") {
    // exercises/exercises.mk's rules, in a folder of their own: a chapter 99 whose "compiler"
    // saves the student's file half-way through its compile, as a student may during the first
    // make exercise-NN (minutes, with the library). The object must not look newer than that save.
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("heed-stale-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "exercises");
    std::filesystem::copy_file("exercises/exercises.mk", dir / "exercises/exercises.mk");
    write_text((dir / "exercises/99_demo/exercises.cpp").string(), "// the text before the save\n");
    write_text((dir / "exercises/check/99_check.cpp").string(), "// the checks\n");
    // The main Makefile's generic object rule and obj function, which exercises.mk refines.
    write_text((dir / "Makefile").string(),
               "BUILD := b\nobj = $(patsubst %.cpp,$(BUILD)/obj/%.o,$(1))\nCXX := sh ./cc.sh\n"
               "include exercises/exercises.mk\n"
               "$(BUILD)/obj/%.o: %.cpp\n\t@mkdir -p $(dir $@)\n\t$(CXX) -c $< -o $@\n");
    // Compiling: the file is saved in the middle. Linking: a checker that prints one line.
    write_text((dir / "cc.sh").string(),
               "for out; do :; done\n"
               "case \"$out\" in *.o) sleep 0.05; echo '// written' >> exercises/99_demo/exercises.cpp; sleep 0.05;"
               " echo object > \"$out\";;\n"
               "  *) printf '#!/bin/sh\\necho checked\\n' > \"$out\"; chmod +x \"$out\";; esac\n");
    const std::string make = "cd " + dir.string() + " && env -u MAKEFLAGS -u MFLAGS ${MAKE:-make} --no-print-directory -s ";
    int status = 0;
    const std::string out = run_command(make + "exercise-99 EX_CHECKER=", &status);
    INFO(out);
    CHECK(out.find("checked") != std::string::npos);
    CHECK(out.find("exercises/99_demo/exercises.cpp was saved while it was being compiled") != std::string::npos);
    CHECK(status != 0);
    // make -q: exit 1 when the object is out of date, as it must be now.
    run_command(make + "-q b/obj/exercises/99_demo/exercises.o", &status);
    CHECK(status == 1);
    std::filesystem::remove_all(dir);
  }
}
