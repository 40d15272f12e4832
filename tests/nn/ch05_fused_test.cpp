// Chapter 05: the fused cell steps (rnn_step, gru_step, lstm_step in nn/rnn_cell.h) against the
// composed ones they replace.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "nn/rnn_cell.h"
#include "tensor/random.h"
#include "tests/support/fused_check.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

struct Run {
  Tensor out;                // h' of the last step, with c' beside it for an LSTM
  std::vector<Tensor> grads;  // x, h0, c0, then every parameter
};

// `steps` steps of `cell` from (h0, c0) over x (steps, B, I), then the loss sum(out_t * R_t)
// summed over the steps, so gradients flow through the state from step to step.
Run unroll(const Cell& cell, bool fused, const Var& x, const Var& h0, const Var& c0, uint64_t seed) {
  const bool lstm = cell.kind() == CellKind::kLstm;
  State s{h0, lstm ? c0 : Var()};
  Generator gen(seed);
  Var loss(Tensor::scalar(0));
  Var out;
  for (int64_t t = 0; t < x.shape()[0]; ++t) {
    Var xt = reshape(slice(x, 0, t, t + 1), {x.shape()[1], x.shape()[2]});
    s = fused ? cell.step(xt, s) : cell.step_composed(cell.input_projection(xt), s);
    out = lstm ? concat({s.h, s.c}, 1) : s.h;
    loss = loss + sum(out * Var(Tensor::uniform(out.shape(), -1, 1, gen)));
  }
  loss.backward();
  Run r{out.value(), {x.grad(), h0.grad()}};
  if (lstm) r.grads.push_back(c0.grad());
  for (const Var& p : cell.parameters()) r.grads.push_back(p.grad());
  return r;
}

void zero_all(Cell& cell, Var& x, Var& h, Var& c) {
  cell.zero_grad();
  x.zero_grad();
  h.zero_grad();
  c.zero_grad();
}

}  // namespace

