// heed train --film --layer L --head K on a Transformer, run as a user runs it (build/heed, from
// the repository root): the film holds that layer's and head's cross-attention, the very matrix
// heed predict --layer L --head K draws from the saved model (to the thousandth the page keeps);
// the title and the page's data name it; an interrupted run's hint repeats the flags, and a
// resumed run continues the film only with the same choice; bad choices are refused naming
// flag, value and range, before anything is written.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "io/json.h"
#include "tests/support/attention_matrix.h"
#include "tests/support/heed_cli.h"
#include "tests/support/tools.h"
#include "tests/support/chapter_check.h"  // build_dir
#include "viz/film.h"

using namespace heed;

using heed::test::Matrix;
using heed::test::matrix;
using heed::test::max_diff;

namespace {

std::vector<std::string> strings(const Json& j) {
  std::vector<std::string> out;
  for (const Json& s : j.as_array()) out.push_back(s.as_string());
  return out;
}

// A Transformer of 2 decoder layers of 4 heads on reverse 3-5: 600 steps write the film's
// example, the digits of pi 3 1 4 1 5, reversed (its last snapshot and heed predict then read
// the same tokens).
const std::string kRun =
    "train --task reverse --model transformer --min-len 3 --max-len 5 --embed 16 --heads 4 --ff 32 --layers 2 "
    "--batch 16 --steps 600 --eval-samples 10 --watch-every 100";
const char* const kShows = "cross-attention, layer 0 (of 0-1), head 2 (of 0-3)";

}  // namespace

