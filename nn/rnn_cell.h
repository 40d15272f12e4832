// Recurrent cells with PyTorch's equations, gate order, parameter names and shapes, and
// default initialisation U(-1/sqrt(H), 1/sqrt(H)):
//   weight_ih (G*H, I), weight_hh (G*H, H), bias_ih (G*H), bias_hh (G*H)
// with G = 1 (rnn, tanh), 3 (gru: r, z, n) or 4 (lstm: i, f, g, o). A state is h (B, H), plus
// the memory c (B, H) for an LSTM. step_composed() builds a step from autograd ops, so a reader
// sees the equations line by line; step() and step_at() run the same equations as one fused graph
// node with a hand-written backward (rnn_step, gru_step, lstm_step below), held equal to it by
// tests/nn/ch05_fused_test.cpp.
#pragma once

#include <memory>
#include <string>

#include "nn/module.h"
#include "tensor/random.h"

namespace heed {

struct State {
  Var h;  // (B, H)
  Var c;  // (B, H), LSTM only; empty otherwise
};

// The three cells, as PyTorch's nn.RNNCell, nn.GRUCell and nn.LSTMCell.
enum class CellKind { kRnn, kGru, kLstm };
// "rnn", "gru" or "lstm": the name --cell and a checkpoint's metadata use.
const char* cell_name(CellKind kind);

// A cell's three ways to take a step, all from the same weights:
//   step(x, s)               from an input x (B, I): a decoder, one step at a time
//   step_at(projected, t, s) from step t of the input projection of every step (B, S, G*H),
//                            read where it lies: an encoder, whose inputs are all known at once
//   step_composed(xp, s)     from a projected input xp (B, G*H), composed from autograd ops: the
//                            equations as a reader checks them, and the tests' oracle
// The first two run the fused op of the cell's kind (rnn_step, gru_step, lstm_step).
class Cell : public Module {
 public:
  // x W_ih^T + b_ih for any number of leading axes: (..., I) -> (..., G*H). An encoder
  // computes it for all time steps at once and hands it to step_at().
  Var input_projection(const Var& x) const;
  // One step from the input x (B, I) and the previous state: input_projection, then the fused op.
  State step(const Var& x, const State& s) const;
  // The same step reading step t of a projection of every step, (B, S, G*H), where it lies: an
  // encoder's loop, with no per-step copy of the slice. REQUIRES: 0 <= t < S (else heed::Error).
  State step_at(const Var& projected, int64_t t, const State& s) const;
  // The same step from a projected input xp (B, G*H), composed from autograd ops: the readable
  // reference, and the tests' oracle.
  virtual State step_composed(const Var& xp, const State& s) const = 0;
  State zero_state(int64_t batch) const;  // h = 0, and c = 0 for an LSTM

  CellKind kind() const { return kind_; }
  const char* name() const { return cell_name(kind_); }
  int64_t input_size() const { return input_size_; }
  int64_t hidden_size() const { return hidden_size_; }

  Var weight_ih;  // (G*H, I)
  Var weight_hh;  // (G*H, H)
  Var bias_ih;    // (G*H)
  Var bias_hh;    // (G*H)

 protected:
  Cell(CellKind kind, int64_t input_size, int64_t hidden_size, Generator& gen);

  int64_t input_size_, hidden_size_;
  // xp is (B, G*H) when t < 0, else (B, S, G*H) with t < S.
  void check_step(const Var& xp, const State& s, int64_t t = -1) const;
  void check_memory(const State& s) const;  // an LSTM's state holds c, shaped as h

 private:
  // The fused op of the cell's kind on xp as check_step describes it (checked before).
  State fused_step(const Var& xp, int64_t t, const State& s) const;

  CellKind kind_;
};

// h' = tanh(W_ih x + b_ih + W_hh h + b_hh)
class RNNCell : public Cell {
 public:
  RNNCell(int64_t input_size, int64_t hidden_size, Generator& gen)
      : Cell(CellKind::kRnn, input_size, hidden_size, gen) {}
  State step_composed(const Var& xp, const State& s) const override;
};

// r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
// z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
// n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
// h' = (1 - z) * n + z * h
class GRUCell : public Cell {
 public:
  GRUCell(int64_t input_size, int64_t hidden_size, Generator& gen)
      : Cell(CellKind::kGru, input_size, hidden_size, gen) {}
  State step_composed(const Var& xp, const State& s) const override;
};

// i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of (W_ih x + b_ih + W_hh h + b_hh)
// c' = f * c + i * g
// h' = o * tanh(c')
class LSTMCell : public Cell {
 public:
  LSTMCell(int64_t input_size, int64_t hidden_size, Generator& gen)
      : Cell(CellKind::kLstm, input_size, hidden_size, gen) {}
  State step_composed(const Var& xp, const State& s) const override;
};

// The fused steps, one graph node each with a hand-written backward, running the equations above
// (step_composed is their reference). xp = x W_ih^T + b_ih (B, G*H); h, c (B, H); weight_hh
// (G*H, H); bias_hh (G*H). With t >= 0, xp is instead the projection of every step, (B, S, G*H),
// and the step reads its rows at step t where they lie (no copy), its gradient added in place into
// those rows of xp's. Each row of the batch is computed on its own, so a row's result never
// depends on the others. backward() reads h, c and weight_hh from the graph instead of copying
// them. REQUIRES: their values are not changed in place between the step and backward() (an
// optimiser updates after it).

// h' = tanh(xp + h W_hh^T + b_hh): (B, H).
Var rnn_step(const Var& xp, const Var& h, const Var& weight_hh, const Var& bias_hh, int64_t t = -1);

// The GRU's h' (gates r, z, n, as PyTorch): (B, H).
Var gru_step(const Var& xp, const Var& h, const Var& weight_hh, const Var& bias_hh, int64_t t = -1);

// The LSTM's new state side by side, [h' | c']: (B, 2H). A node holds one value, so the two
// halves are taken apart with slice() (Cell::step and step_at do).
Var lstm_step(const Var& xp, const Var& h, const Var& c, const Var& weight_hh, const Var& bias_hh, int64_t t = -1);

// kind is "rnn", "gru" or "lstm" (cell_name); anything else is a heed::Error listing those.
std::unique_ptr<Cell> make_cell(const std::string& kind, int64_t input_size, int64_t hidden_size, Generator& gen);

}  // namespace heed
