// A newcomer's first hour with heed: the mistakes people make first get a message that says
// what to do (exit status 2, one line on stderr, the words checked here); --version, --help
// and a bare `heed` answer; a run without --save says its model will be discarded.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/heed_cli.h"

using namespace heed;

namespace {

struct Refusal {
  std::string args;
  std::vector<std::string> says;  // fragments of the one line on stderr
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

}  // namespace

TEST_SUITE("ch06_first_hour") {
  TEST_CASE("first mistakes: each is refused with one line that says what to do") {
    Scratch s("first-hour");
    const std::string small = "--embed 4 --hidden 6 --batch 4 --steps 1 --eval-samples 4";
    const std::string m = s.path("m.safetensors"), tr = s.path("tr.safetensors");
    REQUIRE(s.heed("train --min-len 2 --max-len 4 " + small + " --save " + m).status == 0);
    REQUIRE(s.heed("train --task translate " + small + " --save " + tr).status == 0);
    write_file(s.path("notes.txt"), "a text file that someone took for a model\n");
    write_file(s.path("image.png"), std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
    std::filesystem::create_directories(s.path("pictures"));
    const std::string folder = s.path("pictures");

    const std::vector<Refusal> table = {
        {"eval --load " + s.path("notes.txt"), {"notes.txt: not a safetensors file", "heed train --save"}},
        {"predict --load " + s.path("image.png") + " \"1 2\"", {"not a safetensors file"}},
        {"predict --load " + tr + " \"Ich habe keinen hunger .\"", {"unknown token 'Ich'", "lower case: write 'ich'"}},
        {"predict --load " + tr + " \"ich habe brot.\"", {"unknown token 'brot.'", "punctuation is a token of its own: write 'brot .'"}},
        {"predict --load " + tr + " \"ich habe pizza\"", {"unknown token 'pizza'", "the words this model knows: ich"}},
        {"predict --load " + m + " \"3 x 4\"", {"unknown token 'x'", "the symbols are the numbers 0 to 9"}},
        {"predict --load " + m + " --svg " + folder + " \"1 2\"", {"--svg " + folder + ": is a folder; give a file name"}},
        {"predict --load " + m + " --html " + folder + " \"1 2\"", {"--html " + folder + ": is a folder; give a file name"}},
        {"train --steps 1 --save " + folder, {"--save " + folder + ": is a folder; give a file name, e.g."}},
        {"train --task translate --vocab 20", {"--vocab does not apply to --task translate"}},
        {"train --task translate --min-len 3", {"--min-len does not apply to --task translate"}},
        {"train --task translate --max-len 9", {"--max-len does not apply to --task translate"}},
    };
    for (const Refusal& r : table) {
      CliRun run = s.heed(r.args);
      INFO("heed " << r.args << "\n  -> status " << run.status << ", stderr: " << run.err);
      CHECK(run.status == 2);
      CHECK(count_lines(run.err) == 1);
      for (const std::string& words : r.says) CHECK(run.err.find(words) != std::string::npos);
    }
    CHECK_FALSE(std::filesystem::exists(s.path("pictures.tmp")));  // nothing written beside the folder
  }

  TEST_CASE("make builds on every core unless told otherwise") {
    // make itself, from the repository root, outside any make that runs the tests.
    auto makeflags = [](const std::string& args) {
      std::string out;
      if (FILE* p = popen(("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory show-makeflags " +
                           args + " 2>&1").c_str(), "r")) {
        char buf[512];
        while (std::fgets(buf, sizeof buf, p)) out += buf;
        pclose(p);
      }
      return out;
    };
    std::string cores;
    if (FILE* p = popen("nproc", "r")) {
      char buf[32] = {};
      if (std::fgets(buf, sizeof buf, p)) cores = std::string(buf).substr(0, std::string(buf).find('\n'));
      pclose(p);
    }
    REQUIRE_FALSE(cores.empty());
    CHECK(makeflags("").find("-j" + cores) != std::string::npos);
    CHECK(makeflags("JOBS=3").find("-j3") != std::string::npos);
    const std::string one = makeflags("-j1");
    CHECK(one.find("-j1") != std::string::npos);
    CHECK(one.find("-j" + cores + " ") == std::string::npos);
  }

  TEST_CASE("make test-libcxx and test-gcc11 name the packages when their compiler is missing, and install nothing") {
    // A compiler that does not exist: the target stops before building, saying what to install.
    auto run_make = [](const std::string& args, int& status) {
      std::string out;
      if (FILE* p = popen(("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory " + args + " 2>&1").c_str(),
                          "r")) {
        char buf[512];
        while (std::fgets(buf, sizeof buf, p)) out += buf;
        status = pclose(p);
      }
      return out;
    };
    int status = 0;
    std::string out = run_make("test-gcc11 GCC11_CXX=heed-no-such-compiler", status);
    INFO(out);
    CHECK(status != 0);
    CHECK(out.find("heed: 'heed-no-such-compiler' cannot build a C++20 program; on Debian or Ubuntu: "
                   "sudo apt-get install g++-11") != std::string::npos);
    CHECK(out.find("make[1]") == std::string::npos);  // no build was started
    out = run_make("test-libcxx LIBCXX_CXX=heed-no-such-compiler", status);
    INFO(out);
    CHECK(status != 0);
    CHECK(out.find("sudo apt-get install clang libc++-14-dev libc++abi-14-dev") != std::string::npos);
    CHECK(out.find("make[1]") == std::string::npos);
  }

  TEST_CASE("heed --version, heed --help and a bare heed") {
    Scratch s("first-hour-usage");
    CliRun v = s.heed("--version");
    CHECK(v.status == 0);
    CHECK(v.out.rfind("heed ", 0) == 0);
    CHECK(v.out.find("heed-seq2seq-2") != std::string::npos);  // the format heed writes
    // and the precision of this build (make float: single)
    CHECK(v.out.find(sizeof(real) == 8 ? "double precision" : "single precision") != std::string::npos);
    CHECK(count_lines(v.out) == 1);

    CliRun h = s.heed("--help");
    CHECK(h.status == 0);
    CHECK(h.out.find("usage: heed <command>") != std::string::npos);
    CHECK(h.out.find("--version") != std::string::npos);
    CHECK(h.err.empty());

    CliRun bare = s.heed("");
    CHECK(bare.status == 2);
    CHECK(bare.err.find("usage: heed <command>") != std::string::npos);
  }

  TEST_CASE("heed train says when its model will be discarded, and only then") {
    Scratch s("first-hour-save");
    const std::string small = "--min-len 2 --max-len 3 --embed 4 --hidden 6 --batch 4 --steps 1 --eval-samples 4";
    CliRun without = s.heed("train " + small);
    CHECK(without.status == 0);
    CHECK(without.out.find("no --save FILE: the trained model will be discarded") != std::string::npos);
    CliRun with = s.heed("train " + small + " --save " + s.path("m.safetensors"));
    CHECK(with.status == 0);
    CHECK(with.out.find("discarded") == std::string::npos);
    CHECK(with.out.find("saved to") != std::string::npos);
  }

  TEST_CASE("pictures name what they show: task, model and cell in the title, captioned axes, readable punctuation") {
    Scratch s("first-hour-pictures");
    const std::string small = "--embed 4 --hidden 6 --batch 4 --steps 1 --eval-samples 4";
    const std::string m = s.path("m.safetensors"), tr = s.path("tr.safetensors");
    REQUIRE(s.heed("train --min-len 2 --max-len 4 --cell lstm " + small + " --save " + m).status == 0);
    REQUIRE(s.heed("train --task translate --bidirectional " + small + " --save " + tr).status == 0);
    REQUIRE(s.heed("predict --load " + m + " --svg " + s.path("a.svg") + " --html " + s.path("a.html") + " \"3 1 4\"").status == 0);
    for (const char* file : {"a.svg", "a.html"}) {
      const std::string text = slurp(s.path(file));
      INFO(file);
      CHECK(text.find("<title>reverse: additive attention (lstm)</title>") != std::string::npos);
      CHECK(text.find(">source</text>") != std::string::npos);
      CHECK(text.find(">output</text>") != std::string::npos);
    }
    REQUIRE(s.heed("predict --load " + tr + " --svg " + s.path("t.svg") + " \"ich habe hunger , weil ich satt bin .\"")
                .status == 0);
    const std::string svg = slurp(s.path("t.svg"));
    CHECK(svg.find("translate: additive attention (gru, bidirectional encoder)") != std::string::npos);
    // The comma and the full stop of the source are drawn large and bold, words are not.
    CHECK(svg.find("font-size=\"20\" font-weight=\"bold\">,</text>") != std::string::npos);
    CHECK(svg.find("font-size=\"20\" font-weight=\"bold\">.</text>") != std::string::npos);
    CHECK(svg.find("rotate(-45)\">ich</text>") != std::string::npos);
  }
}
