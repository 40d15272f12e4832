#include "nn/rnn_cell.h"

#include <cmath>

#include "autograd/functions.h"
#include "nn/fused_cells.h"

namespace heed {

Cell::Cell(int64_t gates, int64_t input_size, int64_t hidden_size, Generator& gen)
    : input_size_(input_size), hidden_size_(hidden_size) {
  if (input_size < 1 || hidden_size < 1)
    throw Error("Cell: input size " + std::to_string(input_size) + " and hidden size " +
                std::to_string(hidden_size) + " must be positive");
  // PyTorch: every weight and bias ~ U(-1/sqrt(H), 1/sqrt(H)), in this order.
  real bound = 1 / std::sqrt(static_cast<real>(hidden_size));
  int64_t gh = gates * hidden_size;
  weight_ih = register_parameter("weight_ih", Tensor::uniform({gh, input_size}, -bound, bound, gen));
  weight_hh = register_parameter("weight_hh", Tensor::uniform({gh, hidden_size}, -bound, bound, gen));
  bias_ih = register_parameter("bias_ih", Tensor::uniform({gh}, -bound, bound, gen));
  bias_hh = register_parameter("bias_hh", Tensor::uniform({gh}, -bound, bound, gen));
}

Var Cell::input_projection(const Var& x) const {
  if (x.value().dim() < 1 || x.shape().back() != input_size_)
    throw Error(kind() + " cell: input " + shape_str(x.shape()) + " must end in the input size " +
                std::to_string(input_size_));
  if (x.value().dim() == 2) return linear(x, weight_ih, bias_ih);  // x W_ih^T + b_ih
  Shape out = x.shape();
  out.back() = weight_ih.shape()[0];
  Var flat = reshape(x, {-1, input_size_});
  return reshape(linear(flat, weight_ih, bias_ih), out);
}

State Cell::zero_state(int64_t batch) const {
  State s{Var(Tensor::zeros({batch, hidden_size_})), Var()};
  if (kind() == "lstm") s.c = Var(Tensor::zeros({batch, hidden_size_}));
  return s;
}

void Cell::check_step(const Var& xp, const State& s) const {
  int64_t gh = weight_hh.shape()[0];
  if (xp.value().dim() != 2 || xp.shape()[1] != gh || !s.h.defined() || s.h.value().dim() != 2 ||
      s.h.shape()[0] != xp.shape()[0] || s.h.shape()[1] != hidden_size_)
    throw Error(kind() + " cell: projected input " + shape_str(xp.shape()) + " and state " +
                (s.h.defined() ? shape_str(s.h.shape()) : std::string("(none)")) + " must be (B, " +
                std::to_string(gh) + ") and (B, " + std::to_string(hidden_size_) + ")");
}

void LSTMCell::check_memory(const State& s) const {
  if (!s.c.defined() || s.c.shape() != s.h.shape())
    throw Error("lstm cell: the state needs a memory c of the shape of h " + shape_str(s.h.shape()));
}

State RNNCell::step_composed(const Var& xp, const State& s) const {
  check_step(xp, s);
  Var hp = matmul_nt(s.h, weight_hh) + bias_hh;  // (B, H)
  return {tanh(xp + hp), Var()};
}

State GRUCell::step_composed(const Var& xp, const State& s) const {
  check_step(xp, s);
  const int64_t H = hidden_size_;
  Var hp = matmul_nt(s.h, weight_hh) + bias_hh;  // (B, 3H)
  Var r = sigmoid(slice(xp, 1, 0, H) + slice(hp, 1, 0, H));
  Var z = sigmoid(slice(xp, 1, H, 2 * H) + slice(hp, 1, H, 2 * H));
  Var n = tanh(slice(xp, 1, 2 * H, 3 * H) + r * slice(hp, 1, 2 * H, 3 * H));
  return {(1.0 - z) * n + z * s.h, Var()};
}

State LSTMCell::step_composed(const Var& xp, const State& s) const {
  check_step(xp, s);
  check_memory(s);
  const int64_t H = hidden_size_;
  Var gates = xp + (matmul_nt(s.h, weight_hh) + bias_hh);  // (B, 4H)
  Var i = sigmoid(slice(gates, 1, 0, H));
  Var f = sigmoid(slice(gates, 1, H, 2 * H));
  Var g = tanh(slice(gates, 1, 2 * H, 3 * H));
  Var o = sigmoid(slice(gates, 1, 3 * H, 4 * H));
  Var c = f * s.c + i * g;
  return {o * tanh(c), c};
}

State RNNCell::step_projected(const Var& xp, const State& s) const {
  check_step(xp, s);
  return {rnn_step(xp, s.h, weight_hh, bias_hh), Var()};
}

State GRUCell::step_projected(const Var& xp, const State& s) const {
  check_step(xp, s);
  return {gru_step(xp, s.h, weight_hh, bias_hh), Var()};
}

State LSTMCell::step_projected(const Var& xp, const State& s) const {
  check_step(xp, s);
  check_memory(s);
  const int64_t H = hidden_size_;
  Var hc = lstm_step(xp, s.h, s.c, weight_hh, bias_hh);  // (B, 2H) = [h' | c']
  return {slice(hc, 1, 0, H), slice(hc, 1, H, 2 * H)};
}

std::unique_ptr<Cell> make_cell(const std::string& kind, int64_t input_size, int64_t hidden_size, Generator& gen) {
  if (kind == "rnn") return std::make_unique<RNNCell>(input_size, hidden_size, gen);
  if (kind == "gru") return std::make_unique<GRUCell>(input_size, hidden_size, gen);
  if (kind == "lstm") return std::make_unique<LSTMCell>(input_size, hidden_size, gen);
  throw Error("cell: unknown kind '" + kind + "' (choose rnn, gru or lstm)");
}

}  // namespace heed
