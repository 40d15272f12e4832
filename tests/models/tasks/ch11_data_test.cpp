// Your own data (models/tasks/data.h): the tokenizer's rule, every bad-data case with its message and
// line, the vocabularies and counts of a data task, corpus BLEU against NLTK's literals, and
// perplexity as the token-weighted mean of the cross-entropy.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "models/tasks/data.h"
#include "models/seq2seq.h"
#include "models/tasks/translate.h"
#include "nn/loss.h"
#include "tests/support/heed_cli.h"
#include "tests/support/model_fixtures.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

using Words = std::vector<std::string>;

void spit(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// The error reading `bytes` as a pair file gives ("" if none).
std::string read_error(const Scratch& s, const std::string& bytes) {
  const std::string file = s.path("pairs.tsv");
  spit(file, bytes);
  try {
    read_pair_file(file, Tokenizer{}, [](PairLine&) {});
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

}  // namespace

TEST_SUITE("ch11_translation") {
  TEST_CASE("data: tokens split on whitespace, every ASCII punctuation mark its own token, --lower maps A-Z only") {
    Tokenizer tok;
    CHECK(tok.split("Hello, world!") == Words{"Hello", ",", "world", "!"});
    CHECK(tok.split("  l'homme   a 3.5  ") == Words{"l", "'", "homme", "a", "3", ".", "5"});
    CHECK(tok.split("<pad> <unk>") == Words{"<", "pad", ">", "<", "unk", ">"});  // no special can be written
    CHECK(tok.split("").empty());
    tok.lower = true;
    CHECK(tok.split("Ça VA, Émile?") == Words{"Ça", "va", ",", "Émile", "?"});  // UTF-8 letters kept
  }

  TEST_CASE("data: every bad line is an error naming the file, the line, its byte offset and what is wrong") {
    Scratch s("data-errors");
    const std::string ok = "a b\tx y\n";
    CHECK(read_error(s, ok + ok) == "");
    CHECK(read_error(s, "\xEF\xBB\xBF" + ok + "c\td\r\n" + "e\tf") == "");  // a BOM, CRLF, no last \n
    std::string e = read_error(s, ok + "no tab here\n");
    CHECK(contains(e, "pairs.tsv: line 2 (byte 8): has no tab; expected source<TAB>target"));
    e = read_error(s, ok + ok + "a\tb\tc\n");
    CHECK(contains(e, "line 3 (byte 16): has 2 tabs; expected exactly one"));
    e = read_error(s, ok + "caf\xC3\tcafe\n");  // a truncated two-byte sequence
    CHECK(contains(e, "line 2 (byte 8): invalid UTF-8 at column 4 (byte 0xc3)"));
    e = read_error(s, ok + "   \tx\n");
    CHECK(contains(e, "line 2 (byte 8): the source (before the tab) is empty"));
    e = read_error(s, ok + "x\t \n");
    CHECK(contains(e, "line 2 (byte 8): the target (after the tab) is empty"));
    e = read_error(s, ok + "\n" + ok);
    CHECK(contains(e, "line 2 (byte 8): is empty; expected source<TAB>target"));
    e = read_error(s, std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));  // the start of a picture
    CHECK(contains(e, "line 1 (byte 0): invalid UTF-8"));
    e = read_error(s, std::string("ab\0cd\tx\n", 8));
    CHECK(contains(e, "line 1 (byte 0): holds a NUL byte at column 3: this is not a text file"));
    e = read_error(s, "");
    CHECK(contains(e, "pairs.tsv: no pairs (the file is empty)"));
    e = read_error(s, ok + std::string(kMaxLineBytes + 1, 'x'));
    CHECK(contains(e, "line 2 (byte 8): is longer than 1048576 bytes"));
  }

  TEST_CASE("data: vocabularies from the training split (<unk> at id 3, first appearance, --min-count), long pairs skipped") {
    Scratch s("data-task");
    spit(s.path("train.tsv"),
         "the cat sat\tle chat\n"              // line 1
         "the dog sat\tle chien\n"             // 2
         "a b c d e f g h\tx\n"                // 3: source longer than --max-len 5
         "the cat ran\tle chat court\n");      // 4
    spit(s.path("valid.tsv"), "the bird sat\tun oiseau\n");
    DataOptions opt;
    opt.max_len = 5;
    opt.min_count = 2;
    opt.valid_path = s.path("valid.tsv");
    DataTask task(s.path("train.tsv"), opt);
    // the 3, cat 2, sat 2 in order of first appearance; dog and ran once: <unk>.
    CHECK(task.src_vocab().tokens() == Words{"<pad>", "<bos>", "<eos>", "<unk>", "the", "cat", "sat"});
    CHECK(task.tgt_vocab().tokens() == Words{"<pad>", "<bos>", "<eos>", "<unk>", "le", "chat"});
    const DataCounts& c = task.train_counts();
    CHECK(c.lines == 4);
    CHECK(c.skipped == 1);
    CHECK(c.pairs == 3);
    CHECK(c.src_tokens == 9);
    CHECK(c.src_unknown == 2);  // dog, ran
    CHECK(c.tgt_unknown == 2);  // chien, court
    CHECK(task.train_pairs()[1].src == std::vector<int64_t>{4, 3, 6});
    CHECK(task.min_len() == 3);
    CHECK(task.max_len() == 3);
    CHECK(task.max_target_len() == 3);
    // Validation is read with the training vocabularies; its references keep the words.
    REQUIRE(task.valid().pairs.size() == 1);
    CHECK(task.valid().pairs[0].src == std::vector<int64_t>{4, 3, 6});
    CHECK(task.valid().counts.tgt_unknown == 2);
    CHECK(task.valid().references[0] == Words{"un", "oiseau"});
    // With --max-len 2 nothing is left to train on.
    opt.max_len = 2;
    CHECK_THROWS_WITH_AS(DataTask(s.path("train.tsv"), opt),
                         doctest::Contains("no training pair is left (4 of the pairs are longer than --max-len 2)"),
                         Error);
  }

  TEST_CASE("data: --valid-fraction splits by a stream of its own, the same every time") {
    Scratch s("data-split");
    std::string text;
    for (int i = 0; i < 1000; ++i) text += "w" + std::to_string(i % 37) + " x\ty" + std::to_string(i % 11) + "\n";
    spit(s.path("train.tsv"), text);
    DataOptions opt;
    opt.valid_fraction = 0.2;
    DataTask a(s.path("train.tsv"), opt), b(s.path("train.tsv"), opt);
    const int64_t valid = static_cast<int64_t>(a.valid().pairs.size());
    CHECK(valid + a.train_counts().pairs == 1000);
    CHECK(valid > 150);  // about 200 of 1000
    CHECK(valid < 250);
    CHECK(b.valid().pairs.size() == a.valid().pairs.size());
    CHECK(b.train_pairs().front().src == a.train_pairs().front().src);
  }

  TEST_CASE("data: the file heed data writes draws translate's training pairs, in translate's order and draws") {
    // `heed data --task translate` writes translate's training pairs in order; read back as a
    // data task, the training stream (task.sample, what Trainer draws) gives the same sentences.
    // The model bytes differ by construction: a data vocabulary holds <unk> (id 3), so every
    // embedding and output layer has one more row (docs/cli.md, "Data files").
    Scratch s("data-translate");
    TranslateTask translate;
    std::string text;
    for (const Example& e : translate.train_pairs())
      text += translate.src_vocab().decode(e.src) + "\t" + translate.tgt_vocab().decode(e.tgt) + "\n";
    spit(s.path("train.tsv"), text);
    DataOptions opt;
    opt.valid_fraction = 0;
    DataTask data(s.path("train.tsv"), opt);
    REQUIRE(data.train_pairs().size() == translate.train_pairs().size());
    CHECK(data.src_vocab().size() == translate.src_vocab().size() + 1);
    CHECK(data.tgt_vocab().size() == translate.tgt_vocab().size() + 1);
    CHECK(data.min_len() == translate.min_len());
    CHECK(data.train_counts().src_unknown == 0);
    Generator g1(7), g2(7);
    for (int i = 0; i < 2000; ++i) {
      Example t = translate.sample(g1), d = data.sample(g2);
      REQUIRE(data.src_vocab().decode(d.src) == translate.src_vocab().decode(t.src));
      REQUIRE(data.tgt_vocab().decode(d.tgt) == translate.tgt_vocab().decode(t.tgt));
    }
  }

  TEST_CASE("corpus BLEU equals NLTK 3.8's corpus_bleu (default weights) to 1e-12") {
    // The literals were made with Debian's python3-nltk 3.8:
    //   from nltk.translate.bleu_score import corpus_bleu
    //   corpus_bleu([[r] for r in refs], hyps)   # weights (0.25,) * 4, no smoothing
    // and printed with repr(); make test does not need NLTK.
    struct Case {
      const char* name;
      std::vector<Words> hyps, refs;
      double nltk;
    };
    const std::vector<Case> cases = {
        {"identical", {{"i", "ate", "a", "cake", "."}}, {{"i", "ate", "a", "cake", "."}}, 1.0},
        {"partial",
         {{"i", "am", "not", "hungry", ",", "because", "i", "ate", "a", "cake", "."},
          {"yesterday", "i", "ate", "the", "apple", "."}},
         {{"i", "am", "not", "hungry", ",", "because", "i", "ate", "a", "sandwich", "."},
          {"yesterday", "i", "did", "not", "eat", "the", "apple", "."}},
         0.6069022847790843},
        {"short_and_clipped",
         {{"the", "the", "the", "the"}, {"a", "b"}, {"x"}},
         {{"the", "cat", "sat", "on", "the", "mat"}, {"a", "b", "c"}, {"x", "y"}},
         5.178803470057466e-155},
        {"longer", {{"a", "b", "c", "d", "e", "f", "g"}, {"a", "b", "c", "d"}}, {{"a", "b", "c", "d", "e"}, {"a", "x", "c", "d"}},
         0.5130113819243269},
        {"no_4gram", {{"a", "b", "c", "x", "d", "e"}}, {{"a", "b", "c", "d", "e", "f"}}, 7.262123179505913e-78},
        {"no_unigram", {{"p", "q", "r"}}, {{"a", "b", "c"}}, 0.0},
        {"short_sentence", {{"a", "b", "c", "d", "e"}, {"x", "y"}}, {{"a", "b", "c", "d", "e"}, {"x", "y", "z"}},
         0.7289545183625967},
        {"clipped", {{"the", "the", "the", "the", "cat", "sat", "on", "the", "mat"}}, {{"the", "cat", "sat", "on", "the", "mat"}},
         0.5873949094699213},
    };
    for (const Case& c : cases) {
      INFO(c.name);
      const double ours = corpus_bleu(c.hyps, c.refs);
      CHECK(std::abs(ours - c.nltk) <= test::tol(1e-12));  // tol: 1e-12 in double, scaled to float's epsilon in make float
      CHECK(std::abs(ours - c.nltk) <= test::tol(1e-12) * c.nltk);  // relatively too: the tiny ones are equal, not just small
    }
    CHECK_THROWS_AS(corpus_bleu({{"a"}}, {}), Error);
  }

  TEST_CASE("data: perplexity is exp of the token-weighted mean cross-entropy, whatever the batching") {
    Scratch s("data-ppl");
    std::string text;
    for (int i = 0; i < 150; ++i) {  // 150 pairs: two batches of 100 and 50 with different token counts
      std::string src, tgt;
      for (int k = 0; k <= i % 7; ++k) src += "s" + std::to_string((i + k) % 9) + " ";
      for (int k = 0; k <= i % 4; ++k) tgt += "t" + std::to_string((i * k) % 5) + " ";
      text += src + "\t" + tgt + "\n";
    }
    spit(s.path("pairs.tsv"), text);
    DataOptions opt;
    opt.valid_fraction = 0;
    DataTask task(s.path("pairs.tsv"), opt);
    ModelConfig c = test::tiny_rnn("additive");
    c.src_vocab = task.src_vocab().size();
    c.tgt_vocab = task.tgt_vocab().size();
    Generator gen(3);
    Seq2Seq model(c, gen);
    const PairSet set = task.read_eval_file(s.path("pairs.tsv"));
    PairScore r = score_pairs(model, task.tgt_vocab(), set, 1000);
    CHECK(r.pairs == 150);
    double nll = 0;
    int64_t tokens = 0;
    for (const Example& e : set.pairs) {  // one pair at a time
      Batch b = make_batch({e});
      Var logits = reshape(model.forward(b), {-1, c.tgt_vocab});
      nll += static_cast<double>(cross_entropy(logits, b.tgt_out, Vocab::kPad).item()) * (e.tgt.size() + 1);
      tokens += static_cast<int64_t>(e.tgt.size()) + 1;
    }
    CHECK(static_cast<double>(r.perplexity) == doctest::Approx(std::exp(nll / tokens)).epsilon(test::tol(1e-9)));
    // An untrained model is near uniform over the target vocabulary.
    CHECK(r.perplexity > 0.5 * c.tgt_vocab);
    CHECK(r.perplexity < 2.0 * c.tgt_vocab);
    CHECK(r.bleu >= 0);
    CHECK(r.bleu <= 1);
  }
}
