// The toy tasks written as one sequence for the decoder-only model (OneSequenceTask,
// models/tasks/tasks.h: <bos> s <sep> t <eos>, scored on t <eos>), the German grammar as a language
// (GermanTask, models/tasks/translate.h), their scoring (greedy_after, score_language in
// models/evaluate.h) and heed train / eval / predict / sample on them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "models/decoder_model.h"
#include "models/evaluate.h"
#include "models/train.h"
#include "models/tasks/translate.h"
#include "nn/checkpoint.h"
#include "tests/support/heed_cli.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

ModelConfig small_decoder(int64_t vocab) {
  ModelConfig c;
  c.model = "decoder";
  c.src_vocab = c.tgt_vocab = vocab;
  c.embed = 32;
  c.heads = 2;
  c.layers = 2;
  c.ff = 64;
  return c;
}

std::vector<int64_t> row(const std::vector<int64_t>& ids, int64_t b, int64_t T) {
  return std::vector<int64_t>(ids.begin() + b * T, ids.begin() + (b + 1) * T);
}

// Each {arguments, words}: heed refuses them with exit status 2 and one line of stderr holding the words.
template <size_t N>
void refused_in_one_line(Scratch& s, const std::string (&bad)[N][2]) {
  for (const auto& bad_case : bad) {
    CliRun r = s.heed(bad_case[0]);
    INFO("heed " << bad_case[0] << " -> " << r.status << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(bad_case[1]) != std::string::npos);
  }
}

}  // namespace