TEST_SUITE("ch05_recurrent") {
  TEST_CASE("fused steps equal the composed ones: values and every gradient, to 1e-12 relative") {
    Generator gen(21);
    struct Size {
      int64_t steps, B, I, H;
    };
    for (const char* kind : {"rnn", "gru", "lstm"})
      for (Size z : {Size{1, 1, 3, 4}, Size{3, 4, 5, 7}, Size{4, 8, 6, 16}}) {
        const std::string name = kind;
        CAPTURE(name);
        CAPTURE(z.H);
        auto cell = make_cell(kind, z.I, z.H, gen);
        Var x(Tensor::normal({z.steps, z.B, z.I}, 0, 1, gen), true);
        Var h(Tensor::normal({z.B, z.H}, 0, 0.5, gen), true), c(Tensor::normal({z.B, z.H}, 0, 0.5, gen), true);
        Run composed = unroll(*cell, false, x, h, c, 7);
        zero_all(*cell, x, h, c);
        Run fused = unroll(*cell, true, x, h, c, 7);
        zero_all(*cell, x, h, c);
        check_rel(fused.out, composed.out, "output");
        REQUIRE(fused.grads.size() == composed.grads.size());
        for (size_t i = 0; i < fused.grads.size(); ++i)
          check_rel(fused.grads[i], composed.grads[i], "gradient " + std::to_string(i));
      }
  }

  TEST_CASE("gradcheck: rnn_step, gru_step and lstm_step w.r.t. every input" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(22);
    const int64_t B = 3, H = 4;
    auto normal = [&](const Shape& s, real std) { return Tensor::normal(s, 0, std, gen); };
    GradcheckReport r = gradcheck([](const std::vector<Var>& v) { return rnn_step(v[0], v[1], v[2], v[3]); },
                                  {normal({B, H}, 1), normal({B, H}, 0.5), normal({H, H}, 0.5), normal({H}, 0.5)},
                                  {.name = "rnn_step"});
    INFO(r.str());
    CHECK(r.ok);
    GradcheckReport g = gradcheck([](const std::vector<Var>& v) { return gru_step(v[0], v[1], v[2], v[3]); },
                                  {normal({B, 3 * H}, 1), normal({B, H}, 0.5), normal({3 * H, H}, 0.5),
                                   normal({3 * H}, 0.5)},
                                  {.name = "gru_step"});
    INFO(g.str());
    CHECK(g.ok);
    GradcheckReport l = gradcheck([](const std::vector<Var>& v) { return lstm_step(v[0], v[1], v[2], v[3], v[4]); },
                                  {normal({B, 4 * H}, 1), normal({B, H}, 0.5), normal({B, H}, 0.5),
                                   normal({4 * H, H}, 0.5), normal({4 * H}, 0.5)},
                                  {.name = "lstm_step"});
    INFO(l.str());
    CHECK(l.ok);
  }

  TEST_CASE("gradcheck: the fused steps reading step t of a (B, S, GH) projection in place" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(25);
    const int64_t B = 3, S = 3, H = 4;
    auto normal = [&](const Shape& s, real std) { return Tensor::normal(s, 0, std, gen); };
    for (int64_t t : {0, 2}) {
      CAPTURE(t);
      GradcheckReport r = gradcheck([t](const std::vector<Var>& v) { return rnn_step(v[0], v[1], v[2], v[3], t); },
                                    {normal({B, S, H}, 1), normal({B, H}, 0.5), normal({H, H}, 0.5), normal({H}, 0.5)},
                                    {.name = "rnn_step at t"});
      INFO(r.str());
      CHECK(r.ok);
      GradcheckReport g = gradcheck([t](const std::vector<Var>& v) { return gru_step(v[0], v[1], v[2], v[3], t); },
                                    {normal({B, S, 3 * H}, 1), normal({B, H}, 0.5), normal({3 * H, H}, 0.5),
                                     normal({3 * H}, 0.5)},
                                    {.name = "gru_step at t"});
      INFO(g.str());
      CHECK(g.ok);
      GradcheckReport l = gradcheck(
          [t](const std::vector<Var>& v) { return lstm_step(v[0], v[1], v[2], v[3], v[4], t); },
          {normal({B, S, 4 * H}, 1), normal({B, H}, 0.5), normal({B, H}, 0.5), normal({4 * H, H}, 0.5),
           normal({4 * H}, 0.5)},
          {.name = "lstm_step at t"});
      INFO(l.str());
      CHECK(l.ok);
    }
    Var h(Tensor::zeros({B, H})), w(Tensor::zeros({3 * H, H})), b(Tensor::zeros({3 * H}));
    CHECK_THROWS_WITH_AS(gru_step(Var(Tensor::zeros({B, S, 3 * H})), h, w, b, S), doctest::Contains("at step 3"), Error);
  }

  TEST_CASE("a fused step is one graph node, and none under no-grad") {
    Generator gen(23);
    GRUCell cell(3, 5, gen);
    Var projected = cell.input_projection(Var(Tensor::normal({2, 1, 3}, 0, 1, gen)));  // (B, S = 1, 3H)
    Var xp = reshape(projected, {2, 15});
    State s = cell.zero_state(2);
    int64_t before = Node::live_count();
    State fused = cell.step_at(projected, 0, s);
    CHECK(Node::live_count() - before == 1);
    CHECK(std::string(fused.h.op()) == "gru_step");
    State composed = cell.step_composed(xp, s);
    CHECK(Node::live_count() - before > 10);  // the composed step keeps a dozen nodes alive
    NoGradGuard no_grad;
    State plain = cell.step_at(projected, 0, s);
    CHECK(std::string(plain.h.op()) == "leaf");
    CHECK(!plain.h.requires_grad());
    CHECK(equal(plain.h.value(), fused.h.value()));
  }

  TEST_CASE("a fused step computes each row on its own: bit-identical alone or in a batch") {
    Generator gen(24);
    for (const char* kind : {"rnn", "gru", "lstm"}) {
      const std::string name = kind;
      CAPTURE(name);
      auto cell = make_cell(kind, 3, 6, gen);
      State s = cell->zero_state(5);
      s.h = Var(Tensor::normal({5, 6}, 0, 0.5, gen));
      if (s.c.defined()) s.c = Var(Tensor::normal({5, 6}, 0, 0.5, gen));
      Var x(Tensor::normal({5, 3}, 0, 1, gen));
      State all = cell->step(x, s);
      for (int64_t b = 0; b < 5; ++b) {
        State row{slice(s.h, 0, b, b + 1), s.c.defined() ? slice(s.c, 0, b, b + 1) : Var()};
        State one = cell->step(slice(x, 0, b, b + 1), row);
        CHECK(equal(one.h.value(), slice(all.h.value(), 0, b, b + 1)));
        if (s.c.defined()) CHECK(equal(one.c.value(), slice(all.c.value(), 0, b, b + 1)));
      }
    }
  }

  TEST_CASE("fused step errors name the op and the shapes") {
    Var h(Tensor::zeros({2, 4})), w(Tensor::zeros({12, 4})), b(Tensor::zeros({12}));
    CHECK_THROWS_WITH_AS(gru_step(Var(Tensor::zeros({2, 9})), h, w, b),
                         doctest::Contains("gru_step: xp [2, 9], h [2, 4], weight_hh [12, 4], bias_hh [12] must be "
                                           "(B, 3H), (B, H), (3H, H), (3H)"),
                         Error);
    CHECK_THROWS_WITH_AS(rnn_step(Var(Tensor::zeros({2, 4})), h, w, b), doctest::Contains("rnn_step: xp [2, 4]"),
                         Error);
    CHECK_THROWS_WITH_AS(lstm_step(Var(Tensor::zeros({2, 16})), h, Var(Tensor::zeros({3, 4})),
                                   Var(Tensor::zeros({16, 4})), Var(Tensor::zeros({16}))),
                         doctest::Contains("lstm_step: xp [2, 16], h [2, 4], c [3, 4]"), Error);
  }
}
