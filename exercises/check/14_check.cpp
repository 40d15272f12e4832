// Chapter 14's checks. causal_mask: used in attention first (scaled_dot_product_attention on
// sequences whose later positions are then redrawn: every output at or before t must stay as it
// was), then equal to the mask heed's decoder-only model builds, key_mask(length_mask(lengths),
// T, causal), for T = 1, for padded batches and for a batch without padding, then its errors.
// induction_score: hand-made heads whose scores are known (a perfect induction head, 1; evenly
// spread rows, the mean of 1 / (t+1); a previous-token head, 0, and 1 when n = 2, where t-1 is
// the induction place), random weights with padding rows after the sequence against the formula
// written out, the scores models/analysis/heads.h's score_head gives every head of a decoder-only model on
// repeat sequences, then its errors. sample_token: the draws worked out by hand (T = 0 and
// top_k = 1 give the most probable token; equal logits, the lower id; u at an interval's end;
// a temperature and a top_k that change the answer; logits near 1000, where exp overflows
// unless the largest is subtracted first), the frequencies over 20000 evenly spaced u against the
// probabilities, heed's own sampler (sample_continuation) on logits set through a model's output
// bias, with the u its generator draws, and the errors for a negative or NaN temperature and a
// negative top_k.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>

#include "exercises/14_induction_heads/exercises.h"
#include "exercises/check/14_check.h"
#include "models/decoder_model.h"
#include "models/analysis/heads.h"
#include "models/tasks/tasks.h"
#include "models/tasks/vocab.h"
#include "nn/encoder.h"
#include "nn/self_attention.h"

