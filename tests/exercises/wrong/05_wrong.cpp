// Chapter 05: the solutions registered for the self-test, and wrong answers its checks must reject.
#include "exercises/check/05_check.h"
// The solution, compiled here in namespace heed::solution (one translation unit for both).
#define student solution
#include "exercises/solutions/05_recurrent_cells/exercises.cpp"
#undef student

namespace heed::check {
namespace {

// z and 1 - z swapped: h' = z n + (1 - z) h.
Var gru_z_swapped(const Var& x, const Var& h, const Var& W_ih, const Var& W_hh, const Var& b_ih, const Var& b_hh) {
  const int64_t H = h.shape()[1];
  Var xp = matmul_nt(x, W_ih) + b_ih, hp = matmul_nt(h, W_hh) + b_hh;
  Var r = sigmoid(slice(xp, 1, 0, H) + slice(hp, 1, 0, H));
  Var z = sigmoid(slice(xp, 1, H, 2 * H) + slice(hp, 1, H, 2 * H));
  Var n = tanh(slice(xp, 1, 2 * H, 3 * H) + r * slice(hp, 1, 2 * H, 3 * H));
  return z * n + (1.0 - z) * h;
}
// Wrong only at larger sizes (tests/exercises/yours_sizes_test.cpp also links it into make yours-test): the
// step computed in blocks of 32 hidden units, and every block mixes in the first block of h (the
// block's offset into h dropped). Right for H up to 32.
Var gru_blocked_32(const Var& x, const Var& h, const Var& W_ih, const Var& W_hh, const Var& b_ih, const Var& b_hh) {
  const int64_t H = h.shape()[1];
  Var xp = matmul_nt(x, W_ih) + b_ih, hp = matmul_nt(h, W_hh) + b_hh;
  std::vector<Var> blocks;
  for (int64_t j0 = 0; j0 < H; j0 += 32) {
    const int64_t j1 = std::min<int64_t>(H, j0 + 32);
    Var r = sigmoid(slice(xp, 1, j0, j1) + slice(hp, 1, j0, j1));
    Var z = sigmoid(slice(xp, 1, H + j0, H + j1) + slice(hp, 1, H + j0, H + j1));
    Var n = tanh(slice(xp, 1, 2 * H + j0, 2 * H + j1) + r * slice(hp, 1, 2 * H + j0, 2 * H + j1));
    blocks.push_back((1.0 - z) * n + z * slice(h, 1, 0, j1 - j0));
  }
  return concat(blocks, 1);
}
// b_hn outside the reset gate: n = tanh(W_in x + b_in + r * (W_hn h) + b_hn). The paper writes no
// biases, so this is not its form either; it differs from PyTorch's wherever r != 1.
Var gru_bias_outside(const Var& x, const Var& h, const Var& W_ih, const Var& W_hh, const Var& b_ih, const Var& b_hh) {
  const int64_t H = h.shape()[1];
  Var xp = matmul_nt(x, W_ih) + b_ih, hp = matmul_nt(h, W_hh);
  Var bh = reshape(b_hh, {1, 3 * H});
  Var r = sigmoid(slice(xp, 1, 0, H) + slice(hp, 1, 0, H) + slice(bh, 1, 0, H));
  Var z = sigmoid(slice(xp, 1, H, 2 * H) + slice(hp, 1, H, 2 * H) + slice(bh, 1, H, 2 * H));
  Var n = tanh(slice(xp, 1, 2 * H, 3 * H) + r * slice(hp, 1, 2 * H, 3 * H) + slice(bh, 1, 2 * H, 3 * H));
  return (1.0 - z) * n + z * h;
}
// Gates read in the order (i, f, o, g).
std::pair<Var, Var> lstm_gate_order(const Var& x, const Var& h, const Var& c, const Var& W_ih, const Var& W_hh,
                                    const Var& b_ih, const Var& b_hh) {
  const int64_t H = h.shape()[1];
  Var gates = matmul_nt(x, W_ih) + b_ih + matmul_nt(h, W_hh) + b_hh;
  Var i = sigmoid(slice(gates, 1, 0, H)), f = sigmoid(slice(gates, 1, H, 2 * H));
  Var o = sigmoid(slice(gates, 1, 2 * H, 3 * H)), g = tanh(slice(gates, 1, 3 * H, 4 * H));
  Var c2 = f * c + i * g;
  return {o * tanh(c2), c2};
}
// h' = o * c' (no tanh on the memory).
std::pair<Var, Var> lstm_no_tanh(const Var& x, const Var& h, const Var& c, const Var& W_ih, const Var& W_hh,
                                 const Var& b_ih, const Var& b_hh) {
  auto [h2, c2] = heed::solution::lstm_step(x, h, c, W_ih, W_hh, b_ih, b_hh);
  const int64_t H = h.shape()[1];
  Var gates = matmul_nt(x, W_ih) + b_ih + matmul_nt(h, W_hh) + b_hh;
  return {sigmoid(slice(gates, 1, 3 * H, 4 * H)) * c2, c2};
}
// The padding forgotten: every row runs all S steps.
Var last_state_unmasked(const Cell& cell, const Var& x, const std::vector<int64_t>&) {
  const int64_t B = x.shape()[0], S = x.shape()[1], I = x.shape()[2];
  State s = cell.zero_state(B);
  for (int64_t t = 0; t < S; ++t) s.h = cell.step(reshape(slice(x, 1, t, t + 1), {B, I}), s).h;
  return s.h;
}
// Masking by multiplication: a padded step zeroes the state instead of keeping it.
Var last_state_zeroed(const Cell& cell, const Var& x, const std::vector<int64_t>& lengths) {
  const int64_t B = x.shape()[0], S = x.shape()[1], I = x.shape()[2];
  State s = cell.zero_state(B);
  for (int64_t t = 0; t < S; ++t) {
    Tensor m = Tensor::zeros({B, 1});
    for (int64_t b = 0; b < B; ++b) m[b] = t < lengths[b] ? 1 : 0;
    s.h = cell.step(reshape(slice(x, 1, t, t + 1), {B, I}), s).h * Var(m);
  }
  return s.h;
}

Impl05 solution() { return HEED_IMPL_05(heed::solution); }
template <class F>
std::function<std::vector<Exercise>()> with(F change) {
  return [change] {
    Impl05 impl = solution();
    change(impl);
    return exercises_05(impl);
  };
}

Register sol({"05", "exercises/05_recurrent_cells", "solution", [] { return exercises_05(solution()); }});
RegisterWrong w1({"05", "gru_step", "z swapped", with([](Impl05& i) { i.gru_step = gru_z_swapped; })});
RegisterWrong w2({"05", "gru_step", "b_hn outside r", with([](Impl05& i) { i.gru_step = gru_bias_outside; })});
RegisterWrong w2b({"05", "gru_step", "blocks of 32 units, h's offset dropped",
                   with([](Impl05& i) { i.gru_step = gru_blocked_32; }), "gru_step differs"});
RegisterWrong w3({"05", "lstm_step", "gate order i f o g", with([](Impl05& i) { i.lstm_step = lstm_gate_order; })});
RegisterWrong w4({"05", "lstm_step", "no tanh on c'", with([](Impl05& i) { i.lstm_step = lstm_no_tanh; })});
RegisterWrong w5({"05", "last_state", "no mask", with([](Impl05& i) { i.last_state = last_state_unmasked; })});
RegisterWrong w6({"05", "last_state", "mask zeroes the state", with([](Impl05& i) { i.last_state = last_state_zeroed; })});

}  // namespace
}  // namespace heed::check
