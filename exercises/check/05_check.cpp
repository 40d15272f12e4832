// Chapter 05's checks: each step against the library's cell (nn/rnn_cell.h, the same weights) on
// random inputs with batches of 3 and 1, then gradient-checked with respect to every input and
// weight; last_state against the library's encoder (nn/encoder.h) on a padded batch, against each
// sequence run alone without padding, and gradient-checked with respect to the inputs. Each also on
// larger inputs drawn per seed (H past 32, sources up to 41), held to the library's values and gradients.
#include "exercises/05_recurrent_cells/exercises.h"
#include "exercises/check/05_check.h"
#include "nn/encoder.h"
#include "nn/rnn_cell.h"

#include <cmath>

namespace heed::check {
namespace {

// A larger cell step, drawn per seed (check.h, odd_size): a batch of B, x (B, I), h (B, H), weights
// for `gates` gates (3 for a GRU, 4 for an LSTM) drawn as a cell of H units draws them.
struct Larger {
  Larger(Generator& gen, int64_t gates) {
    const int64_t B = odd_size(gen, 3, 9), I = odd_size(gen, 17, 63), H = odd_size(gen, 33, 99);
    const real bound = 1 / std::sqrt(static_cast<real>(H));
    x = random({B, I}, gen, -2, 2);
    h = random({B, H}, gen);
    W_ih = random({gates * H, I}, gen, -bound, bound);
    W_hh = random({gates * H, H}, gen, -bound, bound);
    b_ih = random({gates * H}, gen, -bound, bound);
    b_hh = random({gates * H}, gen, -bound, bound);
    text = describe("x", x) + ", " + describe("h", h) + ", weights random";
  }
  Tensor x, h, W_ih, W_hh, b_ih, b_hh;
  std::string text;
};

}  // namespace

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
const ForbiddenCalls kForbidden05 = {
    {"gru_step", {"heed::GRUCell", "heed::Cell", "heed::gru_step"}},
    {"lstm_step", {"heed::LSTMCell", "heed::Cell", "heed::lstm_step"}},
    {"last_state", {"heed::RecurrentEncoder", "heed::Seq2Seq"}},
};

std::vector<Exercise> exercises_05(const Impl05& impl) {
  return {
      {"gru_step",
       [impl] {
         Generator gen(seed(501));
         const int64_t I = 2, H = 3;
         GRUCell cell(I, H, gen);
         for (int64_t B : {3, 1}) {
           Tensor x = random({B, I}, gen, -2, 2), h = random({B, H}, gen);
           const std::string in = describe("x", x) + "\n  " + describe("h", h) + "\n  (weights: a GRUCell(2, 3) of seed " + std::to_string(seed(501)) + ")";
           Var got = impl.gru_step(Var(x), Var(h), cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh);
           expect_close(got.value(), cell.step(Var(x), {Var(h), Var()}).h.value(), "gru_step's h'", in, 1e-10, 1e-12);
         }
         Tensor x = random({2, I}, gen), h = random({2, H}, gen);
         expect_gradcheck("gru_step",
                          [&](const std::vector<Var>& v) { return impl.gru_step(v[0], v[1], v[2], v[3], v[4], v[5]); },
                          {x, h, cell.weight_ih.value(), cell.weight_hh.value(), cell.bias_ih.value(), cell.bias_hh.value()},
                          "inputs 0..5: x, h, W_ih, W_hh, b_ih, b_hh");
         // A larger step, drawn per seed (check.h, odd_size): H past 32, values and gradients
         // against the library's step (heed's gru_step on the projected input).
         const Larger l(gen, 3);
         expect_same_as("gru_step",
                        [&](const std::vector<Var>& v) { return impl.gru_step(v[0], v[1], v[2], v[3], v[4], v[5]); },
                        [](const std::vector<Var>& v) { return gru_step(linear(v[0], v[2], v[4]), v[1], v[3], v[5]); },
                        {l.x, l.h, l.W_ih, l.W_hh, l.b_ih, l.b_hh}, l.text, gen);
       }},
      {"lstm_step",
       [impl] {
         Generator gen(seed(502));
         const int64_t I = 2, H = 3;
         LSTMCell cell(I, H, gen);
         for (int64_t B : {3, 1}) {
           Tensor x = random({B, I}, gen, -2, 2), h = random({B, H}, gen), c = random({B, H}, gen);
           const std::string in = describe("x", x) + "\n  " + describe("h", h) + "\n  " + describe("c", c) +
                                  "\n  (weights: an LSTMCell(2, 3) of seed " + std::to_string(seed(502)) + ")";
           auto [h2, c2] = impl.lstm_step(Var(x), Var(h), Var(c), cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh);
           State ref = cell.step(Var(x), {Var(h), Var(c)});
           expect_close(c2.value(), ref.c.value(), "lstm_step's c'", in, 1e-10, 1e-12);
           expect_close(h2.value(), ref.h.value(), "lstm_step's h'", in, 1e-10, 1e-12);
         }
         Tensor x = random({2, I}, gen), h = random({2, H}, gen), c = random({2, H}, gen);
         expect_gradcheck("lstm_step (the loss reads h' and c')",
                          [&](const std::vector<Var>& v) {
                            auto [h2, c2] = impl.lstm_step(v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
                            return concat({h2, c2}, 1);
                          },
                          {x, h, c, cell.weight_ih.value(), cell.weight_hh.value(), cell.bias_ih.value(), cell.bias_hh.value()},
                          "inputs 0..6: x, h, c, W_ih, W_hh, b_ih, b_hh");
         // A larger step, drawn per seed: H past 32, against heed's lstm_step ([h', c'] side by side).
         const Larger l(gen, 4);
         const Tensor c0 = random(l.h.shape(), gen);
         expect_same_as("lstm_step (h' and c' side by side)",
                        [&](const std::vector<Var>& v) {
                          auto [h2, c2] = impl.lstm_step(v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
                          return concat({h2, c2}, 1);
                        },
                        [](const std::vector<Var>& v) { return lstm_step(linear(v[0], v[3], v[5]), v[1], v[2], v[4], v[6]); },
                        {l.x, l.h, c0, l.W_ih, l.W_hh, l.b_ih, l.b_hh}, l.text + ", c random", gen);
       }},
      {"last_state",
       [impl] {
         Generator gen(seed(503));
         const int64_t I = 2, H = 3;
         RecurrentEncoder enc("gru", I, H, false, gen);
         const std::vector<int64_t> lengths = {4, 2, 1};
         const int64_t B = 3, S = 4;
         Tensor x = random({B, S, I}, gen, -2, 2);
         const std::string in = describe("x", x) + "\n  lengths [4, 2, 1] (the rest of each row is padding)";
         Var got = impl.last_state(enc.cell(), Var(x), lengths);
         expect_close(got.value(), enc.forward(Var(x), lengths).last.h.value(),
                      "last_state (against the library's encoder)", in, 1e-10, 1e-12);
         // Each row alone, unpadded, must give the same state: padding changes nothing.
         for (int64_t b = 0; b < B; ++b) {
           Tensor alone = slice(slice(x, 0, b, b + 1), 1, 0, lengths[b]);
           Var one = impl.last_state(enc.cell(), Var(alone), {lengths[b]});
           expect_close(slice(got.value(), 0, b, b + 1), one.value(),
                        "row " + std::to_string(b) + " of the padded batch against that sequence alone", in, 1e-12, 1e-14);
         }
         expect_gradcheck("last_state", [&](const std::vector<Var>& v) { return impl.last_state(enc.cell(), v[0], lengths); },
                          {x}, in);
         // A larger batch, drawn per seed: sources up to 41 long, H past 32, against the library's encoder.
         const int64_t Bl = odd_size(gen, 3, 9), Sl = odd_size(gen, 13, 41), Il = odd_size(gen, 5, 17), Hl = odd_size(gen, 33, 65);
         RecurrentEncoder large("gru", Il, Hl, false, gen);
         std::vector<int64_t> lens(static_cast<size_t>(Bl));
         for (int64_t& n : lens) n = gen.randint(1, Sl);
         lens[0] = Sl;
         Tensor xl = random({Bl, Sl, Il}, gen, -2, 2);
         expect_same_as("last_state (against the library's encoder)",
                        [&](const std::vector<Var>& v) { return impl.last_state(large.cell(), v[0], lens); },
                        [&](const std::vector<Var>& v) { return large.forward(v[0], lens).last.h; }, {xl},
                        describe("x", xl) + ", random lengths, a GRU encoder of " + std::to_string(Hl) + " units", gen);
       }},
  };
}

static Register reg({"05", "exercises/05_recurrent_cells", "student",
                     [] { return exercises_05(HEED_IMPL_05(heed::student)); }, kForbidden05});

}  // namespace heed::check
