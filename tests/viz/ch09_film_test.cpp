// Chapter 09: attention while it forms. The snapshots (models/analysis/watch.h), the film page
// (viz/film.h) -- also in a real browser, headless Chromium, where it is installed -- and
// heed train --watch / --film from the command line.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>

#include "io/atomic_file.h"
#include "models/seq2seq.h"
#include "models/tasks/translate.h"
#include "models/analysis/watch.h"
#include "tests/support/chapter_check.h"  // build_dir
#include "tests/support/heed_cli.h"
#include "tests/support/tools.h"
#include "viz/film.h"
#include "viz/svg.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

ModelConfig tiny(const Task& task, const std::string& model, const std::string& cell) {
  ModelConfig c;
  c.model = model;
  c.cell = cell;
  c.src_vocab = task.src_vocab().size();
  c.tgt_vocab = task.tgt_vocab().size();
  c.embed = 4;
  c.hidden = 6;
  c.max_src_len = 2 * task.max_len();
  return c;
}

// A film of two clearly different frames over the source "a b c": uniform, then a diagonal.
Film two_frames() {
  Film film;
  film.title = "test film";
  film.caption = "made by hand";
  film.source = {"a", "b", "c"};
  film.reference = {"A", "B", "<eos>"};
  FilmFrame flat{0, NAN, 0, {"x", "x", "x"}, {}, {}, {}};
  flat.weights.assign(3, std::vector<real>(3, 1.0 / 3));
  FilmFrame sharp{100, 0.25, 1, {"A", "B", "<eos>"}, {{0.9, 0.05, 0.05}, {0.1, 0.8, 0.1}, {0.001, 0.002, 0.997}}, {}, {}};
  film.frames = {flat, sharp};
  return film;
}

