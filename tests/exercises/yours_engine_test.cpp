// Your own heed's engine pieces (make yours; exercises/README.md, "Your own heed"): the backward
// pass of chapter 02 (exercise 02.4) replaces heed's Var::backward. With the solution's pass, heed
// trains to the same bits; a known wrong pass is named once, with its check's table, and linked
// unchecked it changes the training (so build-yours runs the student's pass, not an inlined copy
// of heed's); a pass that calls heed's own Var::backward is refused. The backward rules of chapter
// 02 (02.1-02.3, 02.5) replace the rules of heed's tanh, mul, matmul and sum along an axis: known
// wrong ones are named, and linked unchecked they fail the gradient checks of heed's own ops.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>
#include <sys/wait.h>

#include "tests/support/chapter_check.h"
#include "tests/support/precision.h"

namespace {

std::string run(const std::string& command, int* status) {
  std::string out;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int raw = pclose(p);
  *status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// make TARGET (yours or yours-test) in make test's build, a make of its own (no jobserver).
std::string make(const std::string& target, const std::string& vars, int* status) {
  return run("env -u MAKEFLAGS -u MFLAGS ${MAKE:-make} --no-print-directory -s " + target + " BUILD=" + build_dir() +
                 " YOURS_CHAPTERS= " + vars,
             status);
}

// DIR/FOLDER/exercises.cpp: that chapter's solution with each edit's first text replaced by its
// second, `head` before it (the other chapters absent: their pieces stay heed's, not done).
using Edits = std::vector<std::pair<std::string, std::string>>;
void write_chapter(const std::string& dir, const std::string& folder, const Edits& edits, const std::string& head = "") {
  std::string text = head + read_file("exercises/solutions/" + folder + "/exercises.cpp");
  for (const auto& edit : edits) {
    const std::string& from = edit.first;
    REQUIRE_MESSAGE(text.find(from) != std::string::npos, from);
    text.replace(text.find(from), from.size(), edit.second);
  }
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/" + folder);
  std::ofstream(dir + "/" + folder + "/exercises.cpp", std::ios::binary) << text;
}
void write_answers(const std::string& dir, const Edits& edits, const std::string& head = "") {
  write_chapter(dir, "02_autograd", edits, head);
}

// heed train's --json line: the mean loss of the last steps, and the whole line.
const std::string kTraining =
    " train --task reverse --model additive --min-len 3 --max-len 6 --embed 8 --hidden 16 --batch 8"
    " --steps 30 --seed 7 --eval-samples 20 --json";
double loss_of(const std::string& out) {
  const size_t at = out.find("\"loss\":");
  REQUIRE_MESSAGE(at != std::string::npos, out);
  return std::strtod(out.c_str() + at + 7, nullptr);
}

// " of N pieces", N the lines of exercises/yours/pieces (as make yours prints "k of N pieces").
std::string of_pieces() {
  std::ifstream in("exercises/yours/pieces");
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') ++n;
  return " of " + std::to_string(n) + " pieces";
}

const bool kOtherBuild = !make_builds_here();

}  // namespace

TEST_SUITE("exercises") {
  TEST_CASE("your heed: chapter 02's pieces: the solution's pass trains to heed's bits; wrong ones are named, and "
            "linked unchecked change training (the pass) or fail their ops' gradient checks (the rules); one calling "
            "heed's is refused" *
            DOUBLE_ONLY(kGradcheckReason) * doctest::skip(kOtherBuild)) {
    const std::string dir = build_dir() + "/yours-backward";
    const std::string answers = dir + "/answers";
    int status = 0;
    const std::string heed = run(build_dir() + "/heed" + kTraining, &status);
    REQUIRE(status == 0);

    // The solution's pass: the piece is yours, and heed train gives heed's loss to the bit (the
    // pass runs the nodes in heed's order, so every gradient sums in heed's order; the attention
    // model trained here runs none of the three rules, which are yours too).
    write_answers(answers, {});
    std::string out = make("yours", "ANSWERS=" + answers + " YOURS=" + dir, &status);
    {
      INFO(out);
      REQUIRE(status == 0);
      CHECK(out.find("  backward        yours   02.4 backward_pass") != std::string::npos);
      CHECK(out.find("5" + of_pieces() + " are yours") != std::string::npos);  // and chapter 02's four rules
    }
    std::string yours = run(dir + "/heed" + kTraining, &status);
    REQUIRE(status == 0);
    CHECK(loss_of(yours) == loss_of(heed));

    // Known wrong answers (tests/exercises/wrong/02_wrong.cpp has their kinds): a pass that runs the
    // nodes in the order met (breadth first, not sorted), tanh's derivative with its sign flipped,
    // mul's gradients swapped, matmul's db forgotten, sum's divided by the count (mean's rule).
    // make yours-test names each piece once, with
    // its check's report, and runs nothing on them.
    write_answers(answers, {{"  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return graph.made(a) > graph.made(b); });\n", ""},
                            {"sub(Tensor::ones(y.shape()), mul(y, y))", "sub(mul(y, y), Tensor::ones(y.shape()))"},
                            {"return {mul(dy, b), mul(dy, a)};", "return {mul(dy, a), mul(dy, b)};"},
                            {"matmul_tn(a, dy)};", "Tensor::zeros(b.shape())};"},
                            {"return broadcast_to(reshape(dy, kept), x.shape());",
                             "return mul(broadcast_to(reshape(dy, kept), x.shape()), 1.0 / static_cast<real>(x.shape()[axis]));"}});
    out = make("yours-test", "ANSWERS=" + answers + " YOURS=" + dir, &status);
    {
      INFO(out);
      CHECK(status != 0);
      const std::string named = "the piece backward is not right: 02.4 backward_pass: wrong";
      CHECK(out.find(named) != std::string::npos);
      CHECK(out.find(named) == out.rfind(named));
      CHECK(out.find("  02.4 backward_pass            wrong: node ") != std::string::npos);
      CHECK(out.find("which uses it, had added its share to its gradient") != std::string::npos);
      for (const char* rule : {"the piece tanh_backward is not right: 02.1 tanh_backward: wrong",
                               "the piece mul_backward is not right: 02.2 mul_backward: wrong",
                               "the piece matmul_backward is not right: 02.3 matmul_backward: wrong",
                               "the piece sum_backward is not right: 02.5 sum_backward: wrong"}) {
        CHECK_MESSAGE(out.find(rule) != std::string::npos, rule);
        CHECK(out.find(rule) == out.rfind(rule));
      }
      CHECK(out.find("  02.1 tanh_backward            wrong: ") != std::string::npos);
      CHECK(out.find("5 piece(s) not right") != std::string::npos);
      CHECK(out.find("yours-test: the gradient checks") == std::string::npos);  // nothing built on them ran
    }
    // Linked unchecked, that pass is what heed train runs: the loss is no longer heed's.
    out = make("yours", "ANSWERS=" + answers + " YOURS=" + dir + " YOURS_PIECES=backward", &status);
    REQUIRE_MESSAGE(status == 0, out);
    yours = run(dir + "/heed" + kTraining, &status);
    REQUIRE(status == 0);
    CHECK(std::fabs(loss_of(yours) - loss_of(heed)) > 1e-6);
    // Linked unchecked, they are the rules heed's own ops run: the gradient checks of those ops
    // fail, the others pass. (gradcheck itself weighs the output with a product, so a wrong mul
    // fails every check: it is linked alone.)
    out = make("yours-test", "ANSWERS=" + answers + " YOURS=" + dir + " YOURS_PIECES='tanh_backward matmul_backward'",
               &status);
    {
      INFO(out);
      CHECK(status != 0);
      CHECK(out.find("2" + of_pieces() + " are yours") != std::string::npos);
      for (const char* line : {"gradcheck tanh             FAILED", "gradcheck matmul           FAILED",
                               "gradcheck matmul batched   FAILED", "gradcheck mul              ok",
                               "gradcheck linear           ok", "gradcheck cross_entropy    ok"})
        CHECK_MESSAGE(out.find(line) != std::string::npos, line);
    }
    out = make("yours-test", "ANSWERS=" + answers + " YOURS=" + dir + " YOURS_PIECES=mul_backward", &status);
    {
      INFO(out);
      CHECK(status != 0);
      CHECK(out.find("1" + of_pieces() + " are yours") != std::string::npos);
      CHECK(out.find("gradcheck mul              FAILED") != std::string::npos);
      CHECK(out.find("a gradient check failed on your heed") != std::string::npos);
    }
    // A sum whose rule divides by the count: heed's sum along an axis, the cosine score whose
    // norms it takes, and (through mean, which calls it) the mean and the layer norm fail their
    // checks; the whole sum gradcheck weighs the output with is heed's.
    out = make("yours-test", "ANSWERS=" + answers + " YOURS=" + dir + " YOURS_PIECES=sum_backward", &status);
    {
      INFO(out);
      CHECK(status != 0);
      CHECK(out.find("1" + of_pieces() + " are yours") != std::string::npos);
      for (const char* line : {"gradcheck sum axis         FAILED", "gradcheck cosine score     FAILED",
                               "gradcheck mean axis        FAILED", "gradcheck layer_norm       FAILED",
                               "gradcheck mul              ok", "gradcheck tanh             ok"})
        CHECK_MESSAGE(out.find(line) != std::string::npos, line);
    }

    // A pass that hands the work to heed's own Var::backward (in your heed, itself) is refused.
    write_answers(answers,
                  {{"  const int64_t root = graph.root();\n",
                    "  if (seed.numel() < 0) Var(seed, true).backward(seed);\n  const int64_t root = graph.root();\n"}},
                  "#include \"autograd/var.h\"\n");
    out = make("yours", "ANSWERS=" + answers + " YOURS=" + dir, &status);
    INFO(out);
    CHECK(out.find("  backward        heed's  02.4 backward_pass: refused, it calls heed's own version") != std::string::npos);
    CHECK(out.find("4" + of_pieces() + " are yours") != std::string::npos);  // chapter 02's four rules
  }

  TEST_CASE("your heed: chapter 01's broadcast sum and softmax and chapter 04's softmax and embedding rules are what heed runs" *
            DOUBLE_ONLY(kGradcheckReason) * doctest::skip(kOtherBuild)) {
    // Known wrong answers (tests/exercises/exercises_test.cpp has make yours-test name them), linked unchecked
    // one at a time: each changes what heed computes, so build-yours runs it.
    const std::string dir = build_dir() + "/yours-tensors";
    const std::string answers = dir + "/answers";
    int status = 0;
    write_chapter(answers, "01_tensors",
                  {{"b[(rb == 1 ? 0 : i) * cb + (cb == 1 ? 0 : j)]", "b[(cb == 1 ? 0 : j)]"},  // b's first row only
                   {"y[i * D + j] /= s;", "y[i * D + j] /= D;"}});                             // not normalised
    // A softmax of yours that does not normalise: heed's softmax op fails its gradient check.
    std::string out = make("yours", "ANSWERS=" + answers + " YOURS=" + dir + " YOURS_PIECES=softmax_rows", &status);
    REQUIRE_MESSAGE(status == 0, out);
    out = run(dir + "/engine-check grad", &status);
    {
      INFO(out);
      CHECK(status != 0);
      CHECK(out.find("gradcheck softmax          FAILED") != std::string::npos);
      CHECK(out.find("gradcheck linear           ok") != std::string::npos);
    }
    // A broadcast sum of yours reading b's first row only: heed's + of Vars, whose forward it is,
    // fails its gradient check (b's other rows never reach the result).
    out = make("yours", "ANSWERS=" + answers + " YOURS=" + dir + " YOURS_PIECES=broadcast_add", &status);
    REQUIRE_MESSAGE(status == 0, out);
    out = run(dir + "/engine-check grad", &status);
    {
      INFO(out);
      CHECK(status != 0);
      CHECK(out.find("gradcheck add broadcast    FAILED") != std::string::npos);
      CHECK(out.find("gradcheck softmax          ok") != std::string::npos);
    }
    // A softmax gradient without its sum term, and an embedding gradient that assigns instead of
    // adding (a repeated id keeps one of its rows' gradients): heed's softmax and embedding ops
    // fail their gradient checks, and heed train, whose embeddings take that gradient, no longer
    // gives heed's loss.
    write_chapter(answers, "04_classifiers", {{"dot = std::fma(dy[i * D + k], y[i * D + k], dot);", "dot = 0;"},
                                              {"dW[ids[r] * E + e] += dy", "dW[ids[r] * E + e] = dy"}});
    out = make("yours", "ANSWERS=" + answers + " YOURS=" + dir + " YOURS_PIECES='softmax_grad embedding'", &status);
    REQUIRE_MESSAGE(status == 0, out);
    out = run(dir + "/engine-check grad", &status);
    {
      INFO(out);
      CHECK(status != 0);
      for (const char* line : {"gradcheck softmax          FAILED", "gradcheck softmax axis 0   FAILED",
                               "gradcheck embedding        FAILED", "gradcheck linear           ok"})
        CHECK_MESSAGE(out.find(line) != std::string::npos, line);
    }
    const std::string heed = run(build_dir() + "/heed" + kTraining, &status);
    REQUIRE(status == 0);
    const std::string yours = run(dir + "/heed" + kTraining, &status);
    REQUIRE(status == 0);
    CHECK(std::fabs(loss_of(yours) - loss_of(heed)) > 1e-6);
  }
}
