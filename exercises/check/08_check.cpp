// Chapter 08's checks: general_scores and scaled_dot_scores against the library's GeneralScore
// and DotScore(scaled) (nn/attention.h) on square and rectangular sizes with batches of 2 and 1,
// and gradient checks; general_scores also trained inside the chapter-07 model (reverse 5-8,
// exact >= 0.9); attentional_state against tanh(linear([c; s])) and a gradient check;
// feeding_step against the same step built from the library's GRUCell, GeneralScore and attend,
// on a padded batch and a batch of 1, then a gradient check through the fed state. The scores also
// on a larger batch drawn per seed (sources past 12 positions, sizes past 32), held to the
// library's values and gradients.
#include <array>
#include <cmath>

#include "exercises/08_multiplicative_attention/exercises.h"
#include "exercises/check/08_check.h"
#include "exercises/check/trainer.h"
#include "nn/attention.h"

namespace heed::check {

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
const ForbiddenCalls kForbidden08 = {
    {"general_scores", {"heed::GeneralScore"}},
    {"scaled_dot_scores", {"heed::DotScore"}},
    {"attentional_state", {"heed::Seq2Seq"}},
    {"feeding_step", {"heed::Seq2Seq", "heed::attend"}},
};

std::vector<Exercise> exercises_08(const Impl08& impl) {
  return {
      {"general_scores",
       [impl] {
         Generator gen(seed(801));
         for (auto [B, S, Dq, Dk] : {std::array<int64_t, 4>{2, 4, 3, 3}, {2, 3, 2, 4}, {1, 1, 3, 2}}) {
           GeneralScore ref(Dq, Dk, gen);
           Tensor s = random({B, Dq}, gen, -2, 2), h = random({B, S, Dk}, gen, -2, 2);
           const std::string in = describe("s", s) + "\n  " + describe("h", h) + "\n  " + describe("W", ref.W.weight.value());
           expect_close(impl.general_scores(Var(s), Var(h), ref.W.weight).value(), ref.score(Var(s), ref.prepare(Var(h))).value(),
                        "general_scores", in, 1e-10, 1e-12);
           expect_gradcheck("general_scores", [&](const std::vector<Var>& v) { return impl.general_scores(v[0], v[1], v[2]); },
                            {s, h, ref.W.weight.value()}, in);
         }
         // A larger batch, drawn per seed (check.h, odd_size): sources past 12 positions, sizes past
         // 32, values and gradients against the library's GeneralScore.
         {
           const int64_t B = odd_size(gen, 3, 9), S = odd_size(gen, 13, 49), Dq = odd_size(gen, 33, 71),
                         Dk = odd_size(gen, 33, 71);
           Tensor s = random({B, Dq}, gen, -2, 2), h = random({B, S, Dk}, gen, -2, 2), W = random({Dq, Dk}, gen, -0.3, 0.3);
           Generator unused(0);
           GeneralScore ref(Dq, Dk, unused);
           expect_same_as("general_scores", [&](const std::vector<Var>& v) { return impl.general_scores(v[0], v[1], v[2]); },
                          [&](const std::vector<Var>& v) {
                            ref.W.weight = v[2];
                            return ref.score(v[0], ref.prepare(v[1]));
                          },
                          {s, h, W}, describe("s", s) + ", " + describe("h", h) + ", W random", gen);
         }
         TrainSetup setup;
         setup.steps = 500;
         Generator wgen(seed(802));
         const real bound = 1 / std::sqrt(static_cast<real>(setup.hidden));
         Var W(Tensor::uniform({setup.hidden, setup.hidden}, -bound, bound, wgen), true);
         real exact = train_reverse([&](const Var& hh, const Var& ss) { return impl.general_scores(ss, hh, W); }, {W}, setup);
         if (exact < 0.9)
           wrong("trained with your general_scores on reverse 5-8 (E 16, H 32, 500 steps of 32), greedy decoding got " +
                 std::to_string(exact) + " of 200 fresh sources exactly right; >= 0.9 is needed");
       }},
      {"scaled_dot_scores",
       [impl] {
         Generator gen(seed(803));
         DotScore ref(true);
         for (auto [B, S, D] : {std::array<int64_t, 3>{2, 4, 4}, {2, 3, 9}, {1, 1, 2}}) {
           Tensor s = random({B, D}, gen, -2, 2), h = random({B, S, D}, gen, -2, 2);
           const std::string in = describe("s", s) + "\n  " + describe("h", h);
           expect_close(impl.scaled_dot_scores(Var(s), Var(h)).value(), ref.score(Var(s), Var(h)).value(), "scaled_dot_scores",
                        in, 1e-10, 1e-12);
           expect_gradcheck("scaled_dot_scores", [&](const std::vector<Var>& v) { return impl.scaled_dot_scores(v[0], v[1]); },
                            {s, h}, in);
         }
         // A larger batch, drawn per seed (check.h, odd_size): sources past 12 positions, D past 32.
         const int64_t B = odd_size(gen, 3, 9), S = odd_size(gen, 13, 49), D = odd_size(gen, 33, 99);
         Tensor s = random({B, D}, gen, -2, 2), h = random({B, S, D}, gen, -2, 2);
         expect_same_as("scaled_dot_scores", [&](const std::vector<Var>& v) { return impl.scaled_dot_scores(v[0], v[1]); },
                        [&](const std::vector<Var>& v) { return ref.score(v[0], v[1]); }, {s, h},
                        describe("s", s) + ", " + describe("h", h), gen);
       }},
      {"attentional_state",
       [impl] {
         Generator gen(seed(804));
         for (int64_t B : {2, 1}) {
           const int64_t H = 3;
           Tensor c = random({B, H}, gen, -2, 2), s = random({B, H}, gen, -2, 2), W = random({H, 2 * H}, gen);
           const std::string in = describe("c", c) + "\n  " + describe("s", s) + "\n  " + describe("W_c", W);
           Tensor expected = tanh(linear(concat({Var(c), Var(s)}, 1), Var(W), Var()).value());
           expect_close(impl.attentional_state(Var(c), Var(s), Var(W)).value(), expected, "attentional_state", in, 1e-10, 1e-12);
           expect_gradcheck("attentional_state",
                            [&](const std::vector<Var>& v) { return impl.attentional_state(v[0], v[1], v[2]); }, {c, s, W}, in);
         }
       }},
      {"feeding_step",
       [impl] {
         Generator gen(seed(805));
         const int64_t E = 2, H = 3, S = 4;
         GRUCell cell(E + H, H, gen);
         GeneralScore score(H, H, gen);
         Var W_c(random({H, 2 * H}, gen));
         for (int64_t B : {2, 1}) {
           Tensor y = random({B, E}, gen, -2, 2), s_prev = random({B, H}, gen), feed = random({B, H}, gen),
                  h = random({B, S, H}, gen);
           Tensor mask = Tensor::ones({B, S});
           if (B == 2) mask[S + 2] = mask[S + 3] = 0;  // row 1 has 2 real positions
           const std::string in = describe("y", y) + "\n  " + describe("s_prev", s_prev) + "\n  " + describe("feed", feed) +
                                  "\n  " + describe("mask", mask) + "\n  (h random (B, 4, 3); cell, W and W_c of seed " + std::to_string(seed(805)) + ")";
           Var s_ref = cell.step(concat({Var(y), Var(feed)}, 1), {Var(s_prev), Var()}).h;
           Attention a = attend(score.score(s_ref, score.prepare(Var(h))), Var(h), mask);
           Var att_ref = tanh(linear(concat({a.context, s_ref}, 1), W_c, Var()));
           auto [s_got, att_got] = impl.feeding_step(cell, Var(y), Var(s_prev), Var(feed), Var(h), mask, score.W.weight, W_c);
           expect_close(s_got.value(), s_ref.value(), "feeding_step's s_t", in, 1e-10, 1e-12);
           expect_close(att_got.value(), att_ref.value(), "feeding_step's h~_t", in, 1e-10, 1e-12);
         }
         Tensor y = random({2, E}, gen), s_prev = random({2, H}, gen), feed = random({2, H}, gen), h = random({2, S, H}, gen);
         Tensor mask({2, S}, {1, 1, 1, 1, 1, 1, 1, 0});
         expect_gradcheck("feeding_step (the loss reads s_t and h~_t)",
                          [&](const std::vector<Var>& v) {
                            auto [s, att] = impl.feeding_step(cell, v[0], v[1], v[2], v[3], mask, score.W.weight, W_c);
                            return concat({s, att}, 1);
                          },
                          {y, s_prev, feed, h}, "inputs 0..3: y, s_prev, feed, h");
       }},
  };
}

static Register reg({"08", "exercises/08_multiplicative_attention", "student",
                     [] { return exercises_08(HEED_IMPL_08(heed::student)); }, kForbidden08});

}  // namespace heed::check