namespace heed::check {

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
const ForbiddenCalls kForbidden14 = {
    {"causal_mask", {"heed::key_mask", "heed::attention_mask", "heed::self_attention_mask"}},
    {"induction_score", {"heed::score_head", "heed::head_scores"}},
    {"sample_token", {"heed::sample_continuation"}},
};

namespace {

std::string num(real v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.10g", static_cast<double>(v));
  return buf;
}

std::string list(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
  return "{" + s + "}";
}

// Wrong unless f throws heed::Error (a NotDone goes on up: the exercise is not done yet).
void expect_error(const std::function<void()>& f, const std::string& what, const std::string& input) {
  try {
    f();
  } catch (const Error&) {
    return;
  }
  wrong(what + ": expected heed::Error, but it returned\n  input: " + input);
}

Var& parameter(std::vector<std::pair<std::string, Var>>& params, const std::string& name) {
  for (auto& [n, v] : params)
    if (n == name) return v;
  throw Error("14_check: the model has no parameter " + name);
}

// ---- causal_mask

void check_causal_mask(const Impl14& impl) {
  Generator gen(seed(1401));
  // Used in attention: q, k, v of positions after t redrawn, the outputs up to t unchanged.
  {
    const int64_t T = 5, d = 3;
    const std::vector<int64_t> lengths = {5, 3};
    const std::string in = "lengths " + list(lengths) + ", T " + std::to_string(T);
    Tensor mask = impl.causal_mask(lengths, T);
    expect_shape(mask, {2, T, T}, "causal_mask", in);
    Tensor q = random({2, T, d}, gen, -2, 2), k = random({2, T, d}, gen, -2, 2), v = random({2, T, d}, gen, -2, 2);
    const Tensor out = scaled_dot_product_attention(Var(q), Var(k), Var(v), mask).output.value();
    for (int64_t t = 0; t + 1 < T; ++t) {
      Tensor q2 = q, k2 = k, v2 = v;
      for (Tensor* x : {&q2, &k2, &v2})
        for (int64_t b = 0; b < 2; ++b)
          for (int64_t s = t + 1; s < T; ++s)
            for (int64_t f = 0; f < d; ++f) (*x)[(b * T + s) * d + f] = gen.uniform(-2, 2);
      const Tensor out2 = scaled_dot_product_attention(Var(q2), Var(k2), Var(v2), mask).output.value();
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t s = 0; s <= t; ++s)
          for (int64_t f = 0; f < d; ++f) {
            const int64_t at = (b * T + s) * d + f;
            if (std::fabs(out2[at] - out[at]) > 1e-12)
              wrong("causal_mask in attention: the output at position " + std::to_string(s) + " of sequence " +
                    std::to_string(b) + " changed (from " + num(out[at]) + " to " + num(out2[at]) +
                    ") when only positions " + std::to_string(t + 1) + " .. " + std::to_string(T - 1) +
                    " changed: a position sees a later one\n  input: " + in + "\n  got mask " + mask.str(1));
          }
    }
  }
  // Equal to the mask heed's decoder-only model attends through.
  struct Case {
    int64_t T;
    std::vector<int64_t> lengths;
  };
  for (const Case& c : {Case{1, {1}}, Case{4, {4, 2, 1}}, Case{7, {5, 7}}, Case{3, {3, 3}}}) {
    const std::string in = "lengths " + list(c.lengths) + ", T " + std::to_string(c.T);
    expect_close(impl.causal_mask(c.lengths, c.T), key_mask(length_mask(c.lengths, c.T, "14_check"), c.T, true),
                 "causal_mask (against heed's decoder mask)", in, 0, 0);
  }
  expect_error([&] { impl.causal_mask({3, 0}, 3); }, "causal_mask with a length of 0", "lengths {3 0}, T 3");
  expect_error([&] { impl.causal_mask({4}, 3); }, "causal_mask with a length above T", "lengths {4}, T 3");
}

// ---- induction_score

// The formula written out: the mean of w[t, t-n+1] over t = n+1 .. 2n.
real plain_induction(const Tensor& w, int64_t n) {
  real sum = 0;
  for (int64_t t = n + 1; t <= 2 * n; ++t) sum += w.at({t, t - n + 1});
  return sum / static_cast<real>(n);
}

void expect_score(real got, real expected, const std::string& what, const std::string& in) {
  if (!(std::fabs(got - expected) <= 1e-12 + 1e-10 * std::fabs(expected)))
    wrong(what + ": expected " + num(expected) + ", got " + num(got) + "\n  input: " + in);
}

void check_induction_score(const Impl14& impl) {
  Generator gen(seed(1402));
  // Hand-made heads, each row a distribution over the keys 0 .. t.
  auto head = [](int64_t T, const std::function<int64_t(int64_t)>& looks_at) {  // all weight on one key
    Tensor w = Tensor::zeros({T, T});
    for (int64_t t = 0; t < T; ++t) w.at({t, looks_at(t)}) = 1;
    return w;
  };
  {
    const int64_t n = 4, T = 2 * n + 1;
    Tensor w = head(T, [&](int64_t t) { return t > n ? t - n + 1 : 0; });  // the second copy looks at k+1
    expect_score(impl.induction_score(w, n), 1, "induction_score (a perfect induction head)",
                 "n 4, T 9, rows t = 5 .. 8 all on t-3, the others all on <bos>");
  }
  {
    const int64_t n = 3, T = 2 * n + 1;
    Tensor w = Tensor::zeros({T, T});
    for (int64_t t = 0; t < T; ++t)
      for (int64_t j = 0; j <= t; ++j) w.at({t, j}) = 1 / static_cast<real>(t + 1);
    expect_score(impl.induction_score(w, n), (real(1) / 5 + real(1) / 6 + real(1) / 7) / 3,
                 "induction_score (evenly spread rows, (1/5 + 1/6 + 1/7) / 3)",
                 "n 3, T 7, row t = 1 / (t+1) on keys 0 .. t");
  }
  for (int64_t n : {4, 2}) {
    const int64_t T = 2 * n + 1;
    Tensor w = head(T, [](int64_t t) { return t > 0 ? t - 1 : 0; });
    expect_score(impl.induction_score(w, n), n == 2 ? 1 : 0,
                 std::string("induction_score (a previous-token head") + (n == 2 ? ", n = 2: t-1 is t-n+1)" : ")"),
                 "n " + std::to_string(n) + ", T " + std::to_string(T) + ", every row t on t-1");
  }
  // Random heads with padding rows after the sequence (T > 2n + 1).
  for (auto [n, T] : {std::pair<int64_t, int64_t>{1, 3}, {3, 9}, {5, 11}, {2, 12}}) {
    Tensor w = random({T, T}, gen, 0, 1);
    const std::string in = "n " + std::to_string(n) + ", " + describe("weights", w);
    expect_score(impl.induction_score(w, n), plain_induction(w, n), "induction_score (random weights)", in);
  }
  // heed's own score (models/analysis/heads.h) on every head of a decoder-only model, sequence by sequence.
  {
    Generator init(seed(1403));
    DecoderModel model(decoder_config(6, 16, 2, 2), init);
    RepeatTask task(6, 2, 6);
    std::vector<Example> examples;
    for (int i = 0; i < 6; ++i) examples.push_back(task.sample(gen));
    Batch batch = make_batch(examples);
    std::vector<Var> weights;  // one (B, h, T, T) per layer
    {
      NoGradGuard no_grad;
      model.hidden(batch.tgt_in, batch.batch, batch.tgt_len, batch.tgt_lengths, &weights);
    }
    const int64_t H = 2, T = batch.tgt_len;
    for (size_t l = 0; l < weights.size(); ++l)
      for (int64_t b = 0; b < batch.batch; ++b) {
        const int64_t n = static_cast<int64_t>(examples[static_cast<size_t>(b)].src.size());
        Tensor one = Tensor::zeros({1, H, T, T});  // sequence b alone, for score_head
        for (int64_t i = 0; i < H * T * T; ++i) one[i] = weights[l].value()[b * H * T * T + i];
        for (int64_t h = 0; h < H; ++h) {
          Tensor w = Tensor::zeros({T, T});
          for (int64_t i = 0; i < T * T; ++i) w[i] = one[h * T * T + i];
          const ScoreSums s = score_head(one, h, {n});
          expect_score(impl.induction_score(w, n), s.induction / static_cast<real>(s.induction_terms),
                       "induction_score (against models/analysis/heads.h's score_head)",
                       "layer " + std::to_string(l) + ", head " + std::to_string(h) +
                           " of a decoder-only model, a repeat "
                           "sequence of n " +
                           std::to_string(n) + " in T " + std::to_string(T) + " positions, " + describe("weights", w));
        }
      }
  }
  Tensor w = Tensor::zeros({4, 4});
  expect_error([&] { impl.induction_score(w, 2); },
               "induction_score with 2n = T (the second copy's last position 2n is not there)", "weights (4, 4), n 2");
  expect_error([&] { impl.induction_score(w, 0); }, "induction_score with n = 0", "weights (4, 4), n 0");
  expect_error(
      [&] {
        impl.induction_score(Tensor::zeros({5, 4}), 1);
      },
      "induction_score on weights that are not (T, T)", "weights (5, 4), n 1");
}

// ---- sample_token

void check_sample_token(const Impl14& impl) {
  struct Draw {
    std::vector<real> logits;
    real temperature;
    int64_t top_k;
    real u;
    int64_t expected;
    std::string why;
  };
  const real l1 = std::log(real(1)), l2 = std::log(real(2)), l3 = std::log(real(3)), l4 = std::log(real(4));
  // {logits, temperature, top_k, u, the token, why}
  const std::vector<Draw> draws = {
      {{1, 3, 3, 0}, 0, 0, 0.9, 1, "temperature 0: the most probable, the lower id of a tie"},
      {{1, 3, 3, 0}, 1, 1, 0.99, 1, "top_k 1: the most probable, the lower id of a tie"},
      {{1, 3, 3, 0}, 1, 0, 0.1, 1, "equal logits: the lower id first"},
      {{l1, l2, l3, l4}, 1, 0, 0.05, 3, "probabilities .1 .2 .3 .4, ordered 3 2 1 0: u .05 is in 3's [0, .4)"},
      {{l1, l2, l3, l4}, 1, 0, 0.5, 2, "probabilities .1 .2 .3 .4: u .5 is in token 2's [.4, .7)"},
      {{l1, l2, l3, l4}, 1, 0, 0.95, 0, "probabilities .1 .2 .3 .4: u .95 is in token 0's [.9, 1)"},
      {{l1, l2, l3, l4}, 2, 0, 0.65, 1, "temperature 2: p as sqrt(1 2 3 4), u .65 in token 1's [.607, .837)"},
      {{l1, l2, l3, l4}, 1, 2, 0.8, 2, "top_k 2: tokens 3 and 2 kept, 4/7 and 3/7, so u .8 is token 2's"},
      {{0, 0, 0, 0}, 1, 0, 0.5, 2, "four equal logits: u .5 is where token 1's interval ends and 2's begins"},
      {{0, 0, 0, 0}, 1, 0, 0, 0, "u 0: the first token"},
      {{2, 1, 2, 1, 0}, 1, 3, 0.95, 1, "top_k 3 of tied logits: 0 2 1 kept (the lower id), u .95 is 1's"},
      {{1000, 999, 998}, 1, 0, 0.3, 0, "logits near 1000: exp overflows unless the largest is subtracted"},
      {{-1000, 400, 399}, 0.5, 0, 0.95, 2, "logits / 0.5 near 800: exp overflows without the shift"},
  };
  for (const Draw& d : draws) {
    Tensor logits({static_cast<int64_t>(d.logits.size())}, d.logits);
    const std::string in = describe("logits", logits) + ", temperature " + num(d.temperature) + ", top_k " +
                           std::to_string(d.top_k) + ", u " + num(d.u);
    const int64_t got = impl.sample_token(logits, d.temperature, d.top_k, d.u);
    if (got != d.expected)
      wrong("sample_token (" + d.why + "): expected token " + std::to_string(d.expected) + ", got " +
            std::to_string(got) + "\n  input: " + in);
  }
  // Frequencies over evenly spaced u: each kept token's share of the 20000 draws is its
  // probability to within 2 / 20000 (an interval of length p holds p N +- 1 of the points).
  Generator gen(seed(1404));
  {
    const int64_t V = 6, k = 4, N = 20000;
    const real temperature = 0.8;
    Tensor logits = random({V}, gen, -2, 2);
    std::vector<int64_t> order(static_cast<size_t>(V));
    for (int64_t i = 0; i < V; ++i) order[static_cast<size_t>(i)] = i;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
    std::vector<real> p(static_cast<size_t>(V), 0);  // by id; 0 for the tokens top_k leaves out
    real total = 0;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t id = order[static_cast<size_t>(i)];
      p[static_cast<size_t>(id)] = std::exp((logits[id] - logits[order[0]]) / temperature);
      total += p[static_cast<size_t>(id)];
    }
    std::vector<int64_t> count(static_cast<size_t>(V), 0);
    for (int64_t i = 0; i < N; ++i) {
      const int64_t t = impl.sample_token(logits, temperature, k, (static_cast<real>(i) + real(0.5)) / N);
      if (t < 0 || t >= V)
        wrong("sample_token: token " + std::to_string(t) + " is not one of the " + std::to_string(V) +
              " ids\n  input: " + describe("logits", logits));
      ++count[static_cast<size_t>(t)];
    }
    for (int64_t i = 0; i < V; ++i) {
      const real freq = static_cast<real>(count[static_cast<size_t>(i)]) / N, prob = p[static_cast<size_t>(i)] / total;
      if (std::fabs(freq - prob) > real(2) / N)
        wrong("sample_token (frequencies over 20000 evenly spaced u): token " + std::to_string(i) + " drawn " +
              std::to_string(count[static_cast<size_t>(i)]) + " times, a share of " + num(freq) +
              ", its probability is " + num(prob) + "\n  input: " + describe("logits", logits) +
              ", temperature 0.8, top_k 4");
    }
  }
  // heed's own sampler: a model whose output weight is zero and whose bias is the logits, one
  // token of sample_continuation from a generator, and the u that generator draws first.
  {
    const int64_t V = 7;
    Generator init(seed(1405));
    DecoderModel model(decoder_config(V - 3, 8, 1, 2), init);
    auto params = model.named_parameters();
    parameter(params, "out.weight").value() = Tensor::zeros({V, 8});
    for (int trial = 0; trial < 120; ++trial) {
      Tensor logits = random({V}, gen, -3, 3);
      if (trial % 3 == 1) logits[4] = logits[1];  // a tie
      if (trial % 5 == 2)
        for (int64_t i = 0; i < V; ++i) logits[i] += 800;  // exp would overflow without the shift
      parameter(params, "out.bias").value() = logits;
      SamplingOptions o;
      o.temperature = std::vector<real>{0, 0.3, 1, 2.5}[static_cast<size_t>(trial % 4)];
      o.top_k = std::vector<int64_t>{0, 1, 2, 5, V + 3}[static_cast<size_t>(trial % 5)];
      Generator draws(seed(1406) + static_cast<uint64_t>(trial));
      Generator same = draws;
      const int64_t heed_token = sample_continuation(model, {}, 1, o, draws)[0];
      const real u = same.uniform();
      const int64_t got = impl.sample_token(logits, o.temperature, o.top_k, u);
      if (got != heed_token)
        wrong("sample_token (against heed's sample_continuation): expected token " + std::to_string(heed_token) +
              ", got " + std::to_string(got) + "\n  input: " + describe("logits", logits) + ", temperature " +
              num(o.temperature) + ", top_k " + std::to_string(o.top_k) + ", u " + num(u));
    }
  }
  Tensor logits({3}, {0.5, -1, 2});
  expect_error([&] { impl.sample_token(logits, -0.5, 0, 0.5); }, "sample_token with temperature -0.5",
               "logits {0.5 -1 2}, temperature -0.5");
  expect_error([&] { impl.sample_token(logits, std::numeric_limits<real>::quiet_NaN(), 0, 0.5); },
               "sample_token with temperature NaN", "logits {0.5 -1 2}, temperature nan");
  expect_error([&] { impl.sample_token(logits, 1, -1, 0.5); }, "sample_token with top_k -1",
               "logits {0.5 -1 2}, top_k -1");
}

}  // namespace

std::vector<Exercise> exercises_14(const Impl14& impl) {
  return {
      {"causal_mask", [impl] { check_causal_mask(impl); }},
      {"induction_score", [impl] { check_induction_score(impl); }},
      {"sample_token", [impl] { check_sample_token(impl); }},
  };
}

static Register reg({"14", "exercises/14_induction_heads", "student",
                     [] { return exercises_14(HEED_IMPL_14(heed::student)); }, kForbidden14});

}  // namespace heed::check
