// Chapter 05: what the encoder's `last` state is, as nn/encoder.h promises it: the forward
// state at each sequence's last real position and the backward state at position 0.
#include <doctest/doctest.h>

#include "autograd/functions.h"
#include "nn/encoder.h"
#include "tensor/random.h"

using namespace heed;

TEST_SUITE("ch05_recurrent") {
  TEST_CASE("last: forward state at position length-1, backward state at position 0, with padding") {
    Generator gen(17);
    for (const char* kind : {"rnn", "gru", "lstm"})
      for (bool bi : {false, true}) {
        CAPTURE(kind);
        CAPTURE(bi);
        const int64_t B = 3, S = 6, I = 2, H = 4, D = bi ? 2 * H : H;
        RecurrentEncoder enc(kind, I, H, bi, gen);
        const std::vector<int64_t> lengths = {6, 2, 4};
        EncoderOutput out = enc.forward(Var(Tensor::normal({B, S, I}, 0, 1, gen)), lengths);
        REQUIRE(out.last.h.shape() == Shape{B, D});
        const Tensor& states = out.states.value();  // (B, S, D)
        for (int64_t b = 0; b < B; ++b)
          for (int64_t k = 0; k < H; ++k) {
            CHECK(out.last.h.value()[b * D + k] == states[(b * S + lengths[b] - 1) * D + k]);
            if (bi) CHECK(out.last.h.value()[b * D + H + k] == states[(b * S + 0) * D + H + k]);
          }
        CHECK(out.last.c.defined() == (std::string(kind) == "lstm"));
      }
  }
}
