// heed as a library, as a user meets it: make install into a scratch PREFIX (heed.h and the public
// headers it includes, no internal one), then the programs of examples/ copied out of the
// repository and built there with nothing but what pkg-config says (heed.pc, and heed-float.pc
// for the float library), run, and held to what they print: the loss falls, and what
// docs/library.md and README.md show is what they print. A program compiled for one precision and linked with the other library is refused
// by the linker, the mismatch named on the first line (tensor/real.h). make uninstall removes
// exactly what make install wrote. Also DESTDIR (a staging folder for packagers).
//
// Two halves, so that make test need not build the float library:
// - make install-double (the headers, libheed.a, heed.pc): run by make test, from build/;
// - make install (both libraries), the float example and the precision mismatch: run by make
//   test-float, from build-float/, which builds both libraries first.
// The suites run from other builds (make sanitize, test-aarch64, ...) skip both.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "io/atomic_file.h"
#include "tests/support/heed_cli.h"
#include "tests/support/tools.h"

using namespace heed;
namespace fs = std::filesystem;

namespace {

// make in the repository, as a user types it (not the make that runs these tests: its jobserver
// is not ours, and its variables are not the user's). The libraries are taken as they are (-o):
// make test has built them, and the test must not rebuild them with other flags.
std::string make(const std::string& args) {
  return "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C '" + fs::current_path().string() +
         "' -o build/libheed.a -o build-float/libheed.a " + args;
}

// The losses a program printed ("step N  loss X" lines), in order.
std::vector<double> losses(const std::string& out) {
  std::vector<double> v;
  static const std::regex line(R"(step +\d+ +loss ([0-9.eE+-]+))");
  for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it) v.push_back(std::stod((*it)[1]));
  return v;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// heed.h and every header of heed's it reaches through includes ("tensor/tensor.h", ...), read in the
// repository: what make install must write under include/heed, nothing more (the internals stay).
std::set<std::string> public_headers() {
  static const std::regex include(R"re(#include "([a-z]+(?:/[a-z_0-9]+)+\.h)")re");
  std::set<std::string> seen{"heed.h"};
  std::vector<std::string> todo{"heed.h"};
  while (!todo.empty()) {
    const std::string text = slurp(todo.back());
    todo.pop_back();
    for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end; ++it)
      if (seen.insert((*it)[1]).second) todo.push_back((*it)[1]);
  }
  return seen;
}

// The .h files under dir (make install may keep a note of its own there), as paths relative to it.
std::set<std::string> headers_under(const fs::path& dir) {
  std::set<std::string> h;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".h") h.insert(fs::relative(e.path(), dir).generic_string());
  return h;
}

int files_under(const fs::path& dir) {
  int n = 0;
  if (fs::exists(dir))
    for (const auto& e : fs::recursive_directory_iterator(dir)) n += e.is_regular_file();
  return n;
}

std::string build_folder() { return std::getenv("HEED_BUILD") ? std::getenv("HEED_BUILD") : "build"; }
const bool kNotDouble = build_folder() != "build";
const bool kNotFloat = build_folder() != "build-float";

// A scratch PREFIX holding two files of the user's, which make uninstall must leave.
void users_files(const std::string& prefix) {
  fs::create_directories(prefix + "/include");
  fs::create_directories(prefix + "/lib/pkgconfig");
  write_text_file(prefix + "/include/mine.h", "// the user's\n");
  write_text_file(prefix + "/lib/pkgconfig/other.pc", "Name: other\n");
}

// make uninstall removes heed's files and leaves the user's two.
void uninstall_leaves_the_users(Scratch& s, const std::string& work, const std::string& prefix) {
  Shell un = sh(s, work, make("uninstall PREFIX='" + prefix + "'"));
  INFO(un.out);
  CHECK(un.status == 0);
  CHECK(!fs::exists(prefix + "/include/heed"));
  CHECK(files_under(prefix) == 2);  // the user's two files, and nothing of heed's
  CHECK(slurp(prefix + "/include/mine.h") == "// the user's\n");
}


