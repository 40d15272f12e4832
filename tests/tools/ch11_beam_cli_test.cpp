// heed predict --beam and --html, run as a user runs them (build/heed, from the repo root).
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "io/json.h"
#include "tests/support/heed_cli.h"
#include "tests/support/precision.h"
#include "viz/svg.h"

using namespace heed;

namespace {


size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + 1)) ++n;
  return n;
}

// A tiny trained model in the scratch folder (20 steps: enough for a checkpoint).
std::string train_tiny(const Scratch& s, const std::string& model) {
  std::string file = s.path(model + ".safetensors");
  CliRun t = s.heed("train --task reverse --model " + model +
                    " --min-len 3 --max-len 5 --embed 8 --hidden 12 --batch 8 --steps 20 --eval-samples 10 --save " + file);
  INFO(t.err);
  REQUIRE(t.status == 0);
  return file;
}

std::vector<std::string> strings(const Json& array) {
  std::vector<std::string> out;
  for (const Json& j : array.as_array()) out.push_back(j.as_string());
  return out;
}

}  // namespace

TEST_SUITE("ch11_translation") {
  TEST_CASE("heed predict --beam: greedy by default, K hypotheses listed best first, score in --json") {
    Scratch s("beam");
    std::string model = train_tiny(s, "additive");
    CliRun greedy = s.heed("predict --load " + model + " --json \"3 1 4 1 5\"");
    CliRun beam1 = s.heed("predict --load " + model + " --beam 1 --json \"3 1 4 1 5\"");
    CliRun beam4 = s.heed("predict --load " + model + " --beam 4 --json \"3 1 4 1 5\"");
    INFO(greedy.err << beam1.err << beam4.err);
    REQUIRE(greedy.status == 0);
    REQUIRE(beam1.status == 0);
    REQUIRE(beam4.status == 0);
    Json g = greedy.json(), b1 = beam1.json(), b4 = beam4.json();
    // The JSON keeps its shape; --beam adds the score.
    CHECK(g.find("score") == nullptr);
    CHECK(g.size() == 6);  // source, output, attention, log_prob, dtype, threads
    CHECK(b4.size() == 7);
    CHECK(strings(*b1.find("output")) == strings(*g.find("output")));
    CHECK(b1.find("log_prob")->as_real() == g.find("log_prob")->as_real());
    size_t outputs = b4.find("output")->as_array().size();
    CHECK(b4.find("attention")->as_array().size() == outputs);
    CHECK(b4.find("score")->as_real() == doctest::Approx(b4.find("log_prob")->as_real() / static_cast<real>(outputs)));
    // Beam 1 prints no list; beam 4 lists four ranked hypotheses.
    CHECK(beam1.out.find("best first") == std::string::npos);
    CHECK(beam4.out.find("beam 4, best first") != std::string::npos);
    for (const char* rank : {"\n   1  ", "\n   2  ", "\n   3  ", "\n   4  "})
      CHECK_MESSAGE(beam4.out.find(rank) != std::string::npos, rank);
    CHECK(beam4.out.find("\n   5  ") == std::string::npos);

    for (const char* bad : {"--beam 0", "--beam 101", "--beam two"}) {
      CliRun r = s.heed("predict --load " + model + " " + bad + " \"3 1 4\"");
      INFO(bad << ": " << r.err);
      CHECK(r.status == 2);
      CHECK(r.err.find("--beam") != std::string::npos);
      CHECK(count(r.err, "\n") == 1);
    }
    CliRun help = s.heed("predict --help");
    CHECK(help.out.find("--beam K") != std::string::npos);
    CHECK(help.out.find("--html FILE") != std::string::npos);
  }

  TEST_CASE("heed predict reads a source as long as eval --lengths scores, where no table limits it") {
    // Additive attention has no weight per source position: 70 tokens, past its max_src_len of
    // 64, are read by predict as eval --lengths 70 reads them (predict used to refuse them).
    Scratch s("long-source");
    std::string model = train_tiny(s, "additive");
    std::string source;
    for (int i = 0; i < 70; ++i) source += std::to_string(i % 10) + " ";
    CliRun p = s.heed("predict --load " + model + " --json \"" + source + "\"");
    INFO(p.err);
    REQUIRE(p.status == 0);
    const Json j = p.json();
    CHECK(j.find("source")->as_array().size() == 70);
    REQUIRE(!j.find("attention")->as_array().empty());
    for (const Json& row : j.find("attention")->as_array()) {
      CHECK(row.as_array().size() == 70);
      real sum = 0;
      for (const Json& w : row.as_array()) sum += w.as_real();
      // 70 weights, each rounded once: 1e-9 in double; in float 70 roundings of 6e-8 each, under 1e-5.
      CHECK(sum == doctest::Approx(1).epsilon(test::kFloatBuild ? 1e-5 : 1e-9));
    }
    CliRun e = s.heed("eval --load " + model + " --lengths 70 --samples 4");
    INFO(e.err);
    CHECK(e.status == 0);
  }

  TEST_CASE("heed predict --html writes a self-contained explorer of the shown output") {
    Scratch s("beam");
    std::string model = train_tiny(s, "general");
    std::string html_path = s.path("explorer.html");
    CliRun r = s.heed("predict --load " + model + " --beam 3 --json --html " + html_path + " \"3 1 4 1 5\"");
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("wrote " + html_path) != std::string::npos);
    std::string html = slurp(html_path);
    REQUIRE(!html.empty());
    CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
    Json j = r.json();
    std::vector<std::string> source = strings(*j.find("source")), output = strings(*j.find("output"));
    for (const std::string& tok : source) CHECK_MESSAGE(html.find(">" + tok + "</span>") != std::string::npos, tok);
    for (const std::string& tok : output)
      CHECK_MESSAGE(html.find(">" + xml_escape(tok) + "</span>") != std::string::npos, tok);
    CHECK(count(html, "<rect class=\"cell\"") == source.size() * output.size());
    // No network: nothing loaded from elsewhere; the one URL is the SVG namespace name.
    for (const char* external : {"https:", "<link", " src=", "@import", "@font-face"})
      CHECK_MESSAGE(html.find(external) == std::string::npos, external);
    CHECK(count(html, "http:") == 1);

    // The plain model has no attention: an error, and no file.
    std::string plain = train_tiny(s, "plain");
    std::string none = s.path("none.html");
    CliRun p = s.heed("predict --load " + plain + " --html " + none + " \"3 1 4\"");
    CHECK(p.status == 2);
    CHECK(p.err.find("--html: the plain model has no attention") != std::string::npos);
    CHECK(count(p.err, "\n") == 1);
    CHECK(!std::filesystem::exists(none));
  }
}