// The lines of Chromium's log that come from the page (its console), not from the browser.
std::string console_lines(const std::string& log) {
  std::string out;
  for (std::size_t i = 0, nl; i < log.size(); i = nl + 1) {
    nl = log.find('\n', i);
    if (nl == std::string::npos) nl = log.size();
    std::string line = log.substr(i, nl - i);
    if (line.find("CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos) out += line + "\n";
  }
  return out;
}

// What a terminal of `cols` x `rows` shows after `bytes` (UTF-8): enough of one to check a
// redraw in place -- characters, wrapping, scrolling, \r, \n (as CR LF, as a pty's onlcr makes
// it), and the escapes heed uses: ESC[nA (up), ESC[K (clear to end of line), ESC[J (to end of screen).
std::vector<std::string> terminal_screen(const std::string& bytes, int cols, int rows) {
  std::vector<std::vector<std::string>> screen(rows, std::vector<std::string>(cols, " "));
  int r = 0, c = 0;
  auto down = [&] {
    if (++r == rows) {
      screen.erase(screen.begin());
      screen.emplace_back(cols, " ");
      r = rows - 1;
    }
  };
  for (std::size_t i = 0; i < bytes.size();) {
    const char ch = bytes[i];
    if (ch == '\x1b' && i + 1 < bytes.size() && bytes[i + 1] == '[') {
      std::size_t j = i + 2;
      int n = 0;
      while (j < bytes.size() && std::isdigit(static_cast<unsigned char>(bytes[j]))) n = 10 * n + (bytes[j++] - '0');
      if (j == bytes.size()) break;
      if (bytes[j] == 'A') r = std::max(0, r - std::max(1, n));
      if (bytes[j] == 'K' || bytes[j] == 'J')
        for (int k = c; k < cols; ++k) screen[r][k] = " ";
      if (bytes[j] == 'J')
        for (int k = r + 1; k < rows; ++k) screen[k].assign(cols, " ");
      i = j + 1;
      continue;
    }
    std::size_t len = 1;
    while (i + len < bytes.size() && (static_cast<unsigned char>(bytes[i + len]) & 0xC0) == 0x80) ++len;
    if (ch == '\r') {
      c = 0;
    } else if (ch == '\n') {
      c = 0;
      down();
    } else {
      if (c == cols) {
        c = 0;
        down();
      }
      screen[r][c++] = bytes.substr(i, len);
    }
    i += len;
  }
  std::vector<std::string> lines;
  for (const auto& row : screen) {
    std::string line;
    for (const auto& cell : row) line += cell;
    lines.push_back(line.substr(0, line.find_last_not_of(' ') + 1));
  }
  return lines;
}

}  // namespace

TEST_SUITE("ch09_attention_matrices") {
  TEST_CASE("watch: the fixed example is the digits of pi for the toy tasks, the seed sentence for translate") {
    ReverseTask reverse(10, 5, 10);
    Example e = watch_example(reverse);
    CHECK(reverse.src_vocab().decode(e.src) == "3 1 4 1 5 9 2 6");
    CHECK(reverse.tgt_vocab().decode(e.tgt) == "6 2 9 5 1 4 1 3");
    CHECK(SortTask(4, 3, 5).src_vocab().decode(watch_example(SortTask(4, 3, 5)).src) == "3 1 0 1 1");  // mod 4, L 5
    CHECK(watch_example(CopyTask(10, 12, 20)).src.size() == 12);
    TranslateTask translate;
    Example t = watch_example(translate);
    CHECK(translate.src_vocab().decode(t.src) == TranslateTask::kSeedSource);
    CHECK(translate.tgt_vocab().decode(t.tgt) == TranslateTask::kSeedTarget);
  }

  TEST_CASE("watch: a snapshot for every attention kind and cell, each row a distribution; plain is refused") {
    ReverseTask task(10, 3, 5);  // the example: 3 1 4 1 5
    for (const char* model : {"additive", "general", "dot", "scaled", "cosine", "location"})
      for (const char* cell : {"gru", "lstm", "rnn"}) {
        INFO(model << " " << cell);
        Generator gen(1);
        Seq2Seq m(tiny(task, model, cell), gen);
        AttentionWatch watch(task, model, 10);
        FilmFrame f = watch.take(m, 7, 0.5);
        CHECK(f.step == 7);
        CHECK(f.loss == 0.5);
        REQUIRE(f.weights.size() == 6);  // 5 symbols and <eos>
        REQUIRE(f.output.size() == 6);
        for (const auto& row : f.weights) {
          REQUIRE(row.size() == 5);
          real sum = 0;
          for (real w : row) sum += w;
          CHECK(sum == doctest::Approx(1).epsilon(test::tol(1e-12)));
        }
        CHECK(f.exact >= 0);
        CHECK(f.exact <= 1);
      }
    Generator gen(1);
    ModelConfig bi = tiny(task, "additive", "gru");
    bi.bidirectional = true;
    Seq2Seq m(bi, gen);
    CHECK(AttentionWatch(task, "additive", 10).take(m, 0, NAN).weights.size() == 6);
    CHECK_THROWS_WITH_AS(AttentionWatch(task, "plain"), doctest::Contains("plain model has no attention"), Error);
  }

  TEST_CASE("watch: translate films the seed sentence") {
    TranslateTask task;
    Generator gen(1);
    Seq2Seq m(tiny(task, "general", "gru"), gen);
    AttentionWatch watch(task, "general", 5);
    CHECK(watch.source().size() == 12);
    CHECK(watch.reference().back() == "<eos>");
    FilmFrame f = watch.take(m, 0, NAN);
    CHECK(f.weights.size() == 12);  // 11 English tokens and <eos>
    CHECK(f.weights[0].size() == 12);
  }

  TEST_CASE("html_film: one self-contained page holding every frame; bad films are refused") {
    Film film = two_frames();
    std::string page = html_film(film);
    CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(page.find("<script src") == std::string::npos);  // nothing fetched
    CHECK(page.find("<link") == std::string::npos);
    CHECK(page.find("url(http") == std::string::npos);
    CHECK(page.find("id=\"slider\"") != std::string::npos);
    CHECK(page.find("id=\"play\"") != std::string::npos);
    CHECK(page.find("\"steps\":[0,100]") != std::string::npos);
    CHECK(page.find("[900,50,50,100,800,100,1,2,997]") != std::string::npos);  // thousandths, row after row
    CHECK(page.find("\"loss\":[null,0.25]") != std::string::npos);

    Film bad = two_frames();
    bad.frames[1].step = 0;
    CHECK_THROWS_WITH_AS(html_film(bad), doctest::Contains("does not come after step 0"), Error);
    bad = two_frames();
    bad.frames[1].weights[2].pop_back();
    CHECK_THROWS_WITH_AS(html_film(bad), doctest::Contains("row 2 of weights has 2 values for 3"), Error);
    bad = two_frames();
    bad.frames.clear();
    CHECK_THROWS_WITH_AS(html_film(bad), doctest::Contains("no frames"), Error);
  }

  TEST_CASE("html_film: a 2000-step run filmed every 10 steps stays small") {
    // 201 frames (twice the default's) of the translate example's size (13 output steps, 12
    // source tokens), each weight with three digits.
    Film film;
    film.title = "size";
    for (int s = 0; s < 12; ++s) film.source.push_back("w" + std::to_string(s));
    for (int t = 0; t < 13; ++t) film.reference.push_back("o" + std::to_string(t));
    for (int k = 0; k <= 200; ++k) {
      FilmFrame f{10 * k, static_cast<real>(1.0 / (k + 1)), static_cast<real>(k / 200.0), film.reference, {}, {}, {}};
      f.weights.assign(13, std::vector<real>(12, 0.123));
      film.frames.push_back(f);
    }
    std::string page = html_film(film);
    MESSAGE("a 201-frame film of a 13 x 12 matrix: " << page.size() << " bytes");
    CHECK(page.size() < 1000000);
  }

  TEST_CASE("html_film in headless Chromium: the slider redraws the matrix, play advances, no error") {
    if (test::tools_missing({"chromium"}, "the film page's browser test", "apt-get install chromium")) return;
    Scratch s("film-browser");
    Film film = two_frames();
    const std::string page = s.path("film.html"), profile = s.path("profile");
    write_text_file(page, html_film(film));
    const std::string cmd =
        "timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking "
        "--disable-component-update --disable-sync --user-data-dir=" +
        profile + " --virtual-time-budget=6000 --enable-logging=stderr --v=0 --dump-dom 'file://" + page +
        "#selftest' >" + s.path("dom.html") + " 2>" + s.path("stderr.txt");
    auto t0 = std::chrono::steady_clock::now();
    int status = std::system(cmd.c_str());
    MESSAGE("chromium took " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s");
    const std::string dom = slurp(s.path("dom.html")), err = slurp(s.path("stderr.txt"));
    INFO("chromium's console: " << console_lines(err));
    REQUIRE(status == 0);

    std::smatch m;
    REQUIRE_MESSAGE(std::regex_search(dom, m, std::regex("<pre id=\"selftest\"([^>]*)>")),
                    "the page's self-test did not run");
    const std::string result = m[1];
    CHECK(result.find("data-cells=\"9\"") != std::string::npos);
    CHECK(result.find("data-changed=\"9\"") != std::string::npos);  // every cell differs between the frames
    CHECK(result.find("data-frame=\"1\"") != std::string::npos);
    CHECK(result.find("data-played=\"1\"") != std::string::npos);  // play moved from frame 0 to 1
    REQUIRE(std::regex_search(dom, m, std::regex("<pre id=\"errors\" data-count=\"(\\d+)\"")));
    CHECK_MESSAGE(m[1] == "0", dom.substr(dom.find("<pre id=\"errors\"")));
    CHECK(err.find("Uncaught") == std::string::npos);
    CHECK(err.find(":CONSOLE") == std::string::npos);

    // The page ends on the last frame: each cell's hover title holds that frame's weight.
    std::regex cell("data-row=\"(\\d)\" data-col=\"(\\d)\"[^>]*><title>([^<]*)</title>");
    int seen = 0;
    for (std::sregex_iterator it(dom.begin(), dom.end(), cell), end; it != end; ++it, ++seen) {
      const int t = std::stoi((*it)[1]), c = std::stoi((*it)[2]);
      char want[64];
      std::snprintf(want, sizeof want, ": %.3f", film.frames[1].weights[t][c]);
      std::string title = (*it)[3];
      CHECK_MESSAGE(title == xml_escape(film.frames[1].output[t] + " \u2192 " + film.source[c] + want), title);
    }
    CHECK(seen == 9);
  }

  TEST_CASE("heed train --film writes the page and leaves training unchanged; --watch is silent off a terminal") {
    Scratch s("film");
    const std::string base = "train --task reverse --min-len 3 --max-len 5 --embed 8 --hidden 8 --batch 8 --steps 25 "
                             "--eval-samples 20 --json";
    CliRun plain_run = s.heed(base);
    CliRun film_run = s.heed(base + " --watch --watch-every 10 --film " + s.path("f.html"));
    INFO(film_run.err);
    REQUIRE(plain_run.status == 0);
    REQUIRE(film_run.status == 0);
    CHECK(film_run.json().find("loss")->as_real() == plain_run.json().find("loss")->as_real());
    CHECK(film_run.json().find("exact")->as_real() == plain_run.json().find("exact")->as_real());
    CHECK(film_run.out.find("wrote the film (4 snapshots) to ") != std::string::npos);  // steps 0, 10, 20, 25
    CHECK(film_run.out.find('\x1b') == std::string::npos);
    CHECK(count_lines(film_run.out) == count_lines(plain_run.out) + 1);
    std::string page = slurp(s.path("f.html"));
    CHECK(page.find("\"steps\":[0,10,20,25]") != std::string::npos);
    CHECK(page.find("\"source\":[\"3\",\"1\",\"4\",\"1\",\"5\"]") != std::string::npos);

    CliRun tr = s.heed("train --task translate --model location --cell lstm --embed 8 --hidden 8 --batch 4 "
                       "--steps 3 --eval-samples 5 --film " + s.path("t.html"));
    INFO(tr.err);
    REQUIRE(tr.status == 0);
    CHECK(slurp(s.path("t.html")).find("\"weil\",\"ich\",\"ein\",\"brot\"") != std::string::npos);
  }

  TEST_CASE("heed train --resume --film: the film of a resumed run starts at the step it resumed") {
    Scratch s("film-resume");
    CliRun first = s.heed("train --min-len 3 --max-len 5 --embed 8 --hidden 8 --batch 8 --steps 20 --eval-samples 5 "
                          "--save " + s.path("m.safetensors"));
    INFO(first.err);
    REQUIRE(first.status == 0);
    CliRun more = s.heed("train --resume " + s.path("m.safetensors") + " --steps 35 --watch-every 10 --film " +
                         s.path("f.html"));
    INFO(more.err);
    REQUIRE(more.status == 0);
    CHECK(slurp(s.path("f.html")).find("\"steps\":[20,30,35]") != std::string::npos);
  }

  TEST_CASE("heed train --film: a run stopped by an error leaves its film so far") {
    Scratch s("film-nan");
    CliRun r = s.heed_with_faults("train --min-len 3 --max-len 5 --embed 8 --hidden 8 --batch 8 --steps 40 --watch-every 5 "
                                  "--film " + s.path("f.html"),
                                  "HEED_FAULT_NAN_AFTER_STEP=15");
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("heed train: step 16: the loss is nan") != std::string::npos);  // after the progress lines
    CHECK(r.out.find("wrote the film so far (4 snapshots, to step 15)") != std::string::npos);
    CHECK(slurp(s.path("f.html")).find("\"steps\":[0,5,10,15]") != std::string::npos);
  }

  TEST_CASE("heed train --watch on a terminal redraws the matrix in place") {
    if (test::tools_missing({"script", "stty"}, "the terminal test (a faked terminal)", "apt-get install util-linux coreutils")) return;
    Scratch s("watch-tty");
    // A 60-column terminal: the legend line wraps, and the redraw must count it twice.
    std::string cmd = "script -qec 'stty rows 30 cols 60; " + runner() + build_dir() +
                      "/heed train --min-len 3 --max-len 5 --embed 8 --hidden 8 --batch 8 --steps 25 --eval-samples 10 "
                      "--watch --watch-every 10' /dev/null >" + s.path("tty.txt") + " 2>&1";
    REQUIRE(std::system(cmd.c_str()) == 0);
    const std::string tty = slurp(s.path("tty.txt"));
    CHECK(tty.find("step 0  loss -  held-out exact") != std::string::npos);  // the first drawing
    std::vector<std::string> screen = terminal_screen(tty, 60, 30);
    std::string shown;
    for (const auto& line : screen) shown += line + "\n";
    INFO("the screen at the end:\n" << shown);
    // One drawing is left: the last snapshot's, with the progress line under it and no other.
    int drawings = 0, bars = 0;
    for (const auto& line : screen) {
      drawings += line.find("attention of the") != std::string::npos;
      bars += line.rfind("step 25/25", 0) == 0;
    }
    CHECK(drawings == 1);
    CHECK(bars == 1);
    // Right under the lines heed train prints before training ("training ...", "no --save ...").
    CHECK(shown.find("d exits\nstep 25  loss ") != std::string::npos);
    CHECK(shown.find("row maximum, named on the right\nstep 25/25  loss") != std::string::npos);
    for (const auto& line : screen)  // the progress line is cut to the width: it never wraps
      if (line.find("steps/s") != std::string::npos) CHECK(line.size() < 60);
  }

  TEST_CASE("heed bench --watch: the cost of a snapshot as a share of training") {
    Scratch s("bench-watch");
    CliRun b = s.heed("bench --watch --model dot --embed 8 --hidden 8 --batch 4 --len 3 --steps 2 --warmup 0 --json");
    INFO(b.err);
    REQUIRE(b.status == 0);
    CHECK(b.out.find("--watch: ") != std::string::npos);
    CHECK(b.json().find("watch_every")->as_int() == 20);
    CHECK(b.json().find("watch_ms_per_snapshot")->as_real() > 0);
    CHECK(b.json().find("watch_overhead_percent")->as_real() > 0);
    for (const char* args : {"bench --watch-every 5", "bench --watch --model plain", "bench --watch --watch-every 0"}) {
      CliRun r = s.heed(args);
      INFO("heed " << args << " -> " << r.status << ": " << r.err);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(r.err.find("--watch") != std::string::npos);
    }
  }

  TEST_CASE("heed train: bad --watch and --film values are refused before training, exit 2") {
    Scratch s("film-bad");
    struct Bad {
      std::string args, words;
    } bad[] = {
        {"--watch-every 0 --watch", "--watch-every: 0 is out of range"},
        {"--watch-every 5", "--watch-every needs --watch or --film"},
        {"--film /nonexistent-folder/f.html", "--film"},
        {"--film " + s.folder(), "is a folder"},
        {"--model plain --film f.html", "plain model has no attention matrix"},
        {"--model plain --watch", "--watch: the plain model"},
    };
    for (const Bad& b : bad) {
      CliRun r = s.heed("train --steps 100000 " + b.args);
      INFO("heed train " << b.args << " -> " << r.status << ": " << r.err);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(r.err.find(b.words) != std::string::npos);
      CHECK(r.out.empty());  // nothing started
    }
  }
}
