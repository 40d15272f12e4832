// A piece wrong only at larger sizes (issue 45) does not get through. Three planted answers, kept
// with the other wrong answers in tests/exercises/wrong/ and right on every small input: 01_wrong.cpp's
// matmul unrolled past K 16 without the column offset, 05_wrong.cpp's GRU step in blocks of 32
// units that mixes in h's first block, 07_wrong.cpp's additive score in blocks of 12 positions
// that reads the first block's keys. The self-test holds that their checks (make exercise-NN)
// reject them (tests/exercises/exercises_test.cpp); here make yours-test names each: by its check, whose
// larger cases are drawn per seed, and, linked in unchecked (YOURS_PIECES), by the losses of the
// trainings make yours-test runs at larger sizes.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/chapter_check.h"
#include "tests/support/heed_cli.h"
#include "tests/support/precision.h"

namespace {

using heed::sh;
using heed::slurp;

// A planted answer: the function `planted` of tests/exercises/wrong/NN_wrong.cpp, renamed `exercise`
// and put in place of that function in the chapter's solution (`folder`).
struct Planted {
  std::string folder, wrong_file, planted, exercise, piece, check;
};
const std::vector<Planted> kPlanted = {
    {"01_tensors", "01_wrong.cpp", "matmul_unrolled_k16", "matmul_loops", "matmul", "01.2 matmul_loops"},
    {"05_recurrent_cells", "05_wrong.cpp", "gru_blocked_32", "gru_step", "gru", "05.1 gru_step"},
    {"07_additive_attention", "07_wrong.cpp", "scores_blocked_12", "additive_scores", "additive", "07.1 additive_scores"},
};

// The definition of `name` in text: from the start of its line ("Tensor name(" or "Var name(")
// to the closing brace at the start of a line.
std::string definition(const std::string& text, const std::string& name, size_t* at = nullptr) {
  size_t from = std::string::npos;
  for (const char* type : {"\nTensor ", "\nVar "})
    if (const size_t f = text.find(type + name + "("); f != std::string::npos) from = f + 1;
  REQUIRE_MESSAGE(from != std::string::npos, "no definition of " << name);
  const size_t to = text.find("\n}\n", from);
  REQUIRE(to != std::string::npos);
  if (at) *at = from;
  return text.substr(from, to + 3 - from);
}

// Writes DIR/folder/exercises.cpp: the solution with the planted answer in place of its exercise.
void write_planted(const std::string& dir, const Planted& p) {
  std::string body = definition(slurp("tests/exercises/wrong/" + p.wrong_file), p.planted);
  body.replace(body.find(p.planted), p.planted.size(), p.exercise);
  std::string text = slurp("exercises/solutions/" + p.folder + "/exercises.cpp");
  size_t at = 0;
  const std::string old = definition(text, p.exercise, &at);
  text.replace(at, old.size(), body);
  text = "#include <algorithm>\n#include <vector>\n" + text;
  const std::string path = dir + "/" + p.folder + "/exercises.cpp";
  if (slurp(path) == text) return;  // unchanged: make compiles nothing again
  std::filesystem::create_directories(dir + "/" + p.folder);
  std::ofstream(path, std::ios::binary) << text;
}

heed::Shell make_yours(const heed::Scratch& s, const std::string& vars) {
  return sh(s, std::filesystem::current_path().string(),
            "env -u MAKEFLAGS -u MFLAGS ${MAKE:-make} --no-print-directory -s yours-test BUILD=" + build_dir() +
                " YOURS_CHAPTERS= YOURS_TRANSLATE_STEPS=0 " + vars);
}

// As the other tests of your own heed (tests/exercises/yours_model_test.cpp): make test's build only, and
// not in a class's edition, which has no solutions.
bool skipped_build() {
  return !make_builds_here() ||
         !std::filesystem::exists("exercises/solutions");
}

}  // namespace

TEST_SUITE("exercises") {
  TEST_CASE("your heed: a piece wrong only at larger sizes is named by its check, and by the trainings if unchecked" *
            DOUBLE_ONLY(kGradcheckReason) * doctest::skip(skipped_build())) {
    heed::Scratch s("yours-sizes");
    const std::string dir = build_dir() + "/yours-sizes";
    for (const Planted& p : kPlanted) write_planted(dir + "/answers", p);
    heed::Shell r = make_yours(s, "ANSWERS=" + dir + "/answers YOURS=" + dir);
    {
      INFO(r.out);
      CHECK(r.status != 0);
      for (const Planted& p : kPlanted) {
        const std::string named = "the piece " + p.piece + " is not right: " + p.check + ": wrong";
        CHECK_MESSAGE(r.out.find(named) != std::string::npos, named);
        CHECK_MESSAGE(r.out.find("  " + p.check + " ") != std::string::npos, p.check << "'s table");
      }
      CHECK(r.out.find("3 piece(s) not right") != std::string::npos);
      CHECK(r.out.find("training steps") == std::string::npos);  // nothing built on them ran
    }
    // Each linked in alone, unchecked, with its chapter alone: make yours-test's trainings tell,
    // not the 40 steps of attention on reverse (hidden 32, sources up to 7), but those of the model
    // kinds at larger sizes: the GRU (right up to 32 units) and the score (right up to 12
    // positions) in the first, additive; the matmul (right below K 16, and wherever N is 1) in the
    // Transformer, whose attention's products run over sources of 14-20.
    for (const Planted& p : kPlanted) {
      const std::string one = dir + "/" + p.piece;
      write_planted(one + "/answers", p);
      r = make_yours(s, "ANSWERS=" + one + "/answers YOURS=" + one + " YOURS_PIECES=" + p.piece);
      INFO(p.piece << "\n" << r.out);
      CHECK(r.status != 0);
      CHECK(r.out.find("1 of ") != std::string::npos);  // the one piece taken
      CHECK(r.out.find("the losses of 40 steps equal heed's within 1e-9") != std::string::npos);
      const std::string model = p.piece == "matmul" ? "transformer" : "additive";
      CHECK(r.out.find("your heed's losses differ from heed's on the " + model + " model: step") != std::string::npos);
    }
  }
}
