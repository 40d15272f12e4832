// heed sample through the real program, where its contract was broken: `--prompt ""` (documented
// as "start from <bos> alone") is taken, and a continuation that fits the model's learned
// positions runs to its end, one that does not is refused before any work, naming --max-tokens.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "tests/support/heed_cli.h"

using namespace heed;

namespace {

// The tokens after "sample: " on heed sample's output.
std::vector<std::string> sampled(const std::string& out) {
  const size_t at = out.find("sample: ");
  std::vector<std::string> tokens;
  if (at == std::string::npos) return tokens;
  std::istringstream line(out.substr(at + 8, out.find('\n', at) - at - 8));
  for (std::string t; line >> t;) tokens.push_back(t);
  return tokens;
}

}  // namespace

TEST_SUITE("ch14_sample_cli") {
  TEST_CASE("heed sample: --prompt \"\" starts from <bos> alone; learned positions are counted exactly") {
    Scratch s("sample-positions");
    const std::string g = s.path("g.safetensors");
    // An untrained model of the German grammar with a table of 64 learned positions: it does not stop.
    CliRun t = s.heed("train --model decoder --task german --positions learned --embed 8 --heads 2 --layers 1 "
                      "--steps 0 --seed 3 --save " + g);
    INFO(t.err);
    REQUIRE(t.status == 0);
    const std::string word = [&] {
      std::istringstream tokens(read_safetensors(g).metadata.at("tgt_tokens"));
      std::string w;
      for (int i = 0; i < 4; ++i) tokens >> w;  // past <pad> <bos> <eos>
      return w;
    }();

    CliRun empty = s.heed("sample --load " + g + " --prompt \"\" --max-tokens 5 --temperature 0");
    INFO(empty.err);
    CHECK(empty.status == 0);
    CHECK(empty.out.find("prompt: \n") != std::string::npos);
    CHECK(sampled(empty.out).size() == 5);
    CHECK(s.heed("sample --load " + g + " --prompt= --max-tokens 5").status == 0);  // --prompt= too

    // <bos>, one prompt token and 63 sampled ones: 64 positions, all there are (the last token
    // drawn is never fed back). 64 is one too many: refused up front, naming the flag and the limit.
    for (const std::string& prompt : {word, std::string()}) {
      const int64_t room = 64 - static_cast<int64_t>(prompt.empty() ? 0 : 1);
      CliRun fits = s.heed("sample --load " + g + " --prompt \"" + prompt + "\" --temperature 0 --max-tokens " +
                           std::to_string(room));
      INFO(fits.err);
      CHECK(fits.status == 0);
      const std::vector<std::string> out = sampled(fits.out);
      CHECK(static_cast<int64_t>(out.size()) == room);  // it did not stop: every position was used
      CHECK((out.empty() || out.back() != "<eos>"));
      CliRun over = s.heed("sample --load " + g + " --prompt \"" + prompt + "\" --max-tokens " + std::to_string(room + 1));
      CHECK(over.status == 2);
      CHECK(over.out.empty());
      CHECK(over.err.find("--max-tokens " + std::to_string(room + 1)) != std::string::npos);
      CHECK(over.err.find("64 learned positions") != std::string::npos);
    }
  }

  TEST_CASE("flags whose value may be empty take \"\"; the others still refuse it") {
    Scratch s("empty-values");
    for (const std::string args : {"train --save \"\"", "predict --load \"\" \"1 2\"", "data --out=", "eval --load="}) {
      CliRun r = s.heed(args);
      INFO("heed " << args << " -> " << r.err);
      CHECK(r.status == 2);
      CHECK(r.err.find("needs a value") != std::string::npos);
    }
  }
}