TEST_SUITE("ch13_transformer_heads") {
  TEST_CASE("heed train --film --layer L --head K films heed predict's matrix; the title names it; resume keeps it") {
    Scratch s("film-heads");
    const std::string m = s.path("m.safetensors"), film = s.path("f.html");
    // Stopped half-way (as by Ctrl-C): the hint that resumes the run repeats the choice.
    CliRun r = s.heed_with_faults(kRun + " --save " + m + " --film " + film + " --layer 0 --head 2", "HEED_FAULT_SIGNAL=INT@300");
    INFO(r.out << r.err);
    REQUIRE(r.status == 130);
    CHECK(r.err.find("resume with: " + build_dir() + "/heed-faults train --resume " + m + " --film " + film +
                     " --watch-every 100 --attention cross --layer 0 --head 2\n") != std::string::npos);
    const std::string half = slurp(film);
    Film earlier = read_film(half);
    CHECK(earlier.shows == kShows);
    REQUIRE(earlier.frames.size() == 4);  // steps 0, 100, 200, 300
    CHECK(earlier.frames.back().step == 300);

    // Another choice, or none, would mix two matrices in one film: refused, the film untouched.
    struct Other {
      std::string flags, words;
    } others[] = {
        {"", std::string("films ") + kShows + ", this run the decoder's own attention (no --attention, --layer or --head)"},
        {" --layer 1 --head 2",
         std::string("films ") + kShows + ", this run cross-attention, layer 1 (of 0-1), head 2 (of 0-3)"},
        {" --layer 0", std::string("films ") + kShows + ", this run cross-attention, layer 0 (of 0-1), mean of heads 0-3"},
    };
    for (const Other& o : others) {
      CliRun bad = s.heed("train --resume " + m + " --film " + film + " --watch-every 100" + o.flags);
      INFO("--resume with '" << o.flags << "' -> " << bad.status << ": " << bad.err);
      CHECK(bad.status == 2);
      CHECK(bad.err.find("--film " + film + ": the file exists and " + o.words) != std::string::npos);
      CHECK(slurp(film) == half);
    }

    CliRun setting = s.heed("train --resume " + m + " --heads 2 --film " + film);  // a setting: refused, and said why
    CHECK(setting.status == 2);
    CHECK(setting.err.find("--watch-every and the film's --attention, --layer and --head may change") != std::string::npos);

    // Resumed as the hint says: the film goes on with the same matrix to the end.
    r = s.heed("train --resume " + m + " --film " + film + " --watch-every 100 --attention cross --layer 0 --head 2");
    REQUIRE(r.status == 0);
    const std::string page = slurp(film);
    CHECK(page.find("\"steps\":[0,100,200,300,400,500,600]") != std::string::npos);
    CHECK(page.find(std::string("<title>transformer ") + kShows + ", learning reverse</title>") != std::string::npos);
    CHECK(page.find(std::string("<h1>transformer ") + kShows + ", learning reverse</h1>") != std::string::npos);
    CHECK(page.find("--attention cross --layer 0 --head 2; a snapshot every 100 steps") != std::string::npos);
    const Film done = read_film(page);
    CHECK(done.shows == kShows);
    const FilmFrame& last = done.frames.back();
    REQUIRE(last.step == 600);

    // heed predict reads the saved model (the weights of the last snapshot) for the same source.
    CliRun p = s.heed("predict --load " + m + " --layer 0 --head 2 --json \"3 1 4 1 5\"");
    INFO(p.err);
    REQUIRE(p.status == 0);
    REQUIRE(done.source == strings(*p.json().find("source")));
    REQUIRE(last.output == strings(*p.json().find("output")));  // the same tokens written: 5 1 4 1 3 <eos>
    const Matrix predicted = matrix(*p.json().find("attention"));
    // The page keeps thousandths: each weight within half of one of predict's.
    CHECK(max_diff(last.weights, predicted) <= 0.0005 + 1e-6);
    // ... and it is that head, not the mean the film shows by default nor another layer's head.
    for (const char* other : {"", " --layer 0", " --layer 1 --head 2", " --layer 0 --head 1"}) {
      CliRun q = s.heed(std::string("predict --load ") + m + other + " --json \"3 1 4 1 5\"");
      REQUIRE(q.status == 0);
      INFO("heed predict" << other);
      CHECK(max_diff(last.weights, matrix(*q.json().find("attention"))) > 0.01);
    }
  }

  TEST_CASE("heed train --film without --layer/--head: the decoder's own attention, the page as before") {
    Scratch s("film-heads-default");
    CliRun r = s.heed("train --task reverse --model transformer --min-len 3 --max-len 5 --embed 8 --heads 2 --ff 16 "
                      "--layers 2 --batch 4 --steps 4 --eval-samples 5 --watch-every 2 --film " + s.path("f.html"));
    INFO(r.err);
    REQUIRE(r.status == 0);
    const std::string page = slurp(s.path("f.html"));
    CHECK(page.find("<title>transformer cross-attention (layer 1, the last: mean of 2 heads) learning reverse</title>") !=
          std::string::npos);
    CHECK(page.find("\"shows\"") == std::string::npos);
    CHECK(page.find("--attention") == std::string::npos);
    CHECK(read_film(page).shows.empty());
  }

  TEST_CASE("heed train --watch --layer L --head K: the terminal view draws that head and names it") {
    if (test::tools_missing({"script", "stty"}, "the terminal test (a faked terminal)", "apt-get install util-linux coreutils")) return;
    Scratch s("watch-heads-tty");
    std::string cmd = "script -qec 'stty rows 40 cols 100; " + runner() + build_dir() +
                      "/heed train --model transformer --layers 2 --heads 4 --embed 16 --min-len 3 --max-len 5 "
                      "--batch 8 --steps 20 --eval-samples 5 --watch --watch-every 10 --layer 0 --head 1' /dev/null >" +
                      s.path("tty.txt") + " 2>&1";
    REQUIRE(std::system(cmd.c_str()) == 0);
    const std::string tty = slurp(s.path("tty.txt"));
    for (const char* step : {"step 0  loss -", "step 20  loss "}) {
      const size_t at = tty.find(step);
      REQUIRE(at != std::string::npos);
      const std::string line = tty.substr(at, tty.find('\n', at) - at);
      INFO(line);
      CHECK(line.find("cross-attention, layer 0 (of 0-1), head 1 (of 0-3) of the fixed example:") != std::string::npos);
    }
  }

  TEST_CASE("heed train: --attention, --layer and --head are refused naming flag, value and range, before training") {
    Scratch s("film-heads-bad");
    const std::string film = s.path("f.html");
    const std::string t = "--model transformer --layers 2 --heads 4 --embed 16 --steps 100000 ";
    struct Bad {
      std::string args, words;
    } bad[] = {
        {"--model additive --film " + film + " --layer 0",
         "--layer 0: the additive model attends once per output step, with no layers or heads to choose from"},
        {"--model plain --watch --head 1", "--watch: the plain model has no attention matrix"},
        {t + "--film " + film + " --layer 2", "--layer 2: this model has 2 decoder layers, numbered 0 to 1"},
        {t + "--film " + film + " --head 4", "--head 4: this model has 4 heads in each layer, numbered 0 to 3 (or all)"},
        {t + "--watch --head -1", "--head -1: this model has 4 heads in each layer, numbered 0 to 3 (or all)"},
        {t + "--film " + film + " --head all", "--head all: --film and --watch draw one matrix per snapshot, so give "
                                                "--head K, numbered 0 to 3"},
        {t + "--film " + film + " --attention encoder",
         "--attention encoder: --film and --watch draw output tokens x source tokens"},
        {t + "--film " + film + " --attention self", "--attention: 'self' is not one of cross, encoder, decoder"},
        {t + "--layer 1", "--layer 1: heed train draws a chosen layer and head only with --film FILE or --watch"},
        {t + "--head 1 --save " + s.path("m.safetensors"),
         "--head 1: heed train draws a chosen layer and head only with --film FILE or --watch"},
    };
    for (const Bad& b : bad) {
      CliRun r = s.heed("train " + b.args);
      INFO("heed train " << b.args << " -> " << r.status << ": " << r.err);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(r.err.find(b.words) != std::string::npos);
      CHECK(r.out.empty());  // nothing started
      CHECK(slurp(film).empty());
    }
  }
}