TEST_SUITE("ch14_tasks") {
  TEST_CASE("one sequence: <bos> s <sep> t, scored on t <eos>; the source and <sep> get the ignored PAD target") {
    OneSequenceTask task(make_task("reverse", 5, 2, 3));
    CHECK(task.name() == "reverse-seq");
    // Symbols keep their ids (symbol k is k + 3); <sep> is the last id, V + 3.
    REQUIRE(task.tgt_vocab().size() == 9);
    CHECK(task.sep() == 8);
    CHECK(task.tgt_vocab().token(8) == "<sep>");
    CHECK(task.tgt_vocab().token(3) == "0");
    CHECK(task.src_vocab().tokens() == task.tgt_vocab().tokens());
    CHECK(task.max_target_len() == 3 + 1 + 3);
    // Two hand-made examples, n = 3 and n = 2.
    Example a = task.join({{3, 4, 5}, {5, 4, 3}}), b = task.join({{6, 7}, {7, 6}});
    CHECK(a.context == 4);
    CHECK(a.tgt == std::vector<int64_t>{3, 4, 5, 8, 5, 4, 3});
    Batch batch = make_batch({a, b});
    REQUIRE(batch.tgt_len == 8);
    const int64_t P = Vocab::kPad, B = Vocab::kBos, E = Vocab::kEos;
    CHECK(row(batch.tgt_in, 0, 8) == std::vector<int64_t>{B, 3, 4, 5, 8, 5, 4, 3});
    CHECK(row(batch.tgt_out, 0, 8) == std::vector<int64_t>{P, P, P, P, 5, 4, 3, E});
    CHECK(row(batch.tgt_in, 1, 8) == std::vector<int64_t>{B, 6, 7, 8, 7, 6, P, P});
    CHECK(row(batch.tgt_out, 1, 8) == std::vector<int64_t>{P, P, P, 7, 6, E, P, P});
    CHECK(batch.context == std::vector<int64_t>{4, 3});
    CHECK(batch.tgt_lengths == std::vector<int64_t>{8, 6});
    // A seeded draw is the base task's draw, joined.
    Generator g1(5), g2(5);
    ReverseTask base(5, 2, 3);
    for (int i = 0; i < 5; ++i) {
      Example e = task.sample(g1), f = base.sample(g2);
      CHECK(e.src == f.src);
      CHECK(e.tgt == task.join(f).tgt);
    }
    CHECK(task.target({3, 4, 6}) == std::vector<int64_t>{6, 4, 3});
    CHECK_THROWS_WITH_AS(task.target({3, 8}), doctest::Contains("is not a word of the source"), Error);
    // A sequence-to-sequence example has no context: its batch is as it always was.
    Batch plain = make_batch({{{3, 4}, {4, 3}}});
    CHECK(plain.tgt_out == std::vector<int64_t>{4, 3, E});
    CHECK(plain.context == std::vector<int64_t>{0});
    Example bad{{3}, {3}, 2};
    CHECK_THROWS_WITH_AS(make_batch({bad}), doctest::Contains("context 2 is not within its 1 target tokens"), Error);
  }

  TEST_CASE("translate as one sequence: the German words keep their ids, the English ones follow, <sep> last") {
    std::unique_ptr<Task> task = make_task("translate-seq", 0, 1, 1);
    const auto& one = dynamic_cast<const OneSequenceTask&>(*task);
    TranslateTask grammar;
    const Vocab& v = one.tgt_vocab();
    for (int64_t id = 0; id < grammar.src_vocab().size(); ++id) CHECK(v.token(id) == grammar.src_vocab().token(id));
    CHECK(v.token(v.size() - 1) == "<sep>");
    for (const std::string& w : grammar.tgt_vocab().tokens()) CHECK(v.contains(w));
    CHECK(v.size() < grammar.src_vocab().size() + grammar.tgt_vocab().size() - 3 + 1);  // shared: , . and more
    Example e = one.join({grammar.src_vocab().encode(TranslateTask::kSeedSource),
                          grammar.tgt_vocab().encode(TranslateTask::kSeedTarget)});
    CHECK(v.decode(e.tgt) == std::string(TranslateTask::kSeedSource) + " <sep> " + TranslateTask::kSeedTarget);
    CHECK(one.min_len() == grammar.min_len());
  }

  TEST_CASE("make_task names the one-sequence forms and german; the others are unknown") {
    CHECK(make_task("copy-seq", 4, 1, 2)->tgt_vocab().size() == 8);
    CHECK(make_task("sort-seq", 4, 1, 2)->name() == "sort-seq");
    CHECK(make_task("german", 0, 1, 1)->name() == "german");
    CHECK_THROWS_WITH_AS(make_task("repeat-seq", 4, 1, 2), doctest::Contains("unknown task 'repeat-seq'"), Error);
    CHECK_THROWS_WITH_AS(make_task("german-seq", 4, 1, 2), doctest::Contains("unknown task"), Error);
  }

  TEST_CASE("greedy_after: each row's prompt is read, then its argmax continuation, as the full forward's") {
    Generator gen(3);
    DecoderModel model(small_decoder(9), gen);
    const std::vector<std::vector<int64_t>> prompts = {{3, 4, 5, 8}, {6, 8}};
    const Decoded d = greedy_after(model, prompts, 4);
    REQUIRE(d.tokens.size() == 2);
    for (size_t b = 0; b < 2; ++b) {
      REQUIRE(d.tokens[b].size() == 4);
      // The same tokens, one full teacher-forced forward per step: <bos> prompt chosen-so-far.
      std::vector<int64_t> seq = prompts[b];
      for (size_t k = 0; k < 4; ++k) {
        Example e{{3}, seq};
        Batch one = make_batch({e});
        Tensor logits = model.forward(one).value();  // (1, T, 9)
        const int64_t t = static_cast<int64_t>(seq.size());  // the position after the last token read
        const real* l = logits.data() + t * 9;
        const int64_t best = std::max_element(l, l + 9) - l;
        CHECK(d.tokens[b][k] == best);
        seq.push_back(best == Vocab::kEos || best == Vocab::kPad || best == Vocab::kBos ? 3 : best);
        if (best < Vocab::kNumSpecials) break;  // a special cannot be fed back through make_batch
      }
    }
  }

  TEST_CASE("score_decoded with context: the tokens after <sep> against t <eos>") {
    OneSequenceTask task(make_task("reverse", 5, 2, 3));
    Batch batch = make_batch({task.join({{3, 4, 5}, {5, 4, 3}}), task.join({{6, 7}, {7, 6}})});
    Decoded d;
    d.tokens = {{5, 4, 3, Vocab::kEos}, {7, 7, Vocab::kEos, 4}};  // row 0 right; row 1 one symbol wrong
    Accuracy acc;
    score_decoded(d, batch, acc);
    CHECK(acc.n == 2);
    CHECK(acc.exact_right == 1);
    CHECK(acc.tokens == 5);
    CHECK(acc.tokens_right == 4);
  }

  TEST_CASE("a decoder trained a few hundred steps on reverse as one sequence reaches an exact match an untrained one does not") {
    OneSequenceTask task(make_task("reverse", 4, 3, 4));
    ModelConfig c = small_decoder(task.tgt_vocab().size());
    Generator gen(1);
    DecoderModel model(c, gen);
    const std::vector<int64_t> lengths = {3, 4};
    std::vector<Accuracy> before = evaluate_by_length(model, task, lengths, 100, 11);
    TrainOptions opt;
    opt.steps = 200;
    opt.batch = 32;
    opt.lr = 1e-2;
    Trainer trainer(model, task, opt);
    while (!trainer.done()) trainer.step();
    std::vector<Accuracy> after = evaluate_by_length(model, task, lengths, 100, 11);
    for (size_t i = 0; i < lengths.size(); ++i) {
      CAPTURE(lengths[i]);
      CHECK(before[i].exact() < 0.05);
      CHECK(after[i].exact() > 0.8);
    }
  }

  TEST_CASE("german: the grammar's German sentences, each one sequence, recognised by look-up") {
    GermanTask task;
    TranslateTask grammar;
    CHECK(task.num_sentences() == 19000);
    CHECK(task.tgt_vocab().tokens() == grammar.src_vocab().tokens());
    const Vocab& v = task.tgt_vocab();
    CHECK(task.in_grammar(v.encode(TranslateTask::kSeedSource)) == TranslateTask::Split::kTrain);
    CHECK(task.in_grammar(v.encode(TranslateTask::kTwinSource)) == TranslateTask::Split::kHeldOut);
    CHECK(task.in_grammar(v.encode("ich habe keinen hunger , weil ich ein brot gegessen habe")) ==
          TranslateTask::Split::kNone);  // no full stop
    CHECK(task.in_grammar(v.encode("habe ich keinen hunger , weil ich ein brot gegessen habe .")) ==
          TranslateTask::Split::kNone);
    Generator gen(4);
    for (int i = 0; i < 10; ++i) {
      Example e = task.sample(gen), h = task.sample_held_out(gen);
      CHECK(e.tgt == e.src);
      CHECK(e.context == 0);
      CHECK(task.in_grammar(e.tgt) == TranslateTask::Split::kTrain);
      CHECK(task.in_grammar(h.tgt) == TranslateTask::Split::kHeldOut);
    }
    CHECK(task.target(v.encode(TranslateTask::kSeedSource)) == v.encode(TranslateTask::kSeedSource));
    CHECK_THROWS_WITH_AS(task.target(v.encode("ich habe")), doctest::Contains("is not a sentence of the grammar"),
                         Error);
  }

  TEST_CASE("score_language: the held-out loss per token by hand; the samples counted by the grammar") {
    GermanTask task;
    Generator gen(6);
    DecoderModel model(small_decoder(task.tgt_vocab().size()), gen);
    const LanguageScore s = score_language(model, task, 3, 4, 21);
    // The same three sentences, each scored alone: -log p of every word and the <eos>.
    Generator draws(21);
    double nll = 0;
    int64_t tokens = 0;
    for (int i = 0; i < 3; ++i) {
      Batch b = make_batch({task.sample_held_out(draws)});
      Tensor logp = log_softmax(model.forward(b).value(), 2);
      const int64_t V = task.tgt_vocab().size();
      for (int64_t t = 0; t < b.tgt_len; ++t) nll -= logp[t * V + b.tgt_out[t]];
      tokens += b.tgt_len;
    }
    CHECK(s.tokens == tokens);
    CHECK(std::fabs(s.loss - nll / tokens) < test::tol(1e-12));
    CHECK(std::fabs(s.perplexity - std::exp(nll / tokens)) < test::tol(1e-10));
    CHECK(s.samples == 4);
    // An untrained model's samples are not sentences (its first word alone is a 1-in-79 guess).
    CHECK(s.grammatical == 0);
  }

  TEST_CASE("heed train/eval/predict on reverse with --model decoder; the checkpoint keeps the task and <sep>") {
    Scratch s("tasks-cli");
    const std::string file = s.path("rev.safetensors");
    CliRun t = s.heed("train --model decoder --task reverse --vocab 4 --min-len 3 --max-len 4 --embed 32 --heads 2 "
                      "--ff 64 --lr 0.01 --steps 200 --eval-samples 100 --json --save " + file);
    INFO(t.err);
    REQUIRE(t.status == 0);
    CHECK(t.out.find("on reverse-seq") != std::string::npos);
    CHECK(t.json().find("exact")->as_real() > 0.8);
    const auto meta = read_checkpoint_metadata(file);
    CHECK(meta.at("task") == "reverse-seq");
    CHECK(meta.at("vocab") == "4");
    CHECK(meta.at("tgt_tokens") == "<pad> <bos> <eos> 0 1 2 3 <sep>");
    CliRun e = s.heed("eval --load " + file + " --samples 50 --lengths 3,4 --json");
    REQUIRE(e.status == 0);
    CHECK(e.out.find("length   exact   token") != std::string::npos);
    const Json ej = e.json();
    for (const Json& r : ej.find("by_length")->as_array()) CHECK(r.find("exact")->as_real() > 0.8);
    CliRun p = s.heed("predict --load " + file + " \"0 1 2 3\"");
    REQUIRE(p.status == 0);
    CHECK(p.out == "source: 0 1 2 3\noutput: 3 2 1 0\n");
    // The continuation sample reads is the same sequence: <bos> source <sep>, then the model's tokens.
    CliRun g = s.heed("sample --load " + file + " --prompt \"0 1 2 3 <sep>\" --temperature 0");
    REQUIRE(g.status == 0);
    CHECK(g.out.find("sample: 3 2 1 0 <eos>") != std::string::npos);
    // --resume and --load rebuild the task from the file.
    CHECK(s.heed("train --resume " + file + " --steps 201 --save " + s.path("more.safetensors")).status == 0);
  }

  TEST_CASE("heed train/eval/sample on german; sample says whether the sentence is the grammar's") {
    Scratch s("tasks-german");
    const std::string file = s.path("de.safetensors");
    CliRun t = s.heed("train --model decoder --task german --embed 16 --heads 2 --ff 32 --steps 3 --eval-samples 5 "
                      "--json --save " + file);
    INFO(t.err);
    REQUIRE(t.status == 0);
    CHECK(t.out.find("samples in the grammar:") != std::string::npos);
    CHECK(t.json().find("perplexity")->as_real() > 1);
    CHECK(read_checkpoint_metadata(file).at("task") == "german");
    CliRun e = s.heed("eval --load " + file + " --samples 5 --json");
    REQUIRE(e.status == 0);
    CHECK(e.out.find("perplexity") != std::string::npos);
    CHECK(e.json().find("samples")->as_real() == 5);
    CliRun g = s.heed("sample --load " + file + " --prompt \"ich\" --max-tokens 3");
    REQUIRE(g.status == 0);
    CHECK(g.out.find("prompt: ich\nsample: ") == 0);
    CHECK(g.out.find("in the grammar: ") != std::string::npos);
  }

  TEST_CASE("translate as one sequence on the command line: German <sep> English, the source German alone") {
    Scratch s("tasks-translate");
    const std::string file = s.path("tr.safetensors");
    CliRun t = s.heed("train --model decoder --task translate --embed 16 --heads 2 --ff 16 --steps 2 --eval-samples 5 "
                      "--save " + file);
    INFO(t.err);
    REQUIRE(t.status == 0);
    CHECK(t.out.find("on translate-seq") != std::string::npos);
    const auto meta = read_checkpoint_metadata(file);
    CHECK(meta.at("task") == "translate-seq");
    const std::string tokens = meta.at("tgt_tokens");
    CHECK(tokens.substr(tokens.size() - 6) == " <sep>");
    CHECK(tokens.find(" because ") != std::string::npos);  // the English words follow the German ones
    CHECK(tokens.find(" weil ") < tokens.find(" because "));
    CliRun p = s.heed("predict --load " + file + " \"" + TranslateTask::kSeedSource + "\"");
    REQUIRE(p.status == 0);
    CHECK(p.out.find(std::string("source: ") + TranslateTask::kSeedSource + "\noutput: ") == 0);
    CliRun e = s.heed("predict --load " + file + " \"ich am hungry\"");
    CHECK(e.status == 2);
    CHECK(e.err.find("the source may not contain 'am'") != std::string::npos);
  }

  TEST_CASE("the combinations that make no sense are refused in one line") {
    Scratch s("tasks-bad");
    const std::string rev = s.path("rev.safetensors"), rep = s.path("rep.safetensors"), de = s.path("de.safetensors");
    REQUIRE(s.heed("train --model decoder --task reverse --embed 8 --heads 2 --ff 8 --steps 0 --save " + rev).status == 0);
    REQUIRE(s.heed("train --model decoder --task repeat --embed 8 --heads 2 --ff 8 --steps 0 --save " + rep).status == 0);
    REQUIRE(s.heed("train --model decoder --task german --embed 8 --heads 2 --ff 8 --steps 0 --save " + de).status == 0);
    const std::string bad[][2] = {
        {"train --task german --steps 0", "--task german is a language to model"},
        {"train --model transformer --task german --steps 0", "train it with --model decoder"},
        {"train --model decoder --task german --vocab 5 --steps 0", "--vocab does not apply to --task german"},
        {"predict --load " + rep + " \"3 1 4\"", "one sequence without a source"},
        {"predict --load " + de + " \"ich\"", "heed sample --load continues a prompt"},
        {"predict --load " + rev + " --svg " + s.path("a.svg") + " \"3 1 4\"", "--svg is not available for a decoder-only"},
        {"predict --load " + rev + " --beam 2 \"3 1 4\"", "--beam is not available"},
        {"predict --load " + rev + " \"3 <sep> 4\"", "the source may not contain '<sep>'"},
        {"eval --load " + de + " --lengths 5", "--lengths does not apply to --task german"},
        {"eval --load " + rev + " --heads", "--heads scores the heads of a decoder-only model on --task repeat"},
    };
    refused_in_one_line(s, bad);
  }
}
