// Finding a decoder-only model's heads (models/analysis/heads.h): the repeated half's loss from its 2nd
// symbol, the previous-token and induction scores on a model whose weights are set so that the
// answer is known exactly, head ablation (exact, and undone), and heed eval --heads.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "autograd/functions.h"
#include "exercises/check/14_check.h"  // decoder_config
#include "models/analysis/heads.h"
#include "models/tasks/vocab.h"
#include "tests/support/heed_cli.h"
#include "tests/support/model_fixtures.h"
#include "tests/support/precision.h"

using namespace heed;
using heed::check::decoder_config;
using heed::test::tol;

namespace {

Var& param(std::vector<std::pair<std::string, Var>>& params, const std::string& name) {
  for (auto& [n, v] : params)
    if (n == name) return v;
  FAIL("no parameter " << name);
  return params[0].second;
}

// Every parameter's values, to compare bit for bit.
std::vector<Tensor> snapshot(const Module& m) {
  std::vector<Tensor> out;
  for (auto& [n, v] : m.named_parameters()) out.push_back(v.value());
  return out;
}

bool same_bits(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].shape() != b[i].shape() ||
        std::memcmp(a[i].data(), b[i].data(), sizeof(real) * static_cast<size_t>(a[i].numel())) != 0)
      return false;
  return true;
}

}  // namespace

