// Chapter 06: the plain encoder-decoder, its training loop, decoding and metrics.
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "models/seq2seq.h"
#include "models/train.h"
#include "nn/checkpoint.h"
#include "nn/loss.h"

using namespace heed;

namespace {

ModelConfig tiny(const std::string& model, const std::string& cell = "gru") {
  ModelConfig c;
  c.model = model;
  c.cell = cell;
  c.src_vocab = c.tgt_vocab = 7;
  c.embed = 3;
  c.hidden = 4;
  c.max_src_len = 6;
  return c;
}

// Two sequences of different lengths, so the batch has padding in source and target.
Batch two_sequences() { return make_batch({{{3, 4, 5, 6}, {6, 5, 4, 3}}, {{5, 3}, {3, 5}}}); }

}  // namespace

TEST_SUITE("ch06_seq2seq") {
  TEST_CASE("gradcheck: the whole sequence loss of a tiny plain seq2seq w.r.t. every parameter") {
    for (const char* cell : {"gru", "lstm", "rnn"}) {
      Generator gen(1);
      Seq2Seq model(tiny("plain", cell), gen);
      Batch batch = two_sequences();
      GradcheckReport r = gradcheck([&] { return model.loss(batch); }, model.parameters(),
                                    {.name = std::string("plain seq2seq loss, ") + cell});
      INFO(r.str());
      CHECK(r.ok);
    }
  }

  TEST_CASE("padding: a sequence's loss and gradients are the same alone or padded in a batch") {
    Generator gen(2);
    Seq2Seq model(tiny("plain"), gen);
    Example ex{{5, 3, 6}, {6, 3, 5}};
    Batch alone = make_batch({ex});
    Var la = model.loss(alone);
    la.backward();
    std::vector<Tensor> ga;
    for (Var& p : model.parameters()) ga.push_back(p.grad());
    model.zero_grad();
    // The same sequence padded next to a longer one: compare its own rows of the logits, and
    // the gradient of the loss restricted to its tokens.
    Batch both = make_batch({{{3, 4, 5, 6, 3}, {3, 6, 5, 4, 3}}, ex});
    Var logits = model.forward(both);  // (2, T, V)
    Var mine = slice(slice(logits, 0, 1, 2), 1, 0, alone.tgt_len);
    CHECK(equal(mine.value(), model.forward(alone).value()));
    std::vector<int64_t> targets(both.tgt_out.begin() + both.tgt_len, both.tgt_out.begin() + both.tgt_len + alone.tgt_len);
    Var lb = cross_entropy(reshape(mine, {-1, 7}), targets, Vocab::kPad);
    lb.backward();
    CHECK(lb.item() == la.item());
    auto params = model.parameters();
    for (size_t i = 0; i < params.size(); ++i) CHECK(equal(params[i].grad(), ga[i]));
  }
}
