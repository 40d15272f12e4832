// Your own text for the decoder-only model (models/tasks/text.h): windows without <eos>, the tokens of
// a file by the pairs' rule or by character, the draws of the windows, the loss by position
// against a computation one prefix at a time, the in-context learning score's positions, and
// heed train / eval / sample on a slice of data/chapters.txt: refusals, a resumed run
// byte-identical to one that never stopped.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/decoder_model.h"
#include "models/tasks/text.h"
#include "tests/support/heed_cli.h"
#include "tests/support/precision.h"
#include "viz/film.h"

using namespace heed;

namespace {

void spit(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }
bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// The first `bytes` bytes of the corpus heed ships (cut at a space, so no character is split).
std::string corpus_slice(size_t bytes) {
  std::string all = slurp("data/chapters.txt");
  REQUIRE(all.size() > bytes);
  return all.substr(0, all.rfind(' ', bytes));
}

std::string words(const TextTask& t, const std::vector<int64_t>& ids) {
  std::string out;
  for (int64_t id : ids) out += (out.empty() ? "" : "|") + t.tgt_vocab().token(id);
  return out;
}

}  // namespace

TEST_SUITE("ch14_text") {
  TEST_CASE("make_batch: a window without <eos> reads BOS y1..y(L-1) and is scored on y1..yL, L positions") {
    Example e;
    e.src = e.tgt = {5, 6, 7};
    e.eos = false;
    const Batch b = make_batch({e});
    CHECK(b.tgt_len == 3);
    CHECK(b.tgt_in == std::vector<int64_t>{Vocab::kBos, 5, 6});
    CHECK(b.tgt_out == std::vector<int64_t>{5, 6, 7});
    CHECK(b.tgt_lengths == std::vector<int64_t>{3});
    e.eos = true;  // as every task has it
    const Batch with = make_batch({e});
    CHECK(with.tgt_in == std::vector<int64_t>{Vocab::kBos, 5, 6, 7});
    CHECK(with.tgt_out == std::vector<int64_t>{5, 6, 7, Vocab::kEos});
  }

  TEST_CASE("TextTask: words by the pairs' rule, characters with whitespace by name; vocabulary, tail, windows") {
    Scratch s("text-task");
    spit(s.path("t.txt"), "\xEF\xBB\xBFThe cat, the cat.\r\nA cat!\n");
    TextOptions o;
    o.context = 3;
    o.valid_fraction = 0.34;  // 9 tokens: the last 3 (int(9 * 0.34)) are validation
    TextTask w(s.path("t.txt"), o);
    CHECK(words(w, w.train_tokens()) == "The|cat|,|the|cat|.");
    CHECK(words(w, w.valid_tokens()) == "<unk>|cat|<unk>");  // A and ! never appear in training
    // The vocabulary is the training part's, in order of first appearance, after <unk>.
    CHECK(w.tgt_vocab().tokens() == std::vector<std::string>{"<pad>", "<bos>", "<eos>", "<unk>", "The", "cat", ",", "the", "."});
    CHECK(w.valid_unknown() == 2);
    o.chars = true;
    o.valid_fraction = 0;
    TextTask c(s.path("t.txt"), o);
    CHECK(c.decode(c.train_tokens()) == "The cat, the cat.\nA cat!\n");  // the BOM and the \r are gone
    CHECK(c.train_tokens().size() == 25);
    CHECK(c.tgt_vocab().contains("<space>"));
    CHECK(c.tgt_vocab().contains("<newline>"));
    CHECK_FALSE(c.tgt_vocab().contains("<cr>"));
    // A window at a uniform start, randint(0, n - N), one draw of the data stream per window.
    Generator g(5), h(5);
    for (int i = 0; i < 20; ++i) {
      const Example e = c.sample(g);
      const int64_t start = h.randint(0, 25 - 3);
      CHECK(e.tgt == std::vector<int64_t>(c.train_tokens().begin() + start, c.train_tokens().begin() + start + 3));
      CHECK_FALSE(e.eos);
    }
    CHECK(g.state() == h.state());
  }

  TEST_CASE("the loss by position equals -log p(t_k | t_1..t_k-1) computed one prefix at a time") {
    Scratch s("text-position-loss");
    spit(s.path("t.txt"), corpus_slice(3000));
    TextOptions o;
    o.chars = true;
    o.context = 12;
    o.valid_fraction = 0;
    TextTask task(s.path("t.txt"), o);
    ModelConfig c;
    c.model = "decoder";
    c.src_vocab = c.tgt_vocab = task.tgt_vocab().size();
    c.embed = 8;
    c.heads = 2;
    c.layers = 2;
    c.attention_only = true;
    Generator gen(3);
    std::unique_ptr<Model> model = make_model(c, gen);
    const auto& decoder = dynamic_cast<const DecoderModel&>(*model);
    const PositionLoss r = position_loss(*model, task, task.train_tokens(), 5);
    REQUIRE(r.windows == 5);
    REQUIRE(r.by_position.size() == 12);
    NoGradGuard no_grad;
    const int64_t V = c.tgt_vocab;
    double total = 0;
    for (int64_t k = 1; k <= 12; ++k) {
      double sum = 0;
      for (int64_t w = 0; w < 5; ++w) {
        // The model reads <bos> t_1 .. t_(k-1) alone; its last position predicts t_k.
        std::vector<int64_t> ids = {Vocab::kBos};
        for (int64_t j = 1; j < k; ++j) ids.push_back(task.train_tokens()[w * 12 + j - 1]);
        const Tensor logits = model->logits(decoder.hidden(ids, 1, k, {k})).value();  // (1, k, V)
        const real* last = logits.data() + (k - 1) * V;
        double max = last[0], z = 0;
        for (int64_t v = 0; v < V; ++v) max = std::max<double>(max, last[v]);
        for (int64_t v = 0; v < V; ++v) z += std::exp(last[v] - max);
        sum += -(last[task.train_tokens()[w * 12 + k - 1]] - max - std::log(z));
      }
      CHECK(r.by_position[k - 1] == doctest::Approx(sum / 5).epsilon(test::tol(1e-12)));
      total += sum;
    }
    CHECK(r.mean == doctest::Approx(total / 60).epsilon(test::tol(1e-12)));
  }

  TEST_CASE("the in-context learning score: the loss at round(500 N/512) minus the loss at round(50 N/512)") {
    CHECK(icl_positions(512).early == 50);
    CHECK(icl_positions(512).late == 500);
    CHECK(icl_positions(64).early == 6);  // 6.25
    CHECK(icl_positions(64).late == 63);  // 62.5, a half rounded up
    CHECK(icl_positions(2).early == 1);   // never before the first position
    CHECK(icl_positions(2).late == 2);
    CHECK(icl_positions(1000).early == 98);  // 97.66
    CHECK(icl_positions(1000).late == 977);  // 976.6
    std::vector<real> loss(64);
    for (size_t i = 0; i < loss.size(); ++i) loss[i] = 4 - 0.01 * static_cast<real>(i * i);
    CHECK(icl_score(loss) == loss[62] - loss[5]);
    CHECK_THROWS_AS(icl_positions(1), Error);
  }

  TEST_CASE("heed train --model decoder --data FILE.txt: bad text is refused in one line, nothing saved") {
    Scratch s("text-refused");
    spit(s.path("empty.txt"), "");
    spit(s.path("blank.txt"), " \n\t\n");
    spit(s.path("latin1.txt"), "caf\xe9 au lait\n");
    spit(s.path("nul.txt"), std::string("ab\0cd", 5));
    spit(s.path("short.txt"), "one two three four five\n");
    std::string many;
    for (int i = 0; i < 50001; ++i) many += "w" + std::to_string(i) + " ";
    spit(s.path("many.txt"), many);
    spit(s.path("ok.txt"), corpus_slice(2000));
    const std::string run = "train --model decoder --steps 1 --save " + s.path("m.st") + " --data ";
    const std::string bad[][2] = {
        {run + s.path("empty.txt"), "no tokens (the file is empty)"},
        {run + s.path("blank.txt"), "no tokens (the file is whitespace alone)"},
        {run + s.path("latin1.txt") + " --chars", "latin1.txt: byte 3: invalid UTF-8 (0xe9); save the file as UTF-8"},
        {run + s.path("nul.txt"), "nul.txt: byte 2: a NUL byte: this is not a text file"},
        {run + s.path("short.txt") + " --context 8 --valid-fraction 0", "5 training tokens are shorter than a window of --context 8"},
        {run + s.path("short.txt") + " --context 4 --valid-fraction 0.5",
         "3 training tokens (of 5; the last 2 are validation) are shorter than a window of --context 4"},
        {run + s.path("short.txt") + " --context 2 --valid-fraction 0.2", "its validation tail of 1 tokens is shorter than a window of --context 2"},
        {run + s.path("many.txt") + " --valid-fraction 0", "a vocabulary of 50005 tokens is above the limit of 50000; raise --min-count"},
        {run + s.path("ok.txt") + " --context 1", "--context"},
        {run + s.path("ok.txt") + " --context 1001", "--context"},
        {run + s.path("ok.txt") + " --task repeat", "--task does not apply to a text"},
        {run + s.path("ok.txt") + " --max-len 9", "--max-len does not apply to a text"},
        {run + s.path("ok.txt") + " --chars --lower", "--lower is for words"},
        {"train --model transformer --data " + s.path("ok.txt") + " --context 8", "--context is for --model decoder --data"},
        {"train --model decoder --task repeat --chars", "--chars is for --model decoder --data"},
        {run + s.path("ok.txt") + " --valid " + s.path("short.txt") + " --context 8",
         "short.txt: its 5 tokens are shorter than a window of the model's context, 8 tokens"},
    };
    for (const auto& item : bad) {  // not a structured binding: INFO captures it (clang < 16)
      const std::string& args = item[0];
      const std::string& words = item[1];
      CliRun r = s.heed(args);
      INFO("heed " << args << " -> " << r.status << ": " << r.err);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(contains(r.err, words));
    }
    CHECK_FALSE(std::filesystem::exists(s.path("m.st")));
  }

  TEST_CASE("heed train on a text: --resume reads the file again and ends byte-identical; a changed file is refused") {
    Scratch s("text-resume");
    spit(s.path("t.txt"), corpus_slice(6000));
    for (const std::string tokens : {" --chars --context 16", " --lower --min-count 2 --context 8"}) {
      const std::string run = "train --model decoder --attention-only --embed 8 --heads 2 --batch 4 --schedule constant"
                              " --eval-samples 20 --data " + s.path("t.txt") + tokens;
      CliRun whole = s.heed(run + " --steps 20 --save " + s.path("whole.st"));
      CliRun half = s.heed(run + " --steps 10 --save " + s.path("part.st"));
      INFO(tokens << whole.err << half.err);
      REQUIRE(whole.status == 0);
      REQUIRE(half.status == 0);
      CHECK(slurp(s.path("part.st")) != slurp(s.path("whole.st")));
      CliRun rest = s.heed("train --resume " + s.path("part.st") + " --steps 20");
      INFO(rest.out << rest.err);
      REQUIRE(rest.status == 0);
      CHECK(slurp(s.path("part.st")) == slurp(s.path("whole.st")));
      // The same run again: the same windows and weights, bit for bit.
      REQUIRE(s.heed(run + " --steps 20 --save " + s.path("again.st")).status == 0);
      CHECK(slurp(s.path("again.st")) == slurp(s.path("whole.st")));
    }
    spit(s.path("changed.txt"), slurp(s.path("t.txt")) + " more");
    CliRun changed = s.heed("train --resume " + s.path("part.st") + " --steps 30 --data " + s.path("changed.txt"));
    CHECK(changed.status == 2);
    CHECK(contains(changed.err, "is not the text the run trained on (FNV-1a fingerprint"));
    CliRun flag = s.heed("train --resume " + s.path("part.st") + " --steps 30 --context 4");
    CHECK(flag.status == 2);
    CHECK(contains(flag.err, "--context cannot be given with --resume"));
  }

  TEST_CASE("heed eval and sample on a model of a text: loss by position, the score, a prompt continued as text") {
    Scratch s("text-eval");
    spit(s.path("t.txt"), corpus_slice(5000));
    const std::string model = s.path("m.st");
    CliRun t = s.heed("train --model decoder --attention-only --embed 8 --heads 2 --batch 4 --steps 20 --chars "
                      "--context 16 --json --data " + s.path("t.txt") + " --save " + model);
    INFO(t.err);
    REQUIRE(t.status == 0);
    CHECK(contains(t.out, "in-context learning score"));
    CliRun e = s.heed("eval --load " + model + " --data " + s.path("t.txt") + " --samples 7 --json");
    INFO(e.err);
    REQUIRE(e.status == 0);
    const Json j = e.json();
    CHECK(j.find("windows")->as_int() == 7);
    CHECK(j.find("icl_early")->as_int() == 2);  // round(50 * 16 / 512) = round(1.56)
    CHECK(j.find("icl_late")->as_int() == 16);  // round(15.6)
    const Json::Array& by = j.find("loss_by_position")->as_array();
    REQUIRE(by.size() == 16);
    double mean = 0;
    for (const Json& x : by) mean += x.as_real() / 16;
    CHECK(j.find("loss")->as_real() == doctest::Approx(mean).epsilon(test::tol(1e-12)));
    CHECK(j.find("icl_score")->as_real() == by[15].as_real() - by[1].as_real());
    // Refused: no text to score, a flag of the other models, and text that is not UTF-8.
    CHECK(s.heed("eval --load " + model).status == 2);
    CHECK(contains(s.heed("eval --load " + model + " --data " + s.path("t.txt") + " --lengths 4").err,
                   "--lengths does not apply to a model of a text"));
    // sample: the prompt read as characters, the continuation printed as text, seeded.
    CliRun a = s.heed("sample --load " + model + " --prompt \"The \" --max-tokens 12 --seed 4 --json");
    CliRun b = s.heed("sample --load " + model + " --prompt \"The \" --max-tokens 12 --seed 4 --json");
    INFO(a.err);
    REQUIRE(a.status == 0);
    CHECK(a.out == b.out);
    CHECK(contains(a.out, "prompt: The \n"));
    const Json sj = a.json();
    const Json::Array& prompt = sj.find("prompt")->as_array();
    REQUIRE(prompt.size() == 4);
    CHECK(prompt[3].as_string() == "<space>");
    std::string joined;
    for (const Json& x : sj.find("output")->as_array()) joined += x.as_string() == "<space>" ? " " : x.as_string() == "<newline>" ? "\n" : x.as_string();
    CHECK(sj.find("text")->as_string() == joined);
    CHECK(sj.find("output")->as_array().size() == 12);
  }

  TEST_CASE("heed train --film on a text: the heads on repeated tokens of its vocabulary, and its ICL score") {
    Scratch s("text-film");
    const std::string all = corpus_slice(6000);
    spit(s.path("t.txt"), all.substr(0, 4000));
    spit(s.path("v.txt"), all.substr(4000));
    const std::string model = s.path("m.st"), film = s.path("f.html");
    CliRun t = s.heed("train --model decoder --attention-only --layers 2 --embed 8 --heads 2 --batch 4 --steps 20 "
                      "--chars --context 16 --data " + s.path("t.txt") + " --valid " + s.path("v.txt") +
                      " --film " + film + " --watch-every 10 --save " + model);
    INFO(t.err);
    REQUIRE(t.status == 0);
    const Film f = read_film(slurp(film));
    REQUIRE(f.frames.size() == 3);  // steps 0, 10, 20
    REQUIRE(f.columns.back() == "icl_score");
    CHECK(f.columns.size() == 2 + 2 * 2 * 2 + 1);  // in-context loss, log V, 2 scores of 4 heads, the ICL score
    CHECK(f.source.size() == 17);  // <bos> and a segment of 8 characters twice
    CHECK(f.source.front() == "<bos>");
    // The last snapshot's ICL score is eval's on the first 32 windows of the validation text.
    CliRun e = s.heed("eval --load " + model + " --data " + s.path("v.txt") + " --samples 32 --json");
    INFO(e.err);
    REQUIRE(e.status == 0);
    CHECK(f.frames.back().values.back() == doctest::Approx(e.json().find("icl_score")->as_real()).epsilon(test::tol(1e-12)));
    CHECK(f.frames.front().values.back() != f.frames.back().values.back());
    CliRun read = s.heed("eval --film " + film);
    INFO(read.err);
    REQUIRE(read.status == 0);
    CHECK(contains(read.out, "in-context learning score on the text: "));
  }
}
