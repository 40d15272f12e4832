// Chapter 07's checks: additive_scores against the library's AdditiveScore (same weights) with
// batches of 2 and 1, gradient-checked in every input and weight, then trained: the chapter's
// model with your score must learn reverse 5-8 to exact >= 0.9 in 500 steps (a few seconds).
// masked_softmax_rows against the library's masked_softmax: masked positions exactly 0, a row
// with no real position all 0, scores of 1000, a row alone equal to the same row padded, and a
// gradient check. context_vector against the library's weighted_sum, and a gradient check. Each
// also on a larger batch drawn per seed (sources past 12 positions, sizes past 32), held to the
// library's values and gradients.
#include "exercises/07_additive_attention/exercises.h"
#include <array>
#include <cmath>
#include <map>
#include <memory>

#include "exercises/check/07_check.h"
#include "exercises/check/trainer.h"
#include "models/seq2seq.h"
#include "models/train.h"
#include "nn/attention.h"

namespace heed::check {

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
const ForbiddenCalls kForbidden07 = {
    {"additive_scores", {"heed::AdditiveScore", "heed::additive_score"}},
    {"masked_softmax_rows", {"heed::masked_softmax", "heed::softmax(heed::Var const&, long, heed::Tensor const&)", "heed::softmax(heed::Tensor const&, long, heed::Tensor const&)", "heed::attend"}},
    {"context_vector", {"heed::weighted_sum", "heed::attend"}},
    // The capstone is built on the three functions above and heed's modules, not on heed's model,
    // its attention or its training.
    {"decoder_step", {"heed::Seq2Seq", "heed::Model", "heed::AdditiveScore", "heed::additive_score", "heed::attend",
                      "heed::masked_softmax", "heed::weighted_sum"}},
    {"batch_loss", {"heed::Seq2Seq", "heed::Model", "heed::attend", "heed::masked_softmax", "heed::weighted_sum"}},
    {"train_loop", {"heed::Seq2Seq", "heed::Model", "heed::Trainer", "heed::train(", "heed::scheduled_lr"}},
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

// ---- the capstone's checks (07.4-07.6): the student's model against heed's own, from the same weights
namespace {

// Chapter 07's model, heed's own (models/seq2seq.h) and the student's (course::AttentionModel),
// with the same weights: the student's are copied from heed's, name by name.
struct Twins {
  Twins(int64_t vocab, int64_t embed, int64_t hidden, uint64_t weights_seed) : gen(weights_seed) {
    ModelConfig c;
    c.model = "additive";
    c.cell = "gru";
    c.src_vocab = c.tgt_vocab = vocab;
    c.embed = embed;
    c.hidden = hidden;
    ref = std::make_unique<Seq2Seq>(c, gen);
    yours = std::make_unique<course::AttentionModel>(vocab, embed, hidden, gen);
    std::map<std::string, Var> mine;
    for (const auto& [name, p] : yours->named_parameters()) mine[name] = p;
    const auto theirs = ref->named_parameters();
    if (theirs.size() != mine.size()) throw std::logic_error("07 check: heed's model and AttentionModel differ in parameters");
    for (const auto& [their_name, p] : theirs) {
      std::string name = their_name;  // attention.v.weight -> attention_v
      if (name.rfind("attention.", 0) == 0) name = "attention_" + name.substr(10, name.size() - 10 - 7);
      auto it = mine.find(name);
      if (it == mine.end() || it->second.value().numel() != p.value().numel())
        throw std::logic_error("07 check: " + their_name + " has no twin in AttentionModel");
      it->second.value() = reshape(p.value(), it->second.shape());  // a copy: each model trains its own
    }
  }
  Generator gen;
  std::unique_ptr<Seq2Seq> ref;  // heed's own
  std::unique_ptr<course::AttentionModel> yours;
};

std::string list(const std::vector<real>& xs, size_t n) {
  std::string out;
  for (size_t i = 0; i < std::min(n, xs.size()); ++i) out += (i ? ", " : "") + std::to_string(xs[i]);
  return out;
}

}  // namespace

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
         // A larger batch, drawn per seed (check.h, odd_size): sources past 12 positions, sizes
         // past 32, values and gradients against heed's additive score.
         {
           const int64_t B = odd_size(gen, 3, 9), S = odd_size(gen, 13, 49), H = odd_size(gen, 33, 71),
                         Hq = odd_size(gen, 33, 71), A = odd_size(gen, 33, 71);
           Tensor h = random({B, S, H}, gen, -2, 2), s = random({B, Hq}, gen, -2, 2);
           Tensor W1 = random({A, H}, gen, -0.3, 0.3), W2 = random({A, Hq}, gen, -0.3, 0.3), v = random({A}, gen);
           expect_same_as("additive_scores",
                          [&](const std::vector<Var>& x) { return impl.additive_scores(x[0], x[1], x[2], x[3], x[4]); },
                          [](const std::vector<Var>& x) {
                            return additive_score(linear(x[0], x[2], Var()), linear(x[1], x[3], Var()), x[4]);
                          },
                          {h, s, W1, W2, v}, describe("h", h) + ", " + describe("s", s) + ", weights random", gen);
         }
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
         // A larger batch, drawn per seed (check.h, odd_size): sources up to 99 positions, each row
         // of a random length, values and gradients against the library's.
         const int64_t B = odd_size(gen, 3, 17), S = odd_size(gen, 13, 99);
         Tensor large = random({B, S}, gen, -3, 3), large_mask = Tensor::zeros({B, S});
         for (int64_t b = 0; b < B; ++b)
           for (int64_t t = 0, n = b == 0 ? S : gen.randint(1, S); t < n; ++t) large_mask[b * S + t] = 1;
         expect_same_as("masked_softmax_rows", [&](const std::vector<Var>& v) { return impl.masked_softmax_rows(v[0], large_mask); },
                        [&](const std::vector<Var>& v) { return masked_softmax(v[0], large_mask); }, {large},
                        describe("scores", large) + ", rows of random lengths", gen, 1e-10, 0);
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
         // A larger one, drawn per seed (check.h, odd_size), against the library's weighted_sum.
         const int64_t B = odd_size(gen, 3, 9), S = odd_size(gen, 13, 49), D = odd_size(gen, 33, 99);
         Tensor w = softmax(random({B, S}, gen, -2, 2), 1), values = random({B, S, D}, gen);
         expect_same_as("context_vector", [&](const std::vector<Var>& v) { return impl.context_vector(v[0], v[1]); },
                        [](const std::vector<Var>& v) { return weighted_sum(v[0], v[1]); }, {w, values},
                        describe("weights", w) + ", " + describe("values", values), gen, 1e-12, 1e-14);
       }},
      {"decoder_step",
       [impl] {
         // Two steps from the state heed's model starts decoding from, on a batch of 3 sources of
         // 3-6 symbols (one row padded): s_t and the logits against heed's own decoder step.
         Twins twins(13, 6, 8, seed(705));
         ReverseTask task(10, 3, 6);
         Generator data(seed(706));
         const Batch batch = sample_batch(task, data, 3);
         DecoderState st = twins.ref->start(batch);
         const Var h = st.values;
         Var s = st.s.h;
         const std::string in = "a batch of 3 reversals of lengths " + std::to_string(batch.lengths[0]) + ", " +
                                std::to_string(batch.lengths[1]) + ", " + std::to_string(batch.lengths[2]) +
                                " (E 6, H 8, V 13): the encoder states h (3, " + std::to_string(batch.src_len) +
                                ", 8) and s_0 from heed's encoder, the weights heed's model starts from";
         std::vector<int64_t> prev(3, Vocab::kBos);
         for (int step = 1; step <= 2; ++step) {
           const Var s_before = s;
           StepOutput o = twins.ref->step(prev, st);
           const Tensor expected = twins.ref->logits(o.out).value();
           const Tensor got = impl.decoder_step(*twins.yours, prev, s, h, st.mask).value();
           const std::string at = "decoder_step, step " + std::to_string(step);
           expect_shape(s.value(), st.s.h.shape(), at + ": the state s it leaves (s_t)", in);
           if (!allclose(s.value(), st.s.h.value(), 1e-10, 1e-12)) {
             // The usual slip: the cell reads the embedding alone, the context left out.
             const course::AttentionModel& m = *twins.yours;
             const Tensor no_context =
                 m.cell.step(concat({m.tgt_embed.forward(prev), Var(Tensor::zeros({3, 8}))}, 1), State{s_before, Var()}).h.value();
             if (allclose(s.value(), no_context, 1e-10, 1e-12))
               wrong(at + ": s_t is cell([y; 0], s_{t-1}): the context c_t was not fed to the cell; it reads [emb(prev); c_t]\n  " + in);
             expect_close(s.value(), st.s.h.value(),
                          at + ": s_t (s after the step: cell([emb(prev); c_t], s_{t-1}), c_t scored against s_{t-1})", in);
           }
           expect_close(got, expected, at + ": the logits out([s_t; c_t])", in, 1e-10, 1e-12);
           for (int64_t b = 0; b < 3; ++b) prev[b] = batch.tgt_out[b * batch.tgt_len + step - 1];
         }
       }},
      {"batch_loss",
       [impl] {
         // One batch's loss against heed's Model::loss, then the training loop's losses, step by
         // step, against heed's own training (models/train.h's Trainer) from the same weights on
         // the same batches; then the loop trains chapter 07's model to reverse.
         {
           Twins twins(13, 6, 8, seed(707));
           ReverseTask task(10, 3, 6);
           Generator data(seed(708));
           const Batch batch = sample_batch(task, data, 4);
           const real heed_loss = twins.ref->loss(batch).item(), got = impl.batch_loss(*twins.yours, batch).item();
           const std::string in = "a batch of 4 reversals of 3-6 symbols (E 6, H 8), the weights heed's model starts from";
           if (!(std::fabs(got - heed_loss) <= 1e-10)) {
             Var logits = reshape(twins.ref->forward(batch), {-1, 13});
             const real unshifted = cross_entropy(logits, batch.tgt_in, Vocab::kPad).item();
             if (std::fabs(got - unshifted) <= 1e-10)
               wrong("batch_loss: " + std::to_string(got) + " is the loss against tgt_in, heed's is " + std::to_string(heed_loss) +
                     ": the targets are tgt_out (y1 .. yL EOS), the inputs shifted by one; tgt_in (BOS y1 .. yL) is what the "
                     "decoder reads\n  " + in);
             wrong("batch_loss: " + std::to_string(got) + ", heed's loss of the same batch with the same weights is " +
                   std::to_string(heed_loss) + " (they must agree to 1e-10): the decoder reads tgt_in, the loss scores "
                   "tgt_out, both flattened row b * T + t\n  " + in);
           }
         }
       }},
      {"train_loop",
       [impl] {
         Twins twins(13, 8, 16, seed(709));
         ReverseTask task(10, 3, 6);
         TrainOptions opt;
         opt.steps = 12;
         opt.batch = 8;
         opt.lr = 3e-3;
         opt.seed = seed(710);
         const TrainResult heeds = train(*twins.ref, task, opt);
         Adam adam(twins.yours->parameters(), opt.lr);
         Generator data(opt.seed);
         const std::vector<real> got = impl.train_loop(*twins.yours, adam, task, data, opt.steps, opt.batch, opt.lr);
         const std::string in = std::to_string(opt.steps) + " steps of 8 reversals of 3-6 symbols (E 8, H 16, lr 3e-3) from "
                                "the weights heed's model starts from, the batches of Generator(" + std::to_string(opt.seed) + ")";
         if (got.size() != heeds.losses.size())
           wrong("train_loop returned " + std::to_string(got.size()) + " losses for " + std::to_string(opt.steps) + " steps\n  " + in);
         for (size_t t = 0; t < got.size(); ++t)
           if (!(std::fabs(got[t] - heeds.losses[t]) <= 1e-9))
             wrong("train_loop: the loss of step " + std::to_string(t + 1) + " is " + std::to_string(got[t]) + ", heed's training has " +
                   std::to_string(heeds.losses[t]) + " (to 1e-9)" +
                   (t == 0 ? std::string(": the first batch, before any update: check batch_loss, and that the batches come from "
                                         "sample_batch(task, data, batch) in order")
                           : std::string(": the updates differ. In order, each step: the loss, adam.zero_grad() (else the gradients "
                                         "add up over the steps), loss.backward(), clip_grad_norm(m.parameters(), 1), "
                                         "adam.set_lr(lr (1 - t / steps)), adam.step()")) +
                   "\n  yours: " + list(got, 6) + " ...\n  heed's: " + list(heeds.losses, 6) + " ...\n  " + in);
         // Then it learns: chapter 07's model trained by your loop reverses sequences it never saw.
         Twins model(13, 16, 32, seed(711));
         Adam adam2(model.yours->parameters(), 3e-3);
         Generator data2(seed(712));
         impl.train_loop(*model.yours, adam2, task, data2, 400, 16, 3e-3);
         NoGradGuard no_grad;
         Generator fresh(seed(713));
         const Batch batch = sample_batch(task, fresh, 200);
         const course::AttentionModel& m = *model.yours;
         const int64_t B = batch.batch, S = batch.src_len, T = batch.tgt_len;
         EncoderOutput enc = m.encoder.forward(reshape(m.src_embed.forward(batch.src), {B, S, -1}), batch.lengths);
         Var s = enc.last.h;
         std::vector<int64_t> prev(B, Vocab::kBos);
         std::vector<char> right(B, 1);
         for (int64_t t = 0; t < T; ++t) {
           const Tensor best = argmax(impl.decoder_step(m, prev, s, enc.states, length_mask(batch.lengths, S, "07 check")).value(), 1);
           for (int64_t b = 0; b < B; ++b) {
             prev[b] = static_cast<int64_t>(best[b]);
             if (t < batch.tgt_lengths[b] && prev[b] != batch.tgt_out[b * T + t]) right[b] = 0;
           }
         }
         int64_t exact = 0;
         for (char r : right) exact += r;
         if (exact < 180)
           wrong("trained by your train_loop (400 steps of 16 reversals of 3-6 symbols, E 16, H 32), greedy decoding with "
                 "your decoder_step reversed " + std::to_string(exact) + " of 200 fresh sources exactly; 180 are needed");
       }},
  };
}

static Register reg({"07", "exercises/07_additive_attention", "student",
                     [] { return exercises_07(HEED_IMPL_07(heed::student)); }, kForbidden07});

}  // namespace heed::check
