// Beam search: beam 1 is greedy decoding exactly; a wider beam returns distinct hypotheses,
// best first by length-normalised score, whose log-probabilities and attention agree with the
// model run teacher-forced on them. Untrained tiny models suffice: every property is exact.
#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "autograd/functions.h"
#include "models/beam.h"
#include "models/seq2seq.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

ModelConfig tiny(const std::string& model, const std::string& cell = "gru", int64_t vocab = 7) {
  ModelConfig c;
  c.model = model;
  c.cell = cell;
  c.src_vocab = c.tgt_vocab = vocab;
  c.embed = 3;
  c.hidden = 4;
  c.max_src_len = 8;
  return c;
}

// plain, additive and general, with each cell once, one bidirectional encoder and one Luong
// decoder with input feeding (whose h~_{t-1} must follow each hypothesis through the beam).
std::vector<ModelConfig> zoo() {
  ModelConfig bi = tiny("additive", "gru");
  bi.bidirectional = true;
  ModelConfig fed = tiny("general", "gru");
  fed.input_feeding = true;
  return {tiny("plain", "gru"), tiny("plain", "lstm"), tiny("additive", "gru"), tiny("additive", "lstm"),
          tiny("general", "rnn"), tiny("general", "lstm"), bi, fed};
}

const std::vector<std::vector<int64_t>> kSources = {{3}, {4, 5}, {6, 3, 5}, {5, 5, 4, 6, 3}, {3, 4, 5, 6, 6, 5, 4}};

// The model's own log-probabilities of `tokens`, teacher-forced through Seq2Seq::forward, and
// the attention rows of each step, stepped by hand from a fresh start.
struct Replay {
  std::vector<real> step_log_prob;
  std::vector<std::vector<real>> attention;
};

Replay replay(const Seq2Seq& model, const std::vector<int64_t>& src, const std::vector<int64_t>& tokens) {
  NoGradGuard no_grad;
  const int64_t T = static_cast<int64_t>(tokens.size()), S = static_cast<int64_t>(src.size());
  // Built by hand: a hypothesis may contain <pad> or <bos>, which make_batch refuses in a target.
  Batch b = make_batch({Example{src, {}}});
  b.tgt_len = T;
  b.tgt_in = {Vocab::kBos};
  b.tgt_in.insert(b.tgt_in.end(), tokens.begin(), tokens.end() - 1);
  b.tgt_out = tokens;
  b.tgt_lengths = {T};
  Tensor logp = log_softmax(model.forward(b).value(), 2);  // (1, T, V)
  const int64_t V = logp.shape()[2];
  Replay r;
  for (int64_t t = 0; t < T; ++t) r.step_log_prob.push_back(logp[t * V + tokens[t]]);
  DecoderState st = model.start(b);
  for (int64_t t = 0; t < T; ++t) {
    StepOutput o = model.step({b.tgt_in[t]}, st);
    if (o.weights.defined()) r.attention.emplace_back(o.weights.value().data(), o.weights.value().data() + S);
  }
  return r;
}

}  // namespace