TEST_SUITE("ch14_heads") {
  TEST_CASE("repeat_halves_loss: in_context is the second copy without its first symbol") {
    Generator gen(3);
    DecoderModel model(decoder_config(5, 8, 1, 2), gen);
    RepeatTask task(5, 2, 4);
    HalvesLoss h = repeat_halves_loss(model, task, 4, 11);
    // The same four sequences by hand: the second copy's symbols at positions n+1 .. 2n-1.
    Generator draws(11);
    real sum = 0, whole = 0;
    int64_t terms = 0, whole_terms = 0;
    for (int i = 0; i < 4; ++i) {
      Example e = task.sample(draws);
      Tensor logp = log_softmax(model.forward(make_batch({e})).value(), 2);  // (1, 2n + 1, 8)
      const int64_t n = static_cast<int64_t>(e.src.size());
      for (int64_t t = n; t < 2 * n; ++t) {
        const real nll = -logp[t * 8 + e.tgt[static_cast<size_t>(t)]];
        whole += nll;
        ++whole_terms;
        if (t == n) continue;  // s_1 of the second copy: nothing before it says which symbol starts it
        sum += nll;
        ++terms;
      }
    }
    CHECK(terms == whole_terms - 4);
    CHECK(std::fabs(h.repeated - whole / whole_terms) < tol(1e-12));
    CHECK(std::fabs(h.in_context - sum / terms) < tol(1e-12));
    CHECK(h.in_context != h.repeated);
  }

  TEST_CASE("head_scores: heads set to look at t-1, at t-2 (the induction place when n = 3), and evenly") {
    // D 16, 2 heads of 8: the tokens' vectors are 0 and position t's is the unit vector e_t, so
    // x_t = e_t. Layer 0: head 0's query at t is c e_{t-1} and its key at s is e_s, so its score
    // c [s = t-1] / sqrt(8) puts all the weight on t-1 (the rest is below exp(-350), nothing in
    // double); head 1 shifts by 2. Layer 1 has zero queries: every weight is 1 / (t+1).
    const int64_t D = 16, dk = 8, n = 3;  // segments of exactly 3: positions 0 .. 6
    Generator gen(5);
    DecoderModel model(decoder_config(4, D, 2, 2), gen);
    auto params = model.named_parameters();
    param(params, "embed.weight").value().fill(0);
    Tensor& pos = param(params, "pos.weight").value();  // (32, 16)
    pos.fill(0);
    for (int64_t t = 0; t < D; ++t) pos[t * D + t] = 1;
    const real c = 1000;
    Tensor& w0 = model.self_attention(0).in_proj_weight.value();  // (3D, D): W_q, W_k, W_v
    w0.fill(0);
    for (int64_t j = 0; j < dk; ++j) {
      w0[j * D + (j + 1)] = c;         // head 0, query row j reads position j+1: q_t = c e_{t-1}
      w0[(dk + j) * D + (j + 2)] = c;  // head 1, query row j reads position j+2: q_t = c e_{t-2}
      w0[(D + j) * D + j] = 1;         // head 0's keys: k_s = e_s
      w0[(D + dk + j) * D + j] = 1;    // head 1's keys
    }
    model.self_attention(1).in_proj_weight.value().fill(0);

    RepeatTask task(4, n, n);
    std::vector<HeadScore> s = head_scores(model, task, 7, 1);
    REQUIRE(s.size() == 4);
    CHECK(s[0].layer == 0);
    CHECK(s[0].head == 0);
    CHECK(s[3].layer == 1);
    CHECK(s[3].head == 1);
    // Layer 0, head 0: every position 1 .. 6 looks at t-1; the second copy (t = 4, 5, 6) never at t-2.
    CHECK(std::fabs(s[0].previous_token - 1) < tol(1e-12));
    CHECK(std::fabs(s[0].induction) < tol(1e-12));
    // Head 1: t >= 2 looks at t-2, the induction place; t = 1 has no t-2 (its query is 0) and
    // spreads its weight over 0 and 1, giving t-1 a half: 0.5 of the 6 terms.
    CHECK(std::fabs(s[1].previous_token - real(0.5 / 6)) < tol(1e-12));
    CHECK(std::fabs(s[1].induction - 1) < tol(1e-12));
    // Layer 1, zero queries: 1 / (t+1) everywhere.
    const real even_prev = real((1.0 / 2 + 1.0 / 3 + 1.0 / 4 + 1.0 / 5 + 1.0 / 6 + 1.0 / 7) / 6);
    const real even_ind = real((1.0 / 5 + 1.0 / 6 + 1.0 / 7) / 3);
    for (int h : {2, 3}) {
      CHECK(std::fabs(s[static_cast<size_t>(h)].previous_token - even_prev) < tol(1e-15));
      CHECK(std::fabs(s[static_cast<size_t>(h)].induction - even_ind) < tol(1e-15));
    }
  }

  TEST_CASE("Model::attention_maps of a decoder-only model: hidden()'s weights over <bos> and the output but its last; "
            "head_scores through a Model; a recurrent model has no maps and no heads") {
    Generator gen(3);
    DecoderModel model(decoder_config(5, 8, 2, 2), gen);
    const std::vector<int64_t> output = {4, 6, 5, Vocab::kEos};
    const Model& any = model;
    const AttentionMaps maps = any.attention_maps({}, output);
    REQUIRE(maps.self.size() == 2);
    CHECK(maps.encoder.empty());
    CHECK(maps.cross.empty());
    std::vector<Var> weights;
    model.hidden({Vocab::kBos, 4, 6, 5}, 1, 4, {4}, &weights);
    for (size_t l = 0; l < 2; ++l) {
      CHECK(maps.self[l].shape() == Shape{1, 2, 4, 4});
      CHECK(std::memcmp(maps.self[l].data(), weights[l].value().data(), 32 * sizeof(real)) == 0);
    }
    RepeatTask task(5, 2, 3);
    CHECK(head_scores(any, task, 3, 1).size() == 4);
    Generator g2(3);
    std::unique_ptr<Model> rnn = make_model(test::tiny_rnn("additive"), g2);
    CHECK_THROWS_WITH_AS(rnn->attention_maps({4, 5}, {5, Vocab::kEos}),
                         "model: the additive model has no layers of heads to map", Error);
    CHECK_THROWS_WITH_AS(head_scores(*rnn, task, 3, 1), "heads: model 'additive' is not a decoder-only model", Error);
  }

  TEST_CASE("score_head: by hand on a (1, 1, 5, 5) tensor; shapes and heads that do not fit are errors") {
    // n = 2: positions 0 .. 4. Previous-token terms w[1][0], w[2][1], w[3][2], w[4][3];
    // induction terms w[3][2], w[4][3] (t - n + 1).
    Tensor w = Tensor::zeros({1, 1, 5, 5});
    for (int64_t i = 0; i < 25; ++i) w[i] = static_cast<real>(i);
    ScoreSums s = score_head(w, 0, {2});
    CHECK(s.previous_terms == 4);
    CHECK(s.previous_token == 5 + 11 + 17 + 23);
    CHECK(s.induction_terms == 2);
    CHECK(s.induction == 17 + 23);
    CHECK_THROWS_WITH_AS(score_head(w, 1, {2}), "heads: head 1 of a layer of 1 heads", Error);
    CHECK_THROWS_WITH_AS(score_head(w, 0, {3}),
                         "heads: a segment of 3 symbols does not fit 5 positions (BOS and two copies)", Error);
    CHECK_THROWS_AS(score_head(w, 0, {2, 2}), Error);
  }

  TEST_CASE("ablation: a head whose output columns are zero changes nothing; the model is left as it was") {
    Generator gen(9);
    DecoderModel model(decoder_config(6, 16, 2, 4), gen);
    RepeatTask task(6, 4, 6);
    // Head 2 of layer 1 writes nothing: its 4 columns of out_proj are zero.
    Tensor& wo = model.self_attention(1).out_proj.weight.value();  // (16, 16)
    for (int64_t row = 0; row < 16; ++row)
      for (int64_t col = 8; col < 12; ++col) wo[row * 16 + col] = 0;
    const std::vector<Tensor> before = snapshot(model);
    const HalvesLoss plain = repeat_halves_loss(model, task, 20, 3);
    const HalvesLoss silent = ablated_halves_loss(model, {{1, 2}}, task, 20, 3);
    CHECK(silent.first == plain.first);  // bit for bit
    CHECK(silent.repeated == plain.repeated);
    CHECK(silent.in_context == plain.in_context);
    // Another head does write: zeroing it changes the loss, and the model is as before after it.
    const HalvesLoss other = ablated_halves_loss(model, {{1, 1}}, task, 20, 3);
    CHECK(other.repeated != plain.repeated);
    CHECK(same_bits(snapshot(model), before));
    std::vector<HeadAblation> each = ablate_each_head(model, task, 20, 3);
    REQUIRE(each.size() == 8);
    CHECK(each[6].layer == 1);
    CHECK(each[6].head == 2);
    CHECK(each[6].loss.repeated == plain.repeated);
    CHECK(each[5].loss.repeated == other.repeated);
    CHECK(same_bits(snapshot(model), before));
    // A head that is not there: an error, and nothing zeroed (the valid one before it included).
    CHECK_THROWS_WITH_AS(ablated_halves_loss(model, {{0, 1}, {2, 0}}, task, 20, 3),
                         "ablate: layer 2 head 0 is not in a model of 2 layers of 4 heads", Error);
    CHECK(same_bits(snapshot(model), before));
  }

  TEST_CASE("ablation in full layers: the block's self-attention heads, zeroed as by hand") {
    ModelConfig c = decoder_config(6, 16, 2, 4);
    c.attention_only = false;
    c.ff = 32;
    Generator gen(12);
    DecoderModel model(c, gen);
    RepeatTask task(6, 4, 6);
    const std::vector<Tensor> before = snapshot(model);
    const HalvesLoss ablated = ablated_halves_loss(model, {{1, 0}, {1, 3}}, task, 10, 5);
    CHECK(same_bits(snapshot(model), before));
    // The same heads zeroed by hand in layers.1.self_attn.out_proj.weight (16, 16): columns 0 .. 3, 12 .. 15.
    auto params = model.named_parameters();
    Tensor& wo = param(params, "layers.1.self_attn.out_proj.weight").value();
    for (int64_t row = 0; row < 16; ++row)
      for (int64_t col : {0, 1, 2, 3, 12, 13, 14, 15}) wo[row * 16 + col] = 0;
    const HalvesLoss by_hand = repeat_halves_loss(model, task, 10, 5);
    CHECK(ablated.first == by_hand.first);
    CHECK(ablated.repeated == by_hand.repeated);
    CHECK(ablated.in_context == by_hand.in_context);
    CHECK(!same_bits(snapshot(model), before));  // (by hand, nothing puts them back)
    CHECK(head_scores(model, task, 10, 5).size() == 8);
  }

  TEST_CASE("ablation of every head: the loss of the bigram model the embeddings and biases make") {
    // With every head's output zeroed, an attention-only model's residual stream at t is
    // embed(x_t) + P[t] + the layers' out_proj biases: logits = out(that), a plain loop.
    const int64_t V = 5, D = 8, H = 2, L = 2, Vt = V + 3;
    Generator gen(4);
    DecoderModel model(decoder_config(V, D, L, H), gen);
    for (int64_t l = 0; l < L; ++l) {  // biases start at 0; give them values so they count
      Tensor& b = model.self_attention(static_cast<size_t>(l)).out_proj.bias.value();
      for (int64_t i = 0; i < D; ++i) b[i] = real(0.1) * static_cast<real>(i - 3 + l);
    }
    RepeatTask task(V, 3, 5);
    const HalvesLoss ablated = ablated_halves_loss(model, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}, task, 6, 8);
    auto params = model.named_parameters();
    const Tensor& E = param(params, "embed.weight").value();  // (Vt, D)
    const Tensor& P = param(params, "pos.weight").value();    // (32, D)
    const Tensor& W = param(params, "out.weight").value();    // (Vt, D)
    const Tensor& ob = param(params, "out.bias").value();     // (Vt)
    Generator draws(8);
    real first = 0, repeated = 0;
    int64_t first_n = 0, repeated_n = 0;
    for (int i = 0; i < 6; ++i) {
      Example e = task.sample(draws);
      const int64_t n = static_cast<int64_t>(e.src.size());
      std::vector<int64_t> in = {Vocab::kBos};  // BOS y_1 .. y_2n-1: the token read at each t
      in.insert(in.end(), e.tgt.begin(), e.tgt.end() - 1);
      for (int64_t t = 0; t < 2 * n; ++t) {
        std::vector<real> x(static_cast<size_t>(D));
        for (int64_t d = 0; d < D; ++d) {
          x[static_cast<size_t>(d)] = E[in[static_cast<size_t>(t)] * D + d] + P[t * D + d];
          for (int64_t l = 0; l < L; ++l) x[static_cast<size_t>(d)] += model.self_attention(l).out_proj.bias.value()[d];
        }
        std::vector<real> logits(static_cast<size_t>(Vt));
        real top = -std::numeric_limits<real>::infinity();
        for (int64_t v = 0; v < Vt; ++v) {
          real z = ob[v];
          for (int64_t d = 0; d < D; ++d) z += W[v * D + d] * x[static_cast<size_t>(d)];
          logits[static_cast<size_t>(v)] = z;
          top = std::max(top, z);
        }
        real total = 0;
        for (real z : logits) total += std::exp(z - top);
        const real nll = -(logits[static_cast<size_t>(e.tgt[static_cast<size_t>(t)])] - top - std::log(total));
        (t < n ? first : repeated) += nll;
        ++(t < n ? first_n : repeated_n);
      }
    }
    CHECK(std::fabs(ablated.first - first / first_n) < tol(1e-12));
    CHECK(std::fabs(ablated.repeated - repeated / repeated_n) < tol(1e-12));
    CHECK(std::fabs(ablated.repeated - repeat_halves_loss(model, task, 6, 8).repeated) > 1e-6);  // the heads mattered
  }

  TEST_CASE("heed eval --heads: a row per layer and head, the same numbers in --json; other models refused") {
    Scratch s("heads-cli");
    const std::string file = s.path("d.safetensors");
    CliRun t = s.heed("train --model decoder --task repeat --vocab 6 --min-len 3 --max-len 5 --embed 8 --heads 2 "
                      "--attention-only --layers 2 --steps 5 --batch 4 --eval-samples 5 --save " + file);
    INFO(t.err);
    REQUIRE(t.status == 0);
    CliRun e = s.heed("eval --load " + file + " --samples 10 --heads --json");
    INFO(e.err);
    REQUIRE(e.status == 0);
    CHECK(e.out.find("  from its 2nd symbol  ") != std::string::npos);
    CHECK(e.out.find("layer  head  previous-token  induction  repeated copy  from its 2nd symbol\n") !=
          std::string::npos);
    const Json j = e.json();
    REQUIRE(j.find("loss_in_context"));
    REQUIRE(j.find("heads"));
    const Json::Array& rows = j.find("heads")->as_array();
    REQUIRE(rows.size() == 4);
    CHECK(rows[3].find("layer")->as_int() == 1);
    CHECK(rows[3].find("head")->as_int() == 1);
    for (const Json& r : rows) {
      const real p = r.find("previous_token")->as_real(), i = r.find("induction")->as_real();
      CHECK(p > 0);
      CHECK(p < 1);
      CHECK(i > 0);
      CHECK(i < 1);
    }
    // Without --heads: no table, no "heads" in the JSON.
    CliRun plain = s.heed("eval --load " + file + " --samples 10 --json");
    REQUIRE(plain.status == 0);
    CHECK(plain.out.find("previous-token") == std::string::npos);
    CHECK(!plain.json().find("heads"));
    // A model with no decoder-only heads to score.
    const std::string rnn = s.path("r.safetensors");
    REQUIRE(s.heed("train --task reverse --vocab 6 --min-len 3 --max-len 5 --steps 0 --save " + rnn).status == 0);
    CliRun bad = s.heed("eval --load " + rnn + " --heads");
    CHECK(bad.status == 2);
    CHECK(count_lines(bad.err) == 1);
    CHECK(bad.err.find("--heads scores the heads of a decoder-only model on --task repeat") != std::string::npos);
  }
}
