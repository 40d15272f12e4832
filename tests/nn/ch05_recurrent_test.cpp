// Chapter 05: recurrent cells and the encoder that unrolls them.
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "nn/encoder.h"
#include "tests/support/chapter_check.h"
#include "nn/rnn_cell.h"
#include "tensor/random.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

// The formula of tests/golden/cells.py: 0.5 sin(0.7 i + k) in row-major order.
Tensor fill(const Shape& shape, int k) {
  Tensor t = Tensor::zeros(shape);
  for (int64_t i = 0; i < t.numel(); ++i) t[i] = 0.5 * std::sin(0.7 * static_cast<real>(i) + k);
  return t;
}

void set_golden_weights(Cell& cell) {
  cell.weight_ih.value() = fill(cell.weight_ih.shape(), 1);
  cell.weight_hh.value() = fill(cell.weight_hh.shape(), 2);
  cell.bias_ih.value() = fill(cell.bias_ih.shape(), 3);
  cell.bias_hh.value() = fill(cell.bias_hh.shape(), 4);
}

void check_close(const Tensor& got, const std::vector<real>& want, real tol) {
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    CHECK(std::fabs(got[i] - want[i]) <= tol);
  }
}

std::vector<Var> with(std::vector<Var> params, std::initializer_list<Var> more) {
  params.insert(params.end(), more);
  return params;
}

}  // namespace