TEST_SUITE("ch11_translation") {
  TEST_CASE("beam 1 is greedy decoding: the same tokens, attention and log_prob, bit for bit") {
    int finished = 0, unfinished = 0;
    for (const ModelConfig& c : zoo()) {
      for (uint64_t seed : {1, 2, 3}) {
        Generator gen(seed);
        Seq2Seq model(c, gen);
        for (const auto& src : kSources) {
          const int64_t steps = 6;
          Decoded d = model.greedy(make_batch({Example{src, {}}}), steps);
          // Greedy runs all its steps; what it means ends at the first <eos>.
          std::vector<int64_t> tokens;
          std::vector<std::vector<real>> attention;
          real log_prob = 0;
          for (int64_t t = 0; t < steps; ++t) {
            tokens.push_back(d.tokens[0][t]);
            if (!d.attention.empty()) attention.push_back(d.attention[0][t]);
            log_prob += d.token_log_prob[0][t];
            if (d.tokens[0][t] == Vocab::kEos) break;
          }
          std::vector<Hypothesis> h = beam_search(model, src, 1, steps);
          INFO(c.model << "/" << c.cell << (c.bidirectional ? " bi" : "") << ", seed " << seed << ", source of "
                       << src.size());
          REQUIRE(h.size() == 1);
          CHECK(h[0].tokens == tokens);
          CHECK(h[0].attention == attention);
          CHECK(h[0].log_prob == log_prob);
          CHECK(h[0].finished == (tokens.back() == Vocab::kEos));
          CHECK(h[0].score == log_prob / static_cast<real>(tokens.size()));
          (h[0].finished ? finished : unfinished) += 1;
        }
      }
    }
    // Both endings were exercised: by <eos> and by running out of steps.
    CHECK(finished > 0);
    CHECK(unfinished > 0);
  }

  TEST_CASE("beam K: distinct hypotheses, best first, <eos> only at the end, K of them") {
    int finished = 0;
    for (const ModelConfig& c : zoo()) {
      Generator gen(7);
      Seq2Seq model(c, gen);
      for (const auto& src : kSources) {
        for (int64_t K : {2, 5, 12}) {
          std::vector<Hypothesis> hyps = beam_search(model, src, K, 7);
          INFO(c.model << "/" << c.cell << ", K " << K << ", source of " << src.size());
          CHECK(static_cast<int64_t>(hyps.size()) == K);
          std::set<std::vector<int64_t>> seen;
          for (size_t i = 0; i < hyps.size(); ++i) {
            const Hypothesis& h = hyps[i];
            REQUIRE(!h.tokens.empty());
            CHECK(h.tokens.size() <= 7);
            CHECK(seen.insert(h.tokens).second);
            CHECK(h.finished == (h.tokens.back() == Vocab::kEos));
            for (size_t t = 0; t + 1 < h.tokens.size(); ++t) CHECK(h.tokens[t] != Vocab::kEos);
            if (!h.finished) CHECK(h.tokens.size() == 7);  // only running out of steps stops one early
            CHECK(h.score == h.log_prob / static_cast<real>(h.tokens.size()));
            CHECK(h.attention.size() == (c.model == "plain" ? 0 : h.tokens.size()));
            if (i > 0) CHECK(hyps[i - 1].score >= h.score);
            finished += h.finished;
          }
        }
      }
    }
    CHECK(finished > 0);
  }

  TEST_CASE("beam K: log_prob and attention agree with the model teacher-forced on each hypothesis") {
    for (const ModelConfig& c : zoo()) {
      Generator gen(11);
      Seq2Seq model(c, gen);
      for (const auto& src : kSources) {
        for (const Hypothesis& h : beam_search(model, src, 4, 6)) {
          Replay r = replay(model, src, h.tokens);
          real sum = 0;
          for (real lp : r.step_log_prob) sum += lp;
          INFO(c.model << "/" << c.cell << ", source of " << src.size() << ", " << h.tokens.size() << " tokens");
          // Equal to the last bit here; 1e-12 only because a batched product does not promise
          // each row the same rounding as a product of that row alone.
          CHECK(h.log_prob == doctest::Approx(sum).epsilon(1e-12));
          REQUIRE(h.attention.size() == r.attention.size());
          for (size_t t = 0; t < h.attention.size(); ++t)
            for (size_t s = 0; s < src.size(); ++s)
              CHECK(h.attention[t][s] == doctest::Approx(r.attention[t][s]).epsilon(1e-12));
        }
      }
    }
  }

  TEST_CASE("a beam wider than the whole tree returns every sequence, and their probabilities sum to 1") {
    // One symbol plus the three specials: 4 choices a step. Within 3 steps there are
    // 1 + 3 + 9 finished sequences (ending in <eos>) and 27 unfinished ones of 3 tokens; they
    // partition all continuations, so their probabilities add up to 1.
    for (const char* model_name : {"plain", "additive", "general"}) {
      Generator gen(3);
      Seq2Seq model(tiny(model_name, "gru", 4), gen);
      std::vector<Hypothesis> all = beam_search(model, {3, 3}, 100, 3);
      CHECK(all.size() == 40);
      real total = 0;
      int finished = 0;
      for (const Hypothesis& h : all) {
        total += std::exp(h.log_prob);
        finished += h.finished;
      }
      CHECK(finished == 13);
      CHECK(total == doctest::Approx(1.0).epsilon(test::tol(1e-12)));
      // A narrower beam keeps exactly K, a subset of the whole tree.
      std::vector<Hypothesis> some = beam_search(model, {3, 3}, 39, 3);
      CHECK(some.size() == 39);
    }
  }

  TEST_CASE("select_rows copies the chosen rows of every field, repeats allowed") {
    Generator gen(5);
    Seq2Seq model(tiny("general", "lstm"), gen);
    DecoderState st = model.start(make_batch({Example{{3, 4, 5}, {}}, Example{{6, 5}, {}}}));
    std::unique_ptr<StepState> picked = st.select_rows({1, 0, 1});
    const DecoderState& sel = dynamic_cast<const DecoderState&>(*picked);
    CHECK(sel.s.h.shape() == Shape{3, 4});
    CHECK(equal(sel.s.h.value(), index_select(st.s.h.value(), {1, 0, 1})));
    CHECK(equal(sel.s.c.value(), index_select(st.s.c.value(), {1, 0, 1})));
    CHECK(equal(sel.keys.value(), index_select(st.keys.value(), {1, 0, 1})));
    CHECK(equal(sel.values.value(), index_select(st.values.value(), {1, 0, 1})));
    CHECK(equal(sel.mask, Tensor({3, 3}, {1, 1, 0, 1, 1, 1, 1, 1, 0})));
  }

  TEST_CASE("beam_search: bad arguments are errors that name the value") {
    Generator gen(1);
    Seq2Seq model(tiny("additive"), gen);
    CHECK_THROWS_WITH_AS(beam_search(model, {3, 4}, 0, 5), doctest::Contains("beam_search: beam is 0, must be >= 1"),
                         Error);
    CHECK_THROWS_WITH_AS(beam_search(model, {3, 4}, -2, 5), doctest::Contains("beam is -2"), Error);
    CHECK_THROWS_WITH_AS(beam_search(model, {3, 4}, 2, 0),
                         doctest::Contains("beam_search: max_steps is 0, must be >= 1"), Error);
    CHECK_THROWS_WITH_AS(beam_search(model, {}, 2, 5), doctest::Contains("beam_search: the source is empty"), Error);
    CHECK_THROWS_WITH_AS(beam_search(model, {3, 7}, 2, 5),
                         doctest::Contains("beam_search: source token 1 has id 7, outside the words' ids [3, 7)"),
                         Error);
    CHECK_THROWS_WITH_AS(beam_search(model, {3, Vocab::kEos}, 2, 5), doctest::Contains("has id 2"), Error);
    // Location attention has a weight per source position (max_src_len 8): a longer source is
    // refused. Additive attention has none and reads it, as eval scores long sources.
    Seq2Seq location(tiny("location"), gen);
    CHECK_THROWS_WITH_AS(beam_search(location, std::vector<int64_t>(9, 3), 2, 5),
                         doctest::Contains("beam_search: the source has 9 tokens; the model reads at most 8"), Error);
    std::vector<Hypothesis> long_source = beam_search(model, std::vector<int64_t>(9, 3), 2, 5);
    REQUIRE(long_source.size() == 2);
    CHECK(long_source[0].attention.front().size() == 9);
  }
}
