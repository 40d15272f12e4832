// Chapter 13 (the Transformer) as a sequence-to-sequence model, TransformerSeq2Seq (--model
// transformer): gradients of the whole loss, padding, decoding step by step against the
// teacher-forced pass, beam 1 against greedy, checkpoint names, training, and the CLI.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "models/beam.h"
#include "models/evaluate.h"
#include "models/seq2seq.h"
#include "models/transformer.h"
#include "models/train.h"
#include "nn/checkpoint.h"
#include "nn/loss.h"
#include "tests/support/chapter_check.h"
#include "tests/support/heed_cli.h"
#include "tests/support/model_checks.h"
#include "tests/support/model_fixtures.h"
#include "tests/support/precision.h"

using namespace heed;

using test::two_sequences;
using test::tiny_transformer;

TEST_SUITE("ch13_transformer_model") {
  TEST_CASE("gradcheck: the whole loss of a 2+2-layer transformer w.r.t. every parameter, padded" * DOUBLE_ONLY(kGradcheckReason)) {
    for (bool norm_first : {false, true})
      for (std::string positions : {"sinusoidal", "learned"}) {
        Generator gen(1);
        TransformerSeq2Seq model(tiny_transformer(norm_first, positions), gen);
        Batch batch = two_sequences();
        GradcheckReport r = gradcheck([&] { return model.loss(batch); }, model.parameters(),
                                      {.name = "transformer loss, norm_first " + std::to_string(norm_first) + ", " +
                                               positions});
        INFO(r.str());
        CHECK(r.ok);
      }
  }

  TEST_CASE("padding: a sequence's logits, loss and gradients are bit-identical alone or padded in a batch") {
    for (bool norm_first : {false, true}) {
      CAPTURE(norm_first);
      Generator gen(2);
      TransformerSeq2Seq model(tiny_transformer(norm_first), gen);
      test::check_padding_invariance(model, {{5, 3, 6}, {6, 3, 5}}, {{3, 4, 5, 6, 3}, {3, 6, 5, 4, 3}});
    }
  }

  TEST_CASE("decoding step by step on the key/value cache gives the teacher-forced logits; padding never changes greedy's tokens") {
    for (bool norm_first : {false, true})
      for (std::string positions : {"sinusoidal", "learned"}) {
        CAPTURE(norm_first);
        CAPTURE(positions);
        Generator gen(3);
        ModelConfig c = tiny_transformer(norm_first, positions);
        c.embed = 8;
        TransformerSeq2Seq model(c, gen);
        Batch batch = two_sequences();  // sources of 4 and 2 positions
        auto weights = [&](int64_t t, const StepOutput& o) {
          CHECK(o.weights.shape() == Shape{2, 4});  // the last layer's cross-attention, averaged over heads
          if (t < batch.tgt_lengths[1]) CHECK(o.weights.value()[1 * 4 + 2] == 0);  // a padded source position
        };
        std::unique_ptr<StepState> st = test::check_steps_match_forward(model, batch, weights);
        // The cache holds every position's self-attention keys and values and the memory's, once.
        auto& own = dynamic_cast<TransformerState&>(*st);
        REQUIRE(own.cache.size() == 2);
        CHECK(own.cache[1].self.keys.shape() == Shape{4, batch.tgt_len, 4});  // (B h, t, d_k)
        CHECK(own.cache[1].cross.values.shape() == Shape{4, batch.src_len, 4});  // (B h, S, d_k)
        Decoded both = model.greedy(batch, 5);
        Decoded alone = model.greedy(make_batch({{{5, 3}, {3, 5}}}), 5);
        CHECK(both.tokens[1] == alone.tokens[0]);
        CHECK(both.attention[1].size() == 5);
      }
  }

  TEST_CASE("beam 1 is greedy decoding, token for token") {
    Generator gen(4);
    TransformerSeq2Seq model(tiny_transformer(true), gen);
    std::vector<int64_t> src = {3, 5, 4, 6};
    Decoded g = model.greedy(make_batch({{src, {}}}), 6);
    std::vector<Hypothesis> h = beam_search(model, src, 1, 6);
    REQUIRE(h.size() == 1);
    std::vector<int64_t> want(g.tokens[0].begin(), g.tokens[0].begin() + static_cast<int64_t>(h[0].tokens.size()));
    CHECK(h[0].tokens == want);
    std::vector<Hypothesis> h3 = beam_search(model, src, 3, 6);
    CHECK(h3.size() == 3);
  }

  TEST_CASE("make_model builds the model its config names; each model refuses the other's config and decoder state") {
    Generator g1(6), g2(6), g3(6);
    std::unique_ptr<Model> t = make_model(tiny_transformer(), g1);
    std::unique_ptr<Model> r = make_model(test::tiny_rnn("additive"), g2);
    CHECK(dynamic_cast<TransformerSeq2Seq*>(t.get()) != nullptr);
    CHECK(dynamic_cast<Seq2Seq*>(r.get()) != nullptr);
    CHECK(t->num_parameters() == tiny_transformer().parameter_count());
    TransformerSeq2Seq direct(tiny_transformer(), g3);  // by name: the same weights from the same seed
    const std::vector<Var> a = t->parameters(), b = direct.parameters();
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) CHECK(equal(a[i].value(), b[i].value()));
    Generator g;
    CHECK_THROWS_WITH_AS(Seq2Seq(tiny_transformer(), g), doctest::Contains("seq2seq: the transformer is TransformerSeq2Seq"),
                         Error);
    CHECK_THROWS_WITH_AS(TransformerSeq2Seq(test::tiny_rnn("additive"), g),
                         doctest::Contains("transformer: model 'additive' is a recurrent Seq2Seq"), Error);
    Batch batch = two_sequences();
    std::unique_ptr<StepState> rs = r->start_decoding(batch), ts = t->start_decoding(batch);
    CHECK_THROWS_WITH_AS(t->decode_step({1, 1}, *rs), doctest::Contains("transformer: decode_step was given another model's"),
                         Error);
    CHECK_THROWS_WITH_AS(r->decode_step({1, 1}, *ts), doctest::Contains("seq2seq: decode_step was given another model's"),
                         Error);
    // Only a table with a row per source position limits the source: learned positions, location.
    CHECK(tiny_transformer(false, "learned").source_limit() == 6);
    CHECK(tiny_transformer().source_limit() == INT64_MAX);
    CHECK(test::tiny_rnn("location").source_limit() == 6);
    CHECK(test::tiny_rnn("general").source_limit() == INT64_MAX);
    Generator g4(6);
    TransformerSeq2Seq learned(tiny_transformer(false, "learned"), g4);
    CHECK_THROWS_WITH_AS(beam_search(learned, std::vector<int64_t>(7, 3), 1, 2),
                         doctest::Contains("the source has 7 tokens; the model reads at most 6"), Error);
    CHECK(beam_search(*t, std::vector<int64_t>(7, 3), 1, 2).front().attention.front().size() == 7);
    // A model without dropout has no masks' stream to restore.
    CHECK(r->dropout_state().empty());
    CHECK_THROWS_WITH_AS(r->set_dropout_state("1 2"), doctest::Contains("for a model without dropout"), Error);
  }

  TEST_CASE("TransformerState::select_rows copies the chosen rows of the mask and of every layer's cache") {
    Generator gen(7);
    TransformerSeq2Seq model(tiny_transformer(), gen);
    TransformerState st = model.start(two_sequences());
    model.step({Vocab::kBos, Vocab::kBos}, st);  // one position in each decoder layer's cache
    const std::vector<int64_t> rows = {1, 0, 1};
    std::unique_ptr<StepState> picked = st.select_rows(rows);
    auto& sel = dynamic_cast<TransformerState&>(*picked);
    CHECK(equal(sel.mask, index_select(st.mask, rows)));
    REQUIRE(sel.cache.size() == 2);
    const std::vector<int64_t> head_rows = {2, 3, 0, 1, 2, 3};  // (B h, ., d_k): sequence r is rows 2r, 2r + 1
    for (size_t i = 0; i < st.cache.size(); ++i)
      for (auto part : {&LayerCache::self, &LayerCache::cross}) {  // (B h, t, d_k), (B h, S, d_k)
        CHECK(equal((sel.cache[i].*part).keys.value(), index_select((st.cache[i].*part).keys.value(), head_rows)));
        CHECK(equal((sel.cache[i].*part).values.value(), index_select((st.cache[i].*part).values.value(), head_rows)));
      }
    CHECK(sel.position == 1);
    // The copies decode on as their originals: row 0 of the selection is row 1 of the state.
    Tensor next = model.logits(model.step({4, 4}, st).out).value();          // (2, V)
    Tensor chosen = model.logits(model.step({4, 4, 4}, sel).out).value();    // (3, V)
    CHECK(equal(index_select(chosen, {0}), index_select(next, {1})));
    CHECK(equal(index_select(chosen, {1}), index_select(next, {0})));
  }

  TEST_CASE("checkpoint: torch.nn.Transformer's names, the config in the metadata, a faithful round trip") {
    Generator gen(5);
    ModelConfig c = tiny_transformer(true, "learned");
    c.layers = 1;
    c.dropout = 0.125;
    TransformerSeq2Seq model(c, gen);
    CHECK(model.num_parameters() == c.parameter_count());
    std::set<std::string> names;
    for (auto& [n, p] : model.named_parameters()) names.insert(n);
    for (const char* n : {"src_embed.weight", "tgt_embed.weight", "src_pos.weight", "tgt_pos.weight",
                          "encoder.layers.0.self_attn.in_proj_weight", "encoder.layers.0.self_attn.out_proj.bias",
                          "encoder.layers.0.linear1.weight", "encoder.layers.0.norm2.bias", "encoder.norm.weight",
                          "decoder.layers.0.multihead_attn.in_proj_bias", "decoder.layers.0.norm3.weight",
                          "decoder.norm.bias", "out.weight", "out.bias"})
      CHECK_MESSAGE(names.count(n) == 1, n);
    CHECK(names.size() == 2 + 2 + 12 + 2 + 18 + 2 + 2);  // embeddings, positions, encoder, its norm, decoder, its norm, out
    ModelConfig back = ModelConfig::from_metadata(c.to_metadata());
    CHECK(back.layers == 1);
    CHECK(back.heads == 2);
    CHECK(back.ff == 6);
    CHECK(back.norm_first);
    CHECK(back.positions == "learned");
    CHECK(back.dropout == 0.125);
    // The recurrent models' metadata stays as it was: no transformer keys.
    ModelConfig rnn;
    CHECK(rnn.to_metadata().count("layers") == 0);
    Scratch s("transformer-ckpt");
    save_checkpoint(model, s.path("t.safetensors"), c.to_metadata());
    Generator other(99);
    TransformerSeq2Seq loaded(back, other);
    load_checkpoint(loaded, s.path("t.safetensors"));
    Batch batch = two_sequences();
    CHECK(equal(loaded.forward(batch).value(), model.forward(batch).value()));
  }

  TEST_CASE("config: a transformer's sizes are checked, with the field and value named") {
    ModelConfig c = tiny_transformer();
    c.heads = 3;
    CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("heads 3 must divide embed 4"), Error);
    c = tiny_transformer();
    c.positions = "rotary";
    CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("unknown positions 'rotary'"), Error);
    c = tiny_transformer();
    c.layers = 0;
    CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("layers is 0"), Error);
    c = tiny_transformer();
    c.dropout = 1;
    CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("dropout is 1"), Error);
  }

  TEST_CASE("dropout: a seed fixes the run; training changes the masks, evaluation has none") {
    ReverseTask task(5, 3, 4);
    ModelConfig c = tiny_transformer();
    c.dropout = 0.3;
    auto [a_model, ra] = test::train_on(task, c, 6, test::train_options(5, 4));
    auto [b_model, rb] = test::train_on(task, c, 6, test::train_options(5, 4));
    Model& a = *a_model;
    CHECK(ra.losses == rb.losses);
    Batch batch = two_sequences();
    CHECK(equal(a.forward(batch).value(), a.forward(batch).value()));  // eval: no dropout
    a.set_training(true, 1);
    Tensor t1 = a.forward(batch).value(), t2 = a.forward(batch).value();
    CHECK(!equal(t1, t2));
    a.set_training(false);
  }

  TEST_CASE("learning: 2+2 layers learn reverse 3-6 (fixed seed)") {
    // d 32, 4 heads, ff 64, batch 32, 300 steps, lr 3e-3 decayed linearly. Measured: exact 0.99
    // (token 0.996) on 300 held-out sequences; 250 steps gave 0.93.
    ReverseTask task(10, 3, 6);
    ModelConfig c = tiny_transformer();
    c.embed = 32;
    c.heads = 4;
    c.ff = 64;
    auto [model, r] = test::train_on(task, c, 1, test::train_options(300, 32, TrainOptions{}.lr, test::kCliDataSeed1));
    CHECK(r.losses.back() < r.losses.front() / 10);
    Accuracy acc = evaluate_held_out(*model, task, 300, test::kCliHeldOutSeed1);
    INFO("exact " << acc.exact() << ", token " << acc.token());
    CHECK(acc.exact() >= 0.9);
  }

  TEST_CASE("heed train/eval/predict/bench --model transformer; its flags are refused elsewhere") {
    Scratch s("transformer-cli");
    std::string file = s.path("t.safetensors");
    CliRun t = s.heed("train --task reverse --model transformer --min-len 3 --max-len 5 --embed 8 --heads 2 --ff 16 "
                      "--layers 1 --norm-first --batch 8 --steps 20 --eval-samples 10 --json --save " + file);
    INFO(t.err);
    REQUIRE(t.status == 0);
    CHECK(t.out.find("1+1 layers, 2 heads, d 8, ff 16, pre-norm, sinusoidal positions") != std::string::npos);
    CHECK(t.json().find("model")->as_string() == "transformer");
    CliRun e = s.heed("eval --load " + file + " --lengths 3,5 --samples 10 --json");
    INFO(e.err);
    CHECK(e.status == 0);
    CliRun p = s.heed("predict --load " + file + " --beam 2 --json \"3 1 4\"");
    INFO(p.err);
    CHECK(p.status == 0);
    CHECK(!p.json().find("attention")->as_array().empty());
    // The film's caption is a command heed accepts for this model: it runs.
    const std::string film = s.path("f.html");
    CliRun filmed = s.heed("train --task reverse --model transformer --min-len 3 --max-len 5 --embed 8 --heads 2 "
                           "--ff 16 --layers 1 --norm-first --batch 4 --steps 4 --watch-every 2 --eval-samples 4 "
                           "--film " + film);
    INFO(filmed.err);
    REQUIRE(filmed.status == 0);
    const std::string page = slurp(film);
    const size_t at = page.find("<p class=\"caption\">heed train ");
    REQUIRE(at != std::string::npos);
    const size_t from = page.find("train ", at), to = page.find(';', at);
    const std::string caption = page.substr(from, to - from);
    CHECK(caption.find("--model transformer --embed 8 --layers 1 --heads 2 --ff 16 --norm-first") != std::string::npos);
    CHECK(caption.find("--cell") == std::string::npos);
    CHECK(caption.find("--hidden") == std::string::npos);
    CliRun again = s.heed(caption + " --eval-samples 4");
    INFO(caption << ": " << again.err);
    CHECK(again.status == 0);
    // The picture's title names the model that ran, not a cell it does not have.
    CliRun svg = s.heed("predict --load " + file + " --svg " + s.path("t.svg") + " \"3 1 4\"");
    INFO(svg.err);
    REQUIRE(svg.status == 0);
    const std::string picture = slurp(s.path("t.svg"));
    CHECK(picture.find("reverse: transformer (D 8, 1+1 layers, 2 heads)") != std::string::npos);
    CHECK(picture.find("gru") == std::string::npos);
    CliRun b = s.heed("bench --model transformer --embed 8 --heads 2 --ff 16 --layers 1 --batch 4 --len 5 --steps 2 "
                      "--warmup 0 --json");
    INFO(b.err);
    CHECK(b.status == 0);
    // Its bench line gives its sizes (D, layers, heads), no hidden size.
    CHECK(b.out.find(std::string(" ") + kRealName + " D 8 layers 1 heads 2 batch 4 len 5:") != std::string::npos);
    CHECK(b.out.find(" H ") == std::string::npos);
    const Json bench = b.json();
    REQUIRE(bench.find("layers"));
    REQUIRE(bench.find("heads"));
    CHECK(bench.find("layers")->as_int() == 1);
    CHECK(bench.find("heads")->as_int() == 2);
    const char* bad[][2] = {
        {"train --model additive --layers 2", "--layers is for --model transformer"},
        {"train --model plain --norm-first", "--norm-first is for --model transformer"},
        {"train --model transformer --embed 10 --heads 4", "--heads 4 must divide --embed 10"},
        {"train --model transformer --hidden 64", "--hidden is for the recurrent models, not --model transformer (its width is --embed)"},
        // The recurrent models' flags, with the transformer (they were accepted and recorded).
        {"train --model transformer --cell lstm", "--cell is for the recurrent models, not --model transformer"},
        {"train --model transformer --bidirectional", "--bidirectional is for the recurrent models"},
        {"train --model transformer --input-feeding", "--input-feeding is for the recurrent models"},
        {"bench --model transformer --cell rnn", "--cell is for the recurrent models"},
        {"bench --model transformer --hidden 32", "--hidden is for the recurrent models"},
        {"train --model additive --dropout 0.1", "--dropout is for --model transformer"},
        {"bench --model general --heads 2", "--heads is for --model transformer"},
        {"train --model transformer --positions rotary", "--positions"},
        {"train --model transformer --dropout 1", "--dropout"},
        {"bench --model transformer --layers 0", "--layers"},
    };
    for (auto& bad_case : bad) {
      const std::string args = bad_case[0];  // not a structured binding: INFO captures it (clang < 16)
      const std::string words = bad_case[1];
      CliRun r = s.heed(args);
      INFO("heed " << args << " -> " << r.status << ": " << r.err);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(r.err.find(words) != std::string::npos);
    }
  }

  // The chart of section 3 comes after minutes of training. Written with a bare ofstream it was
  // lost without a word when the destination could not take it; now the destination is checked
  // before the training, and the error names it. ("chapter" in the name: make test-aarch64 builds
  // no chapter programs and skips these.)
  TEST_CASE("chapter 13's chart: a destination that cannot take it is a clear error, before any training") {
    Scratch s("ch13-chart");
    // A folder where the file should go: the stream used to fail silently here, exit status 0.
    std::filesystem::create_directories(s.path("folder/accuracy_by_length.svg"));
    CliRun r = s.run("tutorial-13", "--quick reverse --out " + s.path("folder"));
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err == "tutorial-13: check_writable: " + s.path("folder/accuracy_by_length.svg") +
                       ": is a folder; give a file name\n");
    CHECK(r.out.find("exact by length") == std::string::npos);  // stopped before training
    CHECK(std::filesystem::is_directory(s.path("folder/accuracy_by_length.svg")));
    // An output folder inside a file cannot be made: also refused up front, naming the path.
    std::ofstream(s.path("plain-file")) << "not a folder\n";
    CliRun under = s.run("tutorial-13", "--quick reverse --out " + s.path("plain-file/charts"));
    INFO(under.err);
    CHECK(under.status == 2);
    CHECK(count_lines(under.err) == 1);
    CHECK(under.err.find(s.path("plain-file/charts")) != std::string::npos);
    CHECK(under.out.find("exact by length") == std::string::npos);
    CHECK(slurp(s.path("plain-file")) == "not a folder\n");
    // A folder that takes it gets the chart, and the report names it.
    CliRun ok = s.run("tutorial-13", "--quick reverse --out " + s.path("charts"));
    INFO(ok.err);
    CHECK(ok.status == 0);
    CHECK(ok.out.find("(chart: " + s.path("charts/accuracy_by_length.svg") + ")") != std::string::npos);
    const std::string svg = slurp(s.path("charts/accuracy_by_length.svg"));
    CHECK(svg.find("<svg") != std::string::npos);
    CHECK(svg.find("</svg>") != std::string::npos);
  }

  TEST_CASE("chapter 13 shows what its program prints" * DOUBLE_ONLY(kChapterTextReason)) { check_chapter("tutorials/13_transformer"); }
}
