// Chapter 06: the decoder's pieces (start, step, logits) agree with the whole-sequence paths
// (forward, greedy) that training and evaluation use, and the plain decoder starts from the
// encoder's state at each sequence's last real position, as docs/models.md pins it.
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/functions.h"
#include "models/seq2seq.h"

using namespace heed;

namespace {

ModelConfig small(const std::string& model, const std::string& cell) {
  ModelConfig c;
  c.model = model;
  c.cell = cell;
  c.src_vocab = c.tgt_vocab = 9;
  c.embed = 4;
  c.hidden = 5;
  c.max_src_len = 8;
  return c;
}

// Three sequences of lengths 5, 2 and 4: padding in source and target.
Batch three_sequences() {
  return make_batch({{{3, 4, 5, 6, 7}, {7, 6, 5, 4, 3}}, {{8, 3}, {3, 8}}, {{4, 4, 6, 5}, {5, 6, 4, 4}}});
}

}  // namespace

TEST_SUITE("ch06_seq2seq") {
  TEST_CASE("plain: the context vector is the encoder state at each sequence's last real position") {
    for (const char* cell : {"gru", "lstm", "rnn"}) {
      CAPTURE(cell);
      Generator gen(21);
      Seq2Seq model(small("plain", cell), gen);
      Batch batch = three_sequences();
      DecoderState st = model.start(batch);
      const int64_t H = 5, S = batch.src_len;
      REQUIRE(st.s.h.shape() == Shape{3, H});
      REQUIRE(st.values.shape() == Shape{3, S, H});
      for (int64_t b = 0; b < 3; ++b)
        for (int64_t k = 0; k < H; ++k)
          CHECK(st.s.h.value()[b * H + k] == st.values.value()[(b * S + batch.lengths[b] - 1) * H + k]);
      CHECK(st.s.c.defined() == (std::string(cell) == "lstm"));
    }
  }

  TEST_CASE("step by step with tgt_in gives forward()'s logits; with its own argmax, greedy()'s tokens") {
    for (const char* model_name : {"plain", "additive", "general"}) {
      CAPTURE(model_name);
      Generator gen(22);
      Seq2Seq model(small(model_name, "gru"), gen);
      Batch batch = three_sequences();
      const int64_t B = batch.batch, T = batch.tgt_len, V = 9;
      NoGradGuard no_grad;
      Tensor whole = model.forward(batch).value();  // (B, T, V)

      DecoderState st = model.start(batch);  // teacher forced, one step at a time
      std::vector<int64_t> prev(B);
      for (int64_t t = 0; t < T; ++t) {
        for (int64_t b = 0; b < B; ++b) prev[b] = batch.tgt_in[b * T + t];
        Tensor logits = model.logits(model.step(prev, st).out).value();  // (B, V)
        for (int64_t b = 0; b < B; ++b)
          for (int64_t v = 0; v < V; ++v) {
            INFO("step " << t << ", sequence " << b << ", token " << v);
            CHECK(std::fabs(logits[b * V + v] - whole[(b * T + t) * V + v]) <= 1e-12);
          }
      }

      DecoderState free_run = model.start(batch);  // greedy, one step at a time
      std::vector<std::vector<int64_t>> mine(B);
      prev.assign(B, Vocab::kBos);
      for (int64_t t = 0; t < T; ++t) {
        Tensor best = argmax(model.logits(model.step(prev, free_run).out).value(), 1);  // (B)
        for (int64_t b = 0; b < B; ++b) mine[b].push_back(prev[b] = static_cast<int64_t>(best[b]));
      }
      CHECK(mine == model.greedy(batch, T).tokens);
    }
  }
}
