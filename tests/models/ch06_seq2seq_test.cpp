// Chapter 06: the plain encoder-decoder, its training loop, decoding and metrics.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "models/evaluate.h"
#include "models/seq2seq.h"
#include "nn/checkpoint.h"
#include "nn/loss.h"
#include "tests/support/chapter_check.h"
#include "tests/support/heed_cli.h"  // slurp
#include "tests/support/model_checks.h"
#include "tests/support/model_fixtures.h"
#include "tests/support/precision.h"

using namespace heed;
using test::tiny_rnn;
using test::two_sequences;

TEST_SUITE("ch06_seq2seq") {
  TEST_CASE("gradcheck: the whole sequence loss of a tiny plain seq2seq w.r.t. every parameter" * DOUBLE_ONLY(kGradcheckReason)) {
    for (const char* cell : {"gru", "lstm", "rnn"}) {
      Generator gen(1);
      Seq2Seq model(tiny_rnn("plain", cell), gen);
      Batch batch = two_sequences();
      GradcheckReport r = gradcheck([&] { return model.loss(batch); }, model.parameters(),
                                    {.name = std::string("plain seq2seq loss, ") + cell});
      INFO(r.str());
      CHECK(r.ok);
    }
  }

  TEST_CASE("padding: a sequence's loss and gradients are the same alone or padded in a batch") {
    Generator gen(2);
    Seq2Seq model(tiny_rnn("plain"), gen);
    test::check_padding_invariance(model, {{5, 3, 6}, {6, 3, 5}}, {{3, 4, 5, 6, 3}, {3, 6, 5, 4, 3}});
  }
}

TEST_SUITE("ch06_seq2seq") {
  TEST_CASE("learning: plain on reverse, lengths 3-5, reaches exact >= 0.9 in 400 steps") {
    ReverseTask task(10, 3, 5);
    auto [model, r] = test::train_on(task, test::learner("plain"), 1, test::train_options(400, 32, 0.006, test::kCliDataSeed1));
    CHECK(r.losses.back() < r.losses.front() / 10);
    Accuracy acc = evaluate_held_out(*model, task, 500, test::kCliHeldOutSeed1);
    INFO("exact " << acc.exact() << ", token " << acc.token());
    CHECK(acc.exact() >= 0.9);
  }

  TEST_CASE("determinism: the same seed gives bit-identical losses and checkpoints") {
    ReverseTask task(10, 3, 6);
    auto run = [&](const std::string& path) {
      auto [model, r] = test::train_on(task, tiny_rnn("additive"), 5, test::train_options(15, 8));
      save_checkpoint(*model, path);
      return r.losses;
    };
    std::string dir = std::filesystem::temp_directory_path() / ("heed-ch06-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::vector<real> a = run(dir + "/a.safetensors"), b = run(dir + "/b.safetensors");
    CHECK(a == b);
    CHECK(slurp(dir + "/a.safetensors") == slurp(dir + "/b.safetensors"));
    CHECK(!slurp(dir + "/a.safetensors").empty());
    std::filesystem::remove_all(dir);
  }

  TEST_CASE("metrics: exact needs every symbol and the EOS; token counts the symbols") {
    // A model that has not learned: scores are counted, not invented.
    Generator gen(9);
    Seq2Seq model(tiny_rnn("plain"), gen);
    Batch batch = two_sequences();
    Accuracy acc;
    score_batch(model, batch, acc);
    CHECK(acc.n == 2);
    CHECK(acc.tokens == 6);  // 4 + 2 symbols; the EOS is not a token position
    Decoded d = model.greedy(batch, batch.tgt_len);
    int64_t right = 0;
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t t = 0; t < batch.tgt_lengths[b] - 1; ++t) right += d.tokens[b][t] == batch.tgt_out[b * batch.tgt_len + t];
    CHECK(acc.tokens_right == right);
  }
}

TEST_SUITE("ch06_seq2seq") {
  // The chapter's training run takes a minute: make check-chapters compares its output; this
  // checks the code it quotes.
  TEST_CASE("chapter 06 quotes the code it compiles") { check_chapter("tutorials/06_seq2seq"); }
}
