// BLEU through the real program does not depend on which sentences share a batch: each sentence
// is decoded up to its own cap (2 S + 10 tokens of its own source, models/tasks/data.h), in eval --data,
// in train's closing line and in predict alike. Held with a model that has not learned to stop
// (so every sentence runs to its cap), sources of many lengths in one chunk of 100, and the file's
// order shuffled: eval's BLEU equals corpus BLEU over predict's outputs, in any order.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/json.h"
#include "models/tasks/data.h"
#include "tests/support/heed_cli.h"

using namespace heed;

namespace {

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> w;
  for (std::string t; in >> t;) w.push_back(t);
  return w;
}

std::vector<std::string> lines(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string joined(const std::vector<std::string>& ls) {
  std::string out;
  for (const std::string& l : ls) out += l + "\n";
  return out;
}

}  // namespace

TEST_SUITE("ch11_bleu") {
  TEST_CASE("BLEU: each sentence its own decoding cap; eval, train and predict agree, in any order of the file") {
    Scratch s("bleu-by-sentence");
    const std::string train = s.path("train.tsv"), valid = s.path("valid.tsv"), m = s.path("m.safetensors");
    REQUIRE(s.heed("data --task reverse --count 200 --min-len 1 --max-len 12 --out " + train).status == 0);
    REQUIRE(s.heed("data --task reverse --count 150 --seed 5 --min-len 1 --max-len 12 --out " + valid).status == 0);
    // Two steps: the model has not learned to stop, so a sentence runs to its cap.
    CliRun t = s.heed("train --data " + train + " --valid " + valid +
                      " --embed 8 --hidden 12 --batch 8 --steps 2 --eval-samples 1000 --json --save " + m);
    INFO(t.err);
    REQUIRE(t.status == 0);
    const real train_bleu = t.json().find("bleu")->as_real();

    auto eval_bleu = [&](const std::string& file) {
      CliRun e = s.heed("eval --load " + m + " --data " + file + " --json");
      INFO(e.err);
      REQUIRE(e.status == 0);
      return e.json().find("bleu")->as_real();
    };
    const real in_order = eval_bleu(valid);
    CHECK(in_order == train_bleu);  // train's closing line scores the same way

    // The file in other orders, so that the chunks of 100 hold other sentences: a fixed
    // permutation, and sorted by source length both ways (the short sources in a chunk of their
    // own, or beside the longest).
    std::vector<std::string> pairs = lines(slurp(valid));
    REQUIRE(pairs.size() == 150);
    std::vector<std::string> shuffled;
    for (size_t i = 0; i < pairs.size(); ++i) shuffled.push_back(pairs[(i * 7 + 3) % pairs.size()]);
    std::ofstream(s.path("shuffled.tsv")) << joined(shuffled);
    auto source_len = [](const std::string& pair) { return words(pair.substr(0, pair.find('\t'))).size(); };
    std::stable_sort(pairs.begin(), pairs.end(),
                     [&](const std::string& x, const std::string& y) { return source_len(x) < source_len(y); });
    std::ofstream(s.path("shortest-first.tsv")) << joined(pairs);
    std::reverse(pairs.begin(), pairs.end());
    std::ofstream(s.path("longest-first.tsv")) << joined(pairs);
    CHECK(eval_bleu(s.path("shuffled.tsv")) == in_order);
    CHECK(eval_bleu(s.path("shortest-first.tsv")) == in_order);
    CHECK(eval_bleu(s.path("longest-first.tsv")) == in_order);

    // predict, sentence by sentence: corpus BLEU over its outputs is eval's.
    std::vector<std::vector<std::string>> outputs, references;
    size_t at_cap = 0, shortest = 100, longest = 0;
    for (const std::string& pair : pairs) {
      const std::string src = pair.substr(0, pair.find('\t')), tgt = pair.substr(pair.find('\t') + 1);
      CliRun p = s.heed("predict --load " + m + " \"" + src + "\" --json");
      INFO(p.err);
      REQUIRE(p.status == 0);
      std::vector<std::string> out;
      const Json answer = p.json();  // (kept: a range-for over a temporary's member would dangle)
      for (const Json& w : answer.find("output")->as_array()) {
        if (w.as_string() == "<eos>") break;
        out.push_back(w.as_string());
      }
      const size_t S = words(src).size();
      at_cap += out.size() == 2 * S + 10;
      shortest = std::min(shortest, S);
      longest = std::max(longest, S);
      outputs.push_back(out);
      references.push_back(words(tgt));
    }
    CHECK(at_cap > pairs.size() / 2);  // most sentences ran to their own cap: the case this is about
    CHECK(shortest < longest);
    CHECK(static_cast<real>(corpus_bleu(outputs, references)) == in_order);
  }
}