TEST_SUITE("ch05_recurrent") {
  TEST_CASE("each cell equals PyTorch's to 1e-12 (golden values from tests/golden/cells.py)" * DOUBLE_ONLY(kPytorchFp64Reason)) {
    Generator gen(0);
    Var x(fill({2, 3}, 5)), h(fill({2, 4}, 6)), c(fill({2, 4}, 7));
    SUBCASE("rnn") {
      RNNCell cell(3, 4, gen);
      set_golden_weights(cell);
      check_close(cell.step(x, {h, Var()}).h.value(),
                  {-0.71751119947731778, -0.53657352249345303, -0.49256770729144833, -0.79669137550071101,
                   0.53789319795286694, -0.87800777713452782, -0.73255438747606905, 0.015800873162427558},
                  1e-12);
    }
    SUBCASE("gru") {
      GRUCell cell(3, 4, gen);
      set_golden_weights(cell);
      check_close(cell.step(x, {h, Var()}).h.value(),
                  {0.16222211004347364, -0.067481771414986402, 0.24767176204065844, 0.15496003356694654,
                   0.01310871206874914, 0.15056227716057863, -0.44307681838559532, -0.5408134513690136},
                  1e-12);
    }
    SUBCASE("lstm") {
      LSTMCell cell(3, 4, gen);
      set_golden_weights(cell);
      State s = cell.step(x, {h, c});
      check_close(s.h.value(),
                  {0.10128148661496982, 0.019747825136891373, 0.077504240559444548, -0.029048055556098965,
                   -0.13689726249866616, -0.069495080462720654, -0.36540524695045146, -0.37774481166944068},
                  1e-12);
      check_close(s.c.value(),
                  {0.4136765013681476, 0.03263431203850814, 0.12977865829612092, -0.039385141741831886,
                   -0.28226582603211126, -0.18580315758449661, -0.60784743373844896, -0.57162250891585198},
                  1e-12);
    }
  }

  TEST_CASE("cells have PyTorch's parameter names, shapes and initialisation bound") {
    Generator gen(3);
    for (auto [kind, gates] : {std::pair{"rnn", 1}, {"gru", 3}, {"lstm", 4}}) {
      auto cell = make_cell(kind, 5, 16, gen);
      auto named = cell->named_parameters();
      REQUIRE(named.size() == 4);
      CHECK(named[0].first == "weight_ih");
      CHECK(named[1].first == "weight_hh");
      CHECK(named[2].first == "bias_ih");
      CHECK(named[3].first == "bias_hh");
      CHECK(named[0].second.shape() == Shape{gates * 16, 5});
      CHECK(named[1].second.shape() == Shape{gates * 16, 16});
      CHECK(named[2].second.shape() == Shape{gates * 16});
      for (auto& [name, v] : named)
        for (real w : v.value().values()) CHECK(std::fabs(w) <= 0.25);  // 1/sqrt(16)
    }
    CHECK_THROWS_WITH_AS(make_cell("transformer", 2, 2, gen), doctest::Contains("choose rnn, gru or lstm"), Error);
  }

  TEST_CASE("a cell's kind: the enum it dispatches on, its name, and the memory only an LSTM keeps") {
    Generator gen(4);
    const std::pair<CellKind, std::string> kinds[] = {{CellKind::kRnn, "rnn"}, {CellKind::kGru, "gru"},
                                                       {CellKind::kLstm, "lstm"}};
    for (const auto& k : kinds) {
      const CellKind kind = k.first;
      const std::string name = k.second;
      CAPTURE(name);
      CHECK(cell_name(kind) == name);
      auto cell = make_cell(name, 2, 3, gen);
      CHECK(cell->kind() == kind);
      CHECK(cell->name() == name);
      State s = cell->zero_state(2);
      CHECK(s.h.shape() == Shape{2, 3});
      CHECK(s.c.defined() == (kind == CellKind::kLstm));
      // The fused step is the kind's op; an LSTM's state is the two halves of lstm_step's value.
      State next = cell->step(Var(Tensor::ones({2, 2}), true), s);
      CHECK(std::string(next.h.op()) == (kind == CellKind::kLstm ? "slice" : name + "_step"));
      CHECK(next.c.defined() == (kind == CellKind::kLstm));
      // The messages name the cell.
      const std::string message = name + " cell: input";
      CHECK_THROWS_WITH_AS(cell->step(Var(Tensor::ones({2, 5})), s), doctest::Contains(message.c_str()), Error);
    }
    CHECK(std::string(RNNCell(1, 1, gen).name()) == "rnn");
    CHECK(GRUCell(1, 1, gen).kind() == CellKind::kGru);
    CHECK(LSTMCell(1, 1, gen).kind() == CellKind::kLstm);
  }

  TEST_CASE("gradcheck: each cell w.r.t. input, state and every parameter" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(11);
    for (const char* kind : {"rnn", "gru", "lstm"}) {
      auto cell = make_cell(kind, 3, 4, gen);
      Var x(Tensor::normal({2, 3}, 0, 1, gen), true), h(Tensor::normal({2, 4}, 0, 0.5, gen), true);
      Var c(Tensor::normal({2, 4}, 0, 0.5, gen), true);
      bool lstm = std::string(kind) == "lstm";
      auto f = [&] {
        State s = cell->step(x, {h, lstm ? c : Var()});
        return lstm ? concat({s.h, s.c}, 1) : s.h;
      };
      auto inputs = with(cell->parameters(), {x, h});
      if (lstm) inputs.push_back(c);
      GradcheckReport r = gradcheck(f, inputs, {.name = std::string(kind) + " cell"});
      INFO(r.str());
      CHECK(r.ok);
    }
  }

  TEST_CASE("gradcheck: the unrolled encoder over 6 steps with padding, one and two directions" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(12);
    for (const char* kind : {"rnn", "gru", "lstm"})
      for (bool bi : {false, true}) {
        RecurrentEncoder enc(kind, 2, 3, bi, gen);
        Var x(Tensor::normal({3, 6, 2}, 0, 1, gen), true);
        std::vector<int64_t> lengths{6, 2, 4};
        auto f = [&] {
          EncoderOutput out = enc.forward(x, lengths);
          return concat({reshape(out.states, {3, -1}), out.last.h}, 1);
        };
        GradcheckReport r = gradcheck(f, with(enc.parameters(), {x}),
                                      {.name = std::string(kind) + (bi ? " bidirectional" : "") + " encoder"});
        INFO(r.str());
        CHECK(r.ok);
      }
  }

  TEST_CASE("padding is exact: a sequence alone or padded beside longer ones, both directions") {
    Generator gen(13);
    for (const char* kind : {"rnn", "gru", "lstm"})
      for (bool bi : {false, true}) {
        CAPTURE(kind);
        CAPTURE(bi);
        RecurrentEncoder enc(kind, 3, 4, bi, gen);
        const int64_t L = 3, S = 7;
        Tensor seq = Tensor::normal({1, L, 3}, 0, 1, gen);
        // Alone.
        Var alone(seq, true);
        EncoderOutput a = enc.forward(alone, {L});
        sum(a.states * a.states).backward();
        std::vector<Tensor> grads_alone;
        for (Var& p : enc.parameters()) grads_alone.push_back(p.grad());
        enc.zero_grad();
        // Second in a batch of three, padded to S with garbage that must not matter.
        Tensor batch = Tensor::normal({3, S, 3}, 0, 1, gen);
        for (int64_t t = 0; t < L; ++t)
          for (int64_t i = 0; i < 3; ++i) batch.at({1, t, i}) = seq.at({0, t, i});
        Var padded(batch, true);
        EncoderOutput b = enc.forward(padded, {S, L, 5});
        Var mine = slice(slice(b.states, 0, 1, 2), 1, 0, L);  // its real positions
        sum(mine * mine).backward();
        CHECK(equal(mine.value(), a.states.value()));
        CHECK(equal(slice(b.last.h.value(), 0, 1, 2), a.last.h.value()));
        for (int64_t t = L; t < S; ++t)  // padded positions are exactly zero
          for (int64_t k = 0; k < enc.output_size(); ++k) CHECK(b.states.value().at({1, t, k}) == 0);
        CHECK(equal(slice(slice(padded.grad(), 0, 1, 2), 1, 0, L), alone.grad()));
        for (int64_t t = L; t < S; ++t)  // nothing flows into padding
          for (int64_t i = 0; i < 3; ++i) CHECK(padded.grad().at({1, t, i}) == 0);
        // Parameters: the batch also holds two other sequences, so compare a batch whose
        // other rows contribute nothing to the loss only through the parameters' shares.
        auto params = enc.parameters();
        for (size_t i = 0; i < params.size(); ++i) CHECK(equal(params[i].grad(), grads_alone[i]));
        enc.zero_grad();
      }
  }

  TEST_CASE("a 1,000-step sequence runs forward and backward") {
    Generator gen(14);
    RecurrentEncoder enc("gru", 2, 8, false, gen);
    Var x(Tensor::normal({2, 1000, 2}, 0, 1, gen), true);
    EncoderOutput out = enc.forward(x, {1000, 700});
    sum(out.last.h).backward();
    CHECK(out.states.shape() == Shape{2, 1000, 8});
    CHECK(std::isfinite(sum(x.grad()).item()));
    CHECK(x.grad().at({1, 699, 0}) != 0);
    CHECK(x.grad().at({1, 700, 0}) == 0);
  }

  TEST_CASE("where: forward, gradient to the chosen side, and shape errors" * DOUBLE_ONLY(kGradcheckReason)) {
    Tensor cond({2, 1}, {1, 0});
    Var a(Tensor({2, 2}, {1, 2, 3, 4}), true), b(Tensor({2, 2}, {5, 6, 7, 8}), true);
    Var y = where(cond, a, b);
    CHECK(y.value().to_vector() == std::vector<real>{1, 2, 7, 8});
    sum(y * Var(Tensor({2, 2}, {1, 2, 3, 4}))).backward();
    CHECK(a.grad().to_vector() == std::vector<real>{1, 2, 0, 0});
    CHECK(b.grad().to_vector() == std::vector<real>{0, 0, 3, 4});
    Generator gen(15);
    GradcheckReport r = gradcheck([&](const std::vector<Var>& v) { return where(cond, v[0] * v[1], v[1]); },
                                  {Tensor::normal({2, 3}, 0, 1, gen), Tensor::normal({2, 3}, 0, 1, gen)},
                                  {.name = "where"});
    INFO(r.str());
    CHECK(r.ok);
    CHECK_THROWS_WITH_AS(where(Tensor::ones({3}), a, b), doctest::Contains("where: shapes [3] and [2, 2] do not broadcast"), Error);
    CHECK_THROWS_WITH_AS(where(cond, a, Var(Tensor::ones({2, 3}))), doctest::Contains("where: shapes [2, 2] and [2, 3]"),
                         Error);
  }

  TEST_CASE("encoder errors name the shapes and lengths") {
    Generator gen(16);
    RecurrentEncoder enc("gru", 3, 4, false, gen);
    CHECK_THROWS_WITH_AS(enc.forward(Var(Tensor::zeros({2, 5, 4})), {5, 5}),
                         doctest::Contains("encoder: inputs [2, 5, 4] must be (B, S, 3)"), Error);
    CHECK_THROWS_WITH_AS(enc.forward(Var(Tensor::zeros({2, 5, 3})), {5, 6}),
                         doctest::Contains("length 6 of sequence 1 is outside [1, 5]"), Error);
    CHECK_THROWS_WITH_AS(enc.forward(Var(Tensor::zeros({2, 5, 3})), {0, 5}), doctest::Contains("length 0"), Error);
    GRUCell cell(3, 4, gen);
    CHECK_THROWS_WITH_AS(cell.step(Var(Tensor::zeros({2, 3})), {Var(Tensor::zeros({3, 4})), Var()}),
                         doctest::Contains("gru cell"), Error);
  }
}

TEST_SUITE("ch05_recurrent") {
  TEST_CASE("chapter 05 shows what its program prints" * DOUBLE_ONLY(kChapterTextReason)) { check_chapter("tutorials/05_recurrent_cells"); }
}