// Runs examples/first_steps (built as `program` in `work`) and holds it to what it must print: df/dw
// = 8, a loss that falls a hundredfold over its six lines, the line found. Returns its output.
std::string first_steps_learns(Scratch& s, const std::string& work, const std::string& program) {
  Shell run = sh(s, work, program);
  INFO(program << ": " << run.out);
  REQUIRE(run.status == 0);
  CHECK(run.out.find("f(3) = 15, df/dw = 8") != std::string::npos);
  const std::vector<double> l = losses(run.out);
  REQUIRE(l.size() == 6);
  CHECK(l.back() < l.front() / 100);
  CHECK(run.out.find("learned y = 3.000 a -2.000 b +1.000") != std::string::npos);
  return run.out;
}
// Runs examples/NAME (built in `work`) and holds it to what it must print: a loss that falls
// fourfold, a count (the number `score` captures) of at least `least`, and docs/library.md's
// output block for it, which must be its output exactly. Returns the output.
std::string example_learns(Scratch& s, const std::string& work, const std::string& name, const std::string& score,
                           int least) {
  Shell run = sh(s, work, "./" + name);
  INFO(name << ": " << run.out);
  REQUIRE(run.status == 0);
  const std::vector<double> l = losses(run.out);
  REQUIRE(l.size() >= 2);
  CHECK(l.back() < l.front() / 4);
  std::smatch m;
  REQUIRE(std::regex_search(run.out, m, std::regex(score)));
  CHECK(std::stoi(m[1]) >= least);
  CHECK_MESSAGE(slurp("docs/library.md").find("```\n" + run.out + "```\n") != std::string::npos,
                "docs/library.md's output block for examples/" << name << ".cpp is not what it prints:\n" << run.out);
  return run.out;
}
}  // namespace

