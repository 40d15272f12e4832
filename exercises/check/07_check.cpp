// Chapter 07's checks: additive_scores against the library's AdditiveScore (same weights) with
// batches of 2 and 1, gradient-checked in every input and weight, then trained: the chapter's
// model with your score must learn reverse 5-8 to exact >= 0.9 in 500 steps (a few seconds).
// masked_softmax_rows against the library's masked_softmax: masked positions exactly 0, a row
// with no real position all 0, scores of 1000, a row alone equal to the same row padded, and a
// gradient check. context_vector against the library's weighted_sum, and a gradient check.
#include "exercises/07_additive_attention/exercises.h"
#include <array>
#include <cmath>

#include "exercises/check/07_check.h"
#include "exercises/check/trainer.h"
#include "nn/attention.h"

namespace heed::check {

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
const ForbiddenCalls kForbidden07 = {
    {"additive_scores", {"heed::AdditiveScore", "heed::additive_score"}},
    {"masked_softmax_rows", {"heed::masked_softmax", "heed::softmax(heed::Var const&, long, heed::Tensor const&)", "heed::softmax(heed::Tensor const&, long, heed::Tensor const&)", "heed::attend"}},
    {"context_vector", {"heed::weighted_sum", "heed::attend"}},
};

void expect_learns_reverse(Var (*additive_scores)(const Var&, const Var&, const Var&, const Var&, const Var&)) {
  // Trained inside the chapter's model: Bahdanau's attention must learn to reverse.
  TrainSetup setup;
  setup.steps = 500;
  Generator wgen(seed(702));
  const int64_t Hm = setup.hidden;
  const real bound = 1 / std::sqrt(static_cast<real>(Hm));
  Var W1(Tensor::uniform({Hm, Hm}, -bound, bound, wgen), true), W2(Tensor::uniform({Hm, Hm}, -bound, bound, wgen), true);
  Var v(Tensor::uniform({Hm}, -bound, bound, wgen), true);
  real exact = train_reverse([&](const Var& hh, const Var& ss) { return additive_scores(hh, ss, W1, W2, v); }, {W1, W2, v},
                             setup);
  if (exact < 0.9)
    wrong("trained with your additive_scores on reverse 5-8 (E 16, H 32, 500 steps of 32), greedy decoding got " +
          std::to_string(exact) + " of 200 fresh sources exactly right; >= 0.9 is needed (a correct score reaches 0.99)");
}

std::vector<Exercise> exercises_07(const Impl07& impl) {
  return {
      {"additive_scores",
       [impl] {
         Generator gen(seed(701));
         const int64_t H = 3, Hq = 2, A = 5;
         AdditiveScore ref(Hq, H, A, gen);
         const Tensor v = reshape(ref.v.weight.value(), {A});  // v (A): the Linear(A, 1)'s weight row
         for (auto [B, S] : {std::pair<int64_t, int64_t>{2, 4}, {1, 1}}) {
           Tensor h = random({B, S, H}, gen, -2, 2), s = random({B, Hq}, gen, -2, 2);
           const std::string in = describe("h", h) + "\n  " + describe("s", s) +
                                  "\n  (W1 (5, 3), W2 (5, 2), v (5): an AdditiveScore of seed " + std::to_string(seed(701)) + ")";
           Var got = impl.additive_scores(Var(h), Var(s), ref.W1.weight, ref.W2.weight, Var(v));
           expect_close(got.value(), ref.score(Var(s), ref.prepare(Var(h))).value(), "additive_scores", in, 1e-10, 1e-12);
         }
         Tensor h = random({2, 3, H}, gen), s = random({2, Hq}, gen);
         expect_gradcheck("additive_scores",
                          [&](const std::vector<Var>& v) { return impl.additive_scores(v[0], v[1], v[2], v[3], v[4]); },
                          {h, s, ref.W1.weight.value(), ref.W2.weight.value(), v},
                          "inputs 0..4: h (2, 3, 3), s (2, 2), W1, W2, v");
         expect_learns_reverse(impl.additive_scores);
       }},
      {"masked_softmax_rows",
       [impl] {
         Generator gen(seed(703));
         Tensor scores = random({4, 4}, gen, -3, 3);
         Tensor mask({4, 4}, {1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1});
         Tensor big({2, 4}, {1000, 999, -1000, 5, -1000, -999, -1002, 0});
         Tensor big_mask({2, 4}, {1, 1, 0, 1, 1, 1, 1, 0});
         for (auto [x, m] : {std::pair<Tensor, Tensor>{scores, mask}, {big, big_mask}}) {
           const std::string in = describe("scores", x) + "\n  " + describe("mask", m);
           const Tensor got = impl.masked_softmax_rows(Var(x), m).value();
           expect_shape(got, m.shape(), "masked_softmax_rows", in);
           // The masked positions first, each exactly 0, then the real ones against the library's:
           // each mismatch is named for what it is.
           const int64_t S = m.shape()[1];
           for (int64_t i = 0; i < m.numel(); ++i)
             if (m[i] == 0 && !(got[i] == 0))
               wrong("masked_softmax_rows: the weight at masked position [" + std::to_string(i / S) + ", " +
                     std::to_string(i % S) + "] is " + std::to_string(got[i]) +
                     "; a masked weight must be exactly 0 (and a row with no real position all 0s)\n  " + in);
           expect_close(got, masked_softmax(Var(x), m).value(),
                        "masked_softmax_rows (the weights of the real positions: a softmax over them alone)", in, 1e-10, 0);
         }
         // Row 0 alone, without its padded position, gives the same weights.
         Tensor alone = slice(slice(scores, 0, 0, 1), 1, 0, 3);
         Tensor padded = slice(impl.masked_softmax_rows(Var(scores), mask).value(), 0, 0, 1);
         expect_close(slice(padded, 1, 0, 3), impl.masked_softmax_rows(Var(alone), Tensor::ones({1, 3})).value(),
                      "row 0 padded against row 0 alone", describe("scores", scores) + "\n  " + describe("mask", mask),
                      1e-12, 1e-15);
         expect_gradcheck("masked_softmax_rows", [&](const std::vector<Var>& v) { return impl.masked_softmax_rows(v[0], mask); },
                          {scores}, describe("scores", scores) + "\n  " + describe("mask", mask));
       }},
      {"context_vector",
       [impl] {
         Generator gen(seed(704));
         for (auto [B, S, D] : {std::array<int64_t, 3>{2, 3, 3}, {2, 4, 2}, {1, 1, 3}}) {
           Tensor w = softmax(random({B, S}, gen, -2, 2), 1), values = random({B, S, D}, gen);
           const std::string in = describe("weights", w) + "\n  " + describe("values", values);
           expect_close(impl.context_vector(Var(w), Var(values)).value(), weighted_sum(Var(w), Var(values)).value(),
                        "context_vector", in, 1e-12, 1e-14);
           expect_gradcheck("context_vector", [&](const std::vector<Var>& v) { return impl.context_vector(v[0], v[1]); },
                            {w, values}, in);
         }
       }},
  };
}

static Register reg({"07", "exercises/07_additive_attention", "student",
                     [] { return exercises_07(HEED_IMPL_07(heed::student)); }, kForbidden07});

}  // namespace heed::check
