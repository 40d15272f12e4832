// Chapter 10: the gradient that reaches each encoder state (models/analysis/gradient_path.h), the
// encoder's carried states it reads, and training on a second thread.
#include <doctest/doctest.h>

#include <cmath>
#include <thread>

#include "autograd/functions.h"
#include "models/analysis/gradient_path.h"
#include "models/seq2seq.h"
#include "models/tasks/tasks.h"
#include "models/train.h"
#include "nn/encoder.h"
#include "nn/loss.h"
#include "tests/support/chapter_check.h"

using namespace heed;

namespace {

ModelConfig tiny(const std::string& model, const std::string& cell = "gru") {
  ModelConfig c;
  c.model = model;
  c.cell = cell;
  c.src_vocab = c.tgt_vocab = 8;
  c.embed = 3;
  c.hidden = 5;
  c.max_src_len = 8;
  return c;
}

Example reversed(const std::vector<int64_t>& src) { return {src, std::vector<int64_t>(src.rbegin(), src.rend())}; }

bool close(real a, real b) { return std::abs(a - b) <= 1e-12 * std::max<real>(1, std::abs(b)); }

}  // namespace

TEST_SUITE("ch10_long_sequences") {
  TEST_CASE("the encoder's carried states: one per position, and the returned states where real") {
    Generator gen(3);
    RecurrentEncoder enc("gru", 2, 3, false, gen);
    Tensor x = Tensor::zeros({2, 4, 2});
    for (int64_t k = 0; k < x.numel(); ++k) x[k] = 0.1 * static_cast<real>(k % 7) - 0.3;
    EncoderOutput out = enc.forward(Var(x), {4, 2});
    REQUIRE(out.steps.size() == 4);
    const Tensor& states = out.states.value();  // (2, 4, 3)
    for (int64_t t = 0; t < 4; ++t)
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t k = 0; k < 3; ++k) {
          const real carried = out.steps[t].value()[b * 3 + k];
          // Real positions: the state itself. Padding: the state carried on, unchanged.
          const int64_t shown = std::min<int64_t>(t, b == 0 ? 3 : 1);
          CHECK(carried == states[(b * 4 + shown) * 3 + k]);
        }
    CHECK(out.steps[3].value()[0] == out.last.h.value()[0]);
  }

  TEST_CASE("plain: the gradient at the last encoder state is the gradient at the decoder's first state") {
    // For plain, h_{S-1} reaches the loss only as the decoder's initial state. Cut the decoder
    // from the encoder (a fresh leaf with the same value) and compare.
    Generator gen(1);
    Seq2Seq m(tiny("plain"), gen);
    Batch batch = make_batch({reversed({3, 4, 5, 6, 7})});
    for (int64_t t : {0, 2, 4}) {
      std::vector<real> norms = encoder_gradient_norms(m, batch, t);
      DecoderState st = m.start(batch);
      Var s0(st.s.h.value(), true);
      st.s.h = s0;
      Var out;
      for (int64_t k = 0; k <= t; ++k) out = m.step({batch.tgt_in[k]}, st).out;
      cross_entropy(m.logits(out), {batch.tgt_out[t]}).backward();
      real sq = 0;
      for (real g : s0.grad().values()) sq += g * g;
      INFO("output step " << t);
      CHECK(close(norms[4], std::sqrt(sq)));
    }
  }

  TEST_CASE("each sequence counts alone: a batch's norms are the mean of its sequences' own, padding ignored") {
    for (const char* model : {"plain", "additive", "general"}) {
      Generator gen(2);
      Seq2Seq m(tiny(model), gen);
      Example a = reversed({3, 4, 5, 6, 7, 3}), b = reversed({6, 5, 4});
      std::vector<real> both = encoder_gradient_norms(m, make_batch({a, b}), 2);
      std::vector<real> only_a = encoder_gradient_norms(m, make_batch({a}), 2);
      std::vector<real> only_b = encoder_gradient_norms(m, make_batch({b}), 2);
      REQUIRE(both.size() == 6);
      INFO(model);
      for (int64_t i = 0; i < 6; ++i) {
        INFO("position " << i);
        CHECK(close(both[i], i < 3 ? (only_a[i] + only_b[i]) / 2 : only_a[i]));
      }
    }
  }

  TEST_CASE("untrained, attention reaches the first source position; the plain model hardly does") {
    // The last output of a 12-symbol reverse needs x_1. Through the recurrence its gradient
    // shrinks step by step; attention gives every position a path of one step.
    ReverseTask task(10, 12, 12);
    Generator data(4);
    Batch batch = sample_batch(task, data, 8);
    real ratio[2];
    int k = 0;
    for (const char* model : {"plain", "additive"}) {
      ModelConfig c = tiny(model);
      c.src_vocab = c.tgt_vocab = 13;
      c.embed = 16;
      c.hidden = 32;
      c.max_src_len = 16;
      Generator gen(1);
      Seq2Seq m(c, gen);
      std::vector<real> n = encoder_gradient_norms(m, batch, 11);
      ratio[k++] = n[0] / n[11];  // first position against the last
    }
    CHECK(ratio[0] < 1e-2);
    CHECK(ratio[1] > 0.5);
  }

  TEST_CASE("encoder_gradient_norms: an output step outside the targets is an error naming it") {
    Generator gen(1);
    Seq2Seq m(tiny("additive"), gen);
    Batch batch = make_batch({reversed({3, 4, 5}), reversed({4, 5})});
    CHECK_THROWS_WITH_AS(encoder_gradient_norms(m, batch, 3), doctest::Contains("output step 3 is outside [0, 3)"),
                         heed::Error);
    CHECK_THROWS_WITH_AS(encoder_gradient_norms(m, batch, -1), doctest::Contains("output step -1"), heed::Error);
  }

  TEST_CASE("a model trained on another thread: the same losses and weights, bit for bit") {
    ReverseTask task(10, 3, 6);
    TrainOptions opt;
    opt.steps = 5;
    opt.batch = 4;
    auto run = [&](std::vector<real>& losses, Tensor& weight) {
      ModelConfig c = tiny("additive");
      c.src_vocab = c.tgt_vocab = 13;
      Generator gen(7);
      Seq2Seq model(c, gen);
      losses = train(model, task, opt).losses;
      weight = model.named_parameters().begin()->second.value();
    };
    std::vector<real> here, there;
    Tensor w_here, w_there;
    run(here, w_here);
    std::thread other([&] { run(there, w_there); });
    other.join();
    REQUIRE(here.size() == 5);
    CHECK(here == there);
    CHECK(w_here.to_vector() == w_there.to_vector());
  }
}

TEST_SUITE("ch10_long_sequences") {
  // The chapter's three trainings take minutes: make check-chapters compares their output; this
  // checks the code the chapter quotes.
  TEST_CASE("chapter 10 quotes the code it compiles") { check_chapter("tutorials/10_long_sequences"); }
}