TEST_SUITE("install") {
  TEST_CASE("README.md quotes examples/first_steps.cpp verbatim, from its first include on") {
    const std::string code = slurp("examples/first_steps.cpp");
    const size_t from = code.find("#include <cstdio>");
    REQUIRE(from != std::string::npos);
    CHECK_MESSAGE(slurp("README.md").find("```cpp\n" + code.substr(from) + "```\n") != std::string::npos,
                  "README.md's C++ example differs from examples/first_steps.cpp: copy the file into the README");
  }

  TEST_CASE("make install-double: the examples, built out of tree with pkg-config, run and learn" *
            doctest::skip(kNotDouble)) {
    if (test::tools_missing({"pkg-config"}, "the install test", "apt-get install pkg-config")) return;
    REQUIRE(fs::exists("build/libheed.a"));
    Scratch s("install");
    const std::string prefix = s.path("prefix"), work = s.path("work");
    fs::create_directories(work);
    users_files(prefix);

    Shell inst = sh(s, work, make("install-double PREFIX='" + prefix + "'"));
    INFO(inst.out);
    REQUIRE(inst.status == 0);
    CHECK(fs::exists(prefix + "/include/heed/nn/linear.h"));
    CHECK(fs::exists(prefix + "/include/heed/tensor/real.h"));
    // The installed headers are heed.h and what it reaches: every public one, no internal one.
    const std::set<std::string> installed = headers_under(prefix + "/include/heed");
    CHECK(installed.count("heed.h") == 1);
    CHECK(installed.count("tensor/gemm.h") == 0);
    CHECK(installed == public_headers());
    CHECK(fs::exists(prefix + "/lib/libheed.a"));
    CHECK(!fs::exists(prefix + "/lib/libheed-float.a"));  // install-double: the double library only
    CHECK(!fs::exists(prefix + "/lib/pkgconfig/heed-float.pc"));
    // Every include of heed's own folders is rewritten to heed/...: none is left bare.
    Shell bare = sh(s, work, "grep -rEn '#[[:space:]]*include[[:space:]]*\"(tensor|autograd|nn|models|io|viz)/' '" +
                                 prefix + "/include/heed' | head -3");
    CHECK(bare.out == "");
    CHECK(slurp(prefix + "/include/heed/nn/linear.h").find("#include \"heed/nn/module.h\"") != std::string::npos);
    const std::string pc = "PKG_CONFIG_PATH='" + prefix + "/lib/pkgconfig' pkg-config";
    Shell flags = sh(s, work, pc + " --cflags --libs heed");
    CHECK(flags.out.find("-std=c++20") != std::string::npos);
    CHECK(flags.out.find("-ffp-contract=off") != std::string::npos);
    CHECK(flags.out.find("-DHEED_REAL_FLOAT") == std::string::npos);
    CHECK(flags.out.find("-lheed") != std::string::npos);

    // The examples, copied out of the repository: nothing of it is on the include path.
    const std::vector<std::string> examples{"first_steps", "attention_reverse", "sequential", "tiny_transformer"};
    std::string commands;
    for (const std::string& e : examples) {
      fs::copy_file("examples/" + e + ".cpp", work + "/" + e + ".cpp");
      commands += (commands.empty() ? "" : " && ") + std::string("g++ -O1 ") + e + ".cpp $(" + pc +
                  " --cflags --libs heed) -o " + e;
    }
    Shell build = sh(s, work, commands);
    INFO(build.out);
    REQUIRE(build.status == 0);

    {  // first_steps learns; README.md shows this output
      const std::string out = first_steps_learns(s, work, "./first_steps");
      CHECK_MESSAGE(slurp("README.md").find("```\n" + out + "```\n") != std::string::npos,
                    "README.md's output block under the C++ example is not what examples/first_steps prints:\n"
                        << out);
    }
    {  // attention_reverse: the loss falls and a new sequence comes out reversed
      Shell run = sh(s, work, "./attention_reverse");
      INFO(run.out);
      REQUIRE(run.status == 0);
      const std::vector<double> l = losses(run.out);
      REQUIRE(l.size() >= 2);
      CHECK(l.back() < l.front() / 4);
      CHECK(run.out.find("prediction 6 3 7 2 5 <eos>") != std::string::npos);
      for (int t = 1; t <= 5; ++t)  // the anti-diagonal: output t reads source 6 - t
        CHECK(run.out.find("output " + std::to_string(t) + " looked at source " + std::to_string(6 - t)) !=
              std::string::npos);
    }
    {  // sequential: new points classified, parameters named as torch.nn.Sequential names them
      const std::string out = example_learns(s, work, "sequential", R"(classified right: (\d+) of 1000)", 950);
      CHECK(out.find("2.bias [16]\n") != std::string::npos);
    }
    {  // tiny_transformer: new digits come out reversed
      const std::string out = example_learns(s, work, "tiny_transformer", R"(held out: (\d+) of 100)", 80);
      CHECK(out.find("3 1 4 1 5 9 | -> 9 5 1 4 1 3\n") != std::string::npos);
    }
    uninstall_leaves_the_users(s, work, prefix);
  }

  TEST_CASE("make install: both libraries; the float example learns; a precision mismatch is named (make test-float)" *
            doctest::skip(kNotFloat)) {
    if (test::tools_missing({"pkg-config"}, "the install test", "apt-get install pkg-config")) return;
    REQUIRE(fs::exists("build/libheed.a"));  // make test-float builds both
    REQUIRE(fs::exists("build-float/libheed.a"));
    Scratch s("install-float");
    const std::string prefix = s.path("prefix"), work = s.path("work");
    fs::create_directories(work);
    users_files(prefix);

    Shell inst = sh(s, work, make("install PREFIX='" + prefix + "'"));
    INFO(inst.out);
    REQUIRE(inst.status == 0);
    CHECK(fs::exists(prefix + "/include/heed/nn/linear.h"));
    CHECK(fs::exists(prefix + "/lib/libheed.a"));
    CHECK(fs::exists(prefix + "/lib/libheed-float.a"));
    const std::string pc = "PKG_CONFIG_PATH='" + prefix + "/lib/pkgconfig' pkg-config";
    Shell flags = sh(s, work, pc + " --cflags --libs heed-float");
    CHECK(flags.out.find("-std=c++20") != std::string::npos);
    CHECK(flags.out.find("-ffp-contract=off") != std::string::npos);
    CHECK(flags.out.find("-DHEED_REAL_FLOAT") != std::string::npos);
    CHECK(flags.out.find("-lheed-float") != std::string::npos);

    fs::copy_file("examples/first_steps.cpp", work + "/first_steps.cpp");
    const std::string cxx = "g++ -O1";
    Shell build = sh(s, work,
                     cxx + " -c first_steps.cpp $(" + pc + " --cflags heed) -o first_steps.o && " +
                     cxx + " -c first_steps.cpp $(" + pc + " --cflags heed-float) -o first_steps_float.o && " +
                     cxx + " first_steps_float.o $(" + pc + " --libs heed-float) -o first_steps_float");
    INFO(build.out);
    REQUIRE(build.status == 0);
    first_steps_learns(s, work, "./first_steps_float");  // in float too
    {  // a program compiled for double linked with the float library: the first line names it, and back
      Shell wrong = sh(s, work, cxx + " first_steps.o $(" + pc + " --libs heed-float) -o mixed");
      CHECK(wrong.status != 0);
      CHECK(first_line(wrong.out).find("heed_library_is_float_but_this_program_was_compiled_for_double") !=
            std::string::npos);
      Shell back = sh(s, work, cxx + " first_steps_float.o $(" + pc + " --libs heed) -o mixed");
      CHECK(back.status != 0);
      CHECK(first_line(back.out).find("heed_library_is_double_but_this_program_was_compiled_for_float") !=
            std::string::npos);
    }
    uninstall_leaves_the_users(s, work, prefix);
  }

  TEST_CASE("make install-double PREFIX with a space and a quote: pkg-config keeps -I whole; uninstall removes the folders it made" *
            doctest::skip(kNotDouble)) {
    if (test::tools_missing({"pkg-config"}, "the install test", "apt-get install pkg-config")) return;
    REQUIRE(fs::exists("build/libheed.a"));
    Scratch s("install-odd-prefix");
    const std::string prefix = s.path("my prefix/it's heed");
    fs::create_directories(prefix + "/lib");  // the user's, empty: uninstall must leave it
    // PREFIX as the shell passes it: in single quotes, the quote itself written '\''.
    std::string quoted = "'";
    for (char c : prefix) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    quoted += "'";
    Shell inst = sh(s, s.folder(), make("install-double PREFIX=" + quoted));
    INFO(inst.out);
    REQUIRE(inst.status == 0);
    CHECK(fs::exists(prefix + "/include/heed/nn/linear.h"));
    // The flags as a shell reads pkg-config's answer (eval): -I and -L are one word each.
    Shell flags = sh(s, s.folder(), "PKG_CONFIG_PATH=" + quoted + "/lib/pkgconfig; export PKG_CONFIG_PATH; "
                                    "eval \"set -- $(pkg-config --cflags --libs heed)\"; for a; do echo \"[$a]\"; done");
    INFO(flags.out);
    CHECK(flags.out.find("[-I" + prefix + "/include]") != std::string::npos);
    CHECK(flags.out.find("[-L" + prefix + "/lib]") != std::string::npos);
    Shell un = sh(s, s.folder(), make("uninstall PREFIX=" + quoted));
    INFO(un.out);
    CHECK(un.status == 0);
    CHECK(!fs::exists(prefix + "/include"));   // made by install, empty now
    CHECK(!fs::exists(prefix + "/lib/pkgconfig"));
    CHECK(fs::is_directory(prefix + "/lib"));  // the user's
    CHECK(files_under(s.path("my prefix")) == 0);
  }

  TEST_CASE("make install-double DESTDIR=stage PREFIX=/opt/heed: files in the stage, pkg-config files naming /opt/heed" *
            doctest::skip(kNotDouble)) {
    REQUIRE(fs::exists("build/libheed.a"));
    Scratch s("install-destdir");
    const std::string stage = s.path("stage");
    Shell inst = sh(s, s.folder(), make("install-double PREFIX=/opt/heed DESTDIR='" + stage + "'"));
    INFO(inst.out);
    REQUIRE(inst.status == 0);
    CHECK(fs::exists(stage + "/opt/heed/include/heed/models/seq2seq.h"));
    CHECK(fs::exists(stage + "/opt/heed/lib/libheed.a"));
    const std::string pc = slurp(stage + "/opt/heed/lib/pkgconfig/heed.pc");
    CHECK(pc.find("prefix=/opt/heed\n") != std::string::npos);
    CHECK(pc.find(stage) == std::string::npos);
    Shell un = sh(s, s.folder(), make("uninstall PREFIX=/opt/heed DESTDIR='" + stage + "'"));
    CHECK(un.status == 0);
    CHECK(files_under(stage) == 0);
    CHECK(!fs::exists(stage));  // every folder install made, and only those, is gone
  }
}
