// The recurrent cells, read whole: the RNN, GRU and LSTM modules; each step composed from
// autograd ops (step_composed: the equations line by line, and the reference); and the same step
// fused into one graph node (rnn_step, gru_step, lstm_step), forward and hand-written backward with
// each derivative as a comment. tests/nn/ch05_fused_test.cpp holds fused and composed equal (values
// and every gradient) and gradchecks the fused steps. The fused steps share one matrix product,
// hp = h W_hh^T + b_hh (B, G*H), linear's value (tensor/matmul.cpp), through gemm
// (tensor/gemm_kernel.cpp; reference gemm_naive, held equal by tests/tensor/ch01_gemm_test.cpp); their gates
// are loops over a row with tanh_n and sigmoid_n (tensor/vmath_kernel.cpp; reference
// heed::math::tanh and sigmoid, bit for bit by tests/tensor/ch01_math_test.cpp).
// The GRU's and the LSTM's loops over the batch's rows run on the thread pool (tensor/threads.h):
// each row is computed whole on one thread, as the one-thread loop computes it, so any thread
// count gives the same bits (tests/tools/threads_same_bits_cli_test.cpp trains with 1, 2, 3 and 8).
#include "nn/rnn_cell.h"

#include <cmath>
#include <string>

#include "autograd/functions.h"
#include "tensor/gemm.h"
#include "tensor/ops.h"
#include "tensor/threads.h"
#include "tensor/vmath.h"

namespace heed {

const char* cell_name(CellKind kind) {
  switch (kind) {
    case CellKind::kRnn: return "rnn";
    case CellKind::kGru: return "gru";
    case CellKind::kLstm: return "lstm";
  }
  return "?";
}

Cell::Cell(CellKind kind, int64_t input_size, int64_t hidden_size, Generator& gen)
    : input_size_(input_size), hidden_size_(hidden_size), kind_(kind) {
  const int64_t gates = kind == CellKind::kRnn ? 1 : kind == CellKind::kGru ? 3 : 4;
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
    throw Error(std::string(name()) + " cell: input " + shape_str(x.shape()) + " must end in the input size " +
                std::to_string(input_size_));
  return linear(x, weight_ih, bias_ih);  // x W_ih^T + b_ih, leading axes read in place
}

State Cell::zero_state(int64_t batch) const {
  State s{Var(Tensor::zeros({batch, hidden_size_})), Var()};
  if (kind_ == CellKind::kLstm) s.c = Var(Tensor::zeros({batch, hidden_size_}));
  return s;
}

void Cell::check_step(const Var& xp, const State& s, int64_t t) const {
  const int64_t gh = weight_hh.shape()[0], dim = t < 0 ? 2 : 3;
  const Shape& xs = xp.shape();
  if (xp.value().dim() != dim || xs.back() != gh || (t >= 0 && t >= xs[1]) || !s.h.defined() ||
      s.h.value().dim() != 2 || s.h.shape()[0] != xs[0] || s.h.shape()[1] != hidden_size_)
    throw Error(std::string(name()) + " cell: projected input " + shape_str(xs) +
                (t < 0 ? "" : " at step " + std::to_string(t)) + " and state " +
                (s.h.defined() ? shape_str(s.h.shape()) : std::string("(none)")) + " must be (B, " +
                (t < 0 ? "" : "S > t, ") + std::to_string(gh) + ") and (B, " + std::to_string(hidden_size_) + ")");
}

State Cell::step(const Var& x, const State& s) const {
  Var xp = input_projection(x);
  check_step(xp, s);
  return fused_step(xp, -1, s);
}

State Cell::step_at(const Var& projected, int64_t t, const State& s) const {
  if (t < 0) throw Error(std::string(name()) + " cell: step " + std::to_string(t) + " is negative");
  check_step(projected, s, t);
  return fused_step(projected, t, s);
}

void Cell::check_memory(const State& s) const {
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

// ---- the fused steps: forward, then backward right below

namespace {

// Where a step's projected input lies: row b of xp at x + b * stride. For xp (B, GH), stride GH;
// for (B, S, GH) read at step t, the row starts at t GH and rows are S GH apart, so the step reads
// its slice in place instead of a copy of it per step.
struct StepInput {
  const real* x;           // the forward's rows (the backward reads only the layout below)
  int64_t stride, offset;  // offset: t GH, where the row's GH values start within its stride
  bool at_step;            // xp is (B, S, GH), read at one step
};

// Checks the shapes of a step with G gates (c may be null), xp (B, GH), or (B, S, GH) when t >= 0;
// returns H and where xp's rows are.
int64_t check_step(const char* op, int64_t G, const Var& xp, int64_t t, const Var& h, const Var* c, const Var& w,
                   const Var& b, StepInput& in) {
  const Tensor& hv = h.value();
  const Shape& xs = xp.shape();
  const int64_t H = hv.dim() == 2 ? hv.size(1) : -1, B = hv.dim() == 2 ? hv.size(0) : -1;
  const bool x_ok = t < 0 ? xs == Shape{B, G * H} : xs.size() == 3 && xs[0] == B && xs[2] == G * H && t < xs[1];
  bool ok = H > 0 && x_ok && w.shape() == Shape{G * H, H} && b.shape() == Shape{G * H} &&
            (c == nullptr || c->shape() == hv.shape());
  if (!ok) {
    std::string g = G == 1 ? "" : std::to_string(G);
    throw Error(std::string(op) + ": xp " + shape_str(xs) + (t < 0 ? "" : " at step " + std::to_string(t)) +
                ", h " + shape_str(hv.shape()) + (c ? ", c " + shape_str(c->shape()) : std::string()) +
                ", weight_hh " + shape_str(w.shape()) + ", bias_hh " + shape_str(b.shape()) + " must be (B, " +
                (t < 0 ? "" : "S > t, ") + g + "H), (B, H)" + (c ? ", (B, H)" : "") + ", (" + g + "H, H), (" + g +
                "H)");
  }
  in = {xp.value().data(), t < 0 ? G * H : xs[1] * G * H, t < 0 ? 0 : t * G * H, t >= 0};
  return H;
}

// dxp += d (B, GH): handed on whole for xp (B, GH); added in place into step t's rows of xp's
// gradient for (B, S, GH), which every step of the sequence fills in its own rows.
void add_step_input_grad(Backward& g, const StepInput& in, int64_t B, int64_t GH, Tensor d) {
  if (!in.at_step) {
    g.add(0, std::move(d));
    return;
  }
  real* dx = g.buffer(0).data() + in.offset;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t j = 0; j < GH; ++j) dx[b * in.stride + j] += d[b * GH + j];
}

// The rows per piece of a loop over the batch whose row costs about `per_row` values: pieces of
// at least 16384 values (configuration M's GRU, H 256, batch 64: three pieces; S's: one).
int64_t row_grain(int64_t per_row) { return 16384 / (per_row > 0 ? per_row : 1) + 1; }

// Every fused step starts from hp = h W_hh^T + b_hh (B, GH), the share of every gate that comes
// from the previous state: linear's value (tensor/ops.h), the same product and bias add as
// autograd's linear. Its backward is written here, not taken from linear's, for two reasons that
// change bits: b_hh's gradient is added row by row straight into the gradient that every step of
// an unrolled sequence shares (linear sums a call's rows from zero first, then adds the total),
// and the GRU's dh joins its other share z dh' inside the same product.
//
// The backward of hp = h W^T + b, for inputs h at ih, W at iw and b at iw + 1. When `add`, dh
// arrives holding h's other share (the GRU's z * dh') and dhp W is added to it; otherwise dh is
// scratch space of the right shape, overwritten.
void state_projection_backward(Backward& g, size_t ih, size_t iw, const Tensor& dhp, Tensor dh, bool add) {
  const Tensor& h = g.input(ih);  // (B, H)
  const Tensor& w = g.input(iw);  // (GH, H)
  const int64_t B = h.size(0), H = h.size(1), GH = w.size(0);
  if (g.wants(ih)) {
    gemm(false, false, B, H, GH, dhp.data(), w.data(), dh.data(), add);  // dh (+)= dhp W
    g.add(ih, std::move(dh));
  }
  if (g.wants(iw)) {  // dW += dhp^T h
    bool add = false;
    real* dw = g.target(iw, add).data();
    gemm(true, false, GH, H, B, dhp.data(), h.data(), dw, add);
  }
  if (g.wants(iw + 1)) {
    real* db = g.buffer(iw + 1).data();
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < GH; ++j) db[j] += dhp[b * GH + j];  // db += sum_b dhp
  }
}

}  // namespace

Var rnn_step(const Var& xp, const Var& h, const Var& weight_hh, const Var& bias_hh, int64_t t) {
  StepInput in;
  const int64_t H = check_step("rnn_step", 1, xp, t, h, nullptr, weight_hh, bias_hh, in), B = h.shape()[0];
  Tensor y = linear(h.value(), weight_hh.value(), &bias_hh.value());  // (B, H)
  for (int64_t b = 0; b < B; ++b) {
    const real* x = in.x + b * in.stride + in.offset;
    for (int64_t j = 0; j < H; ++j) y[b * H + j] += x[j];
  }
  tanh_n(y.data(), y.data(), B * H);
  // Saves nothing: the derivative needs only y, the node's own value.
  return make_var(std::move(y), "rnn_step", {xp, h, weight_hh, bias_hh}, [in, B, H](Backward& g) {
    Tensor da = g.grad();  // (B, H)
    const real* y = g.value().data();
    for (int64_t k = 0; k < B * H; ++k) da[k] *= std::fma(-y[k], y[k], 1);  // da = (1 - y^2) dy
    if (g.wants(0)) add_step_input_grad(g, in, B, H, da);  // dxp += da
    state_projection_backward(g, 1, 2, da, Tensor::empty({B, H}), false);
  });
}

Var gru_step(const Var& xp, const Var& h, const Var& weight_hh, const Var& bias_hh, int64_t t) {
  StepInput in;
  const int64_t H = check_step("gru_step", 3, xp, t, h, nullptr, weight_hh, bias_hh, in), B = h.shape()[0];
  Tensor hp = linear(h.value(), weight_hh.value(), &bias_hh.value());  // (B, 3H)
  Tensor y = Tensor::empty({B, H});
  // Saved per row: r, z, n and hp_n = W_hn h + b_hn (B, 4H), all backward needs besides h and W_hh.
  Tensor saved = Tensor::empty({B, 4 * H});
  parallel_for(B, row_grain(3 * H), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const real* x = in.x + b * in.stride + in.offset;
      const real* p = hp.data() + b * 3 * H;
      const real* hb = h.value().data() + b * H;
      real *r = saved.data() + b * 4 * H, *z = r + H, *n = r + 2 * H, *hp_n = r + 3 * H;
      for (int64_t j = 0; j < 2 * H; ++j) r[j] = x[j] + p[j];
      sigmoid_n(r, r, 2 * H);  // r and z, side by side
      for (int64_t j = 0; j < H; ++j) {
        hp_n[j] = p[2 * H + j];
        n[j] = std::fma(r[j], hp_n[j], x[2 * H + j]);
      }
      tanh_n(n, n, H);
      for (int64_t j = 0; j < H; ++j) y[b * H + j] = std::fma(1 - z[j], n[j], z[j] * hb[j]);
    }
  });
  auto backward = [saved = std::move(saved), in, B, H](Backward& g) {
    const Tensor& h = g.input(1);
    Tensor dxp = Tensor::empty({B, 3 * H});  // d(pre-activations) = dxp: (da_r, da_z, da_n)
    Tensor dhp = Tensor::empty({B, 3 * H});  // d(h W_hh^T + b_hh): (da_r, da_z, r da_n)
    Tensor dh = Tensor::empty({B, H});
    parallel_for(B, row_grain(3 * H), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const real* s = saved.data() + b * 4 * H;
        real* dx = dxp.data() + b * 3 * H;
        real* dp = dhp.data() + b * 3 * H;
        for (int64_t j = 0; j < H; ++j) {
          const real r = s[j], z = s[H + j], n = s[2 * H + j], hp_n = s[3 * H + j];
          const real dy = g.grad()[b * H + j], hj = h[b * H + j];
          dh[b * H + j] = z * dy;                             // dh += z dh'
          real da_n = (1 - z) * dy * std::fma(-n, n, 1);             // dn = (1 - z) dh';  da_n = (1 - n^2) dn
          real da_z = (hj - n) * dy * z * (1 - z);            // dz = (h - n) dh';  da_z = z (1 - z) dz
          real da_r = hp_n * da_n * r * (1 - r);              // dr = hp_n da_n;    da_r = r (1 - r) dr
          dx[j] = dp[j] = da_r;
          dx[H + j] = dp[H + j] = da_z;
          dx[2 * H + j] = da_n;
          dp[2 * H + j] = r * da_n;                           // dhp_n = r da_n
        }
      }
    });
    if (g.wants(0)) add_step_input_grad(g, in, B, 3 * H, std::move(dxp));
    state_projection_backward(g, 1, 2, dhp, std::move(dh), true);
  };
  return make_var(std::move(y), "gru_step", {xp, h, weight_hh, bias_hh}, std::move(backward));
}

Var lstm_step(const Var& xp, const Var& h, const Var& c, const Var& weight_hh, const Var& bias_hh, int64_t t) {
  StepInput in;
  const int64_t H = check_step("lstm_step", 4, xp, t, h, &c, weight_hh, bias_hh, in), B = h.shape()[0];
  Tensor hp = linear(h.value(), weight_hh.value(), &bias_hh.value());  // (B, 4H)
  Tensor y = Tensor::empty({B, 2 * H});  // [h' | c'] per row
  // Saved per row: i, f, g, o and tanh(c') (B, 5H), all backward needs besides c, h and W_hh.
  Tensor saved = Tensor::empty({B, 5 * H});
  parallel_for(B, row_grain(4 * H), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const real* x = in.x + b * in.stride + in.offset;
      const real* p = hp.data() + b * 4 * H;
      const real* cb = c.value().data() + b * H;
      real *i = saved.data() + b * 5 * H, *f = i + H, *g = i + 2 * H, *o = i + 3 * H, *tc = i + 4 * H;
      real *hn = y.data() + b * 2 * H, *cn = hn + H;
      for (int64_t j = 0; j < 4 * H; ++j) i[j] = x[j] + p[j];
      sigmoid_n(i, i, 2 * H);  // i and f, side by side
      tanh_n(g, g, H);
      sigmoid_n(o, o, H);
      for (int64_t j = 0; j < H; ++j) cn[j] = std::fma(f[j], cb[j], i[j] * g[j]);
      tanh_n(cn, tc, H);
      for (int64_t j = 0; j < H; ++j) hn[j] = o[j] * tc[j];
    }
  });
  auto backward = [saved = std::move(saved), in, B, H](Backward& g) {
    const Tensor& c = g.input(2);
    Tensor da = Tensor::empty({B, 4 * H});  // d(pre-activations) = dxp = dhp: (da_i, da_f, da_g, da_o)
    Tensor dc = Tensor::empty({B, H});
    parallel_for(B, row_grain(4 * H), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const real* s = saved.data() + b * 5 * H;
        const real* dy = g.grad().data() + b * 2 * H;
        real* d = da.data() + b * 4 * H;
        for (int64_t j = 0; j < H; ++j) {
          const real i = s[j], f = s[H + j], g = s[2 * H + j], o = s[3 * H + j], tc = s[4 * H + j];
          real dcn = std::fma(dy[j] * o, std::fma(-tc, tc, 1), dy[H + j]);  // dc' += o (1 - tanh(c')^2) dh'
          d[j] = dcn * g * i * (1 - i);                       // di = g dc';       da_i = i (1 - i) di
          d[H + j] = dcn * c[b * H + j] * f * (1 - f);        // df = c dc';       da_f = f (1 - f) df
          d[2 * H + j] = dcn * i * std::fma(-g, g, 1);               // dg = i dc';       da_g = (1 - g^2) dg
          d[3 * H + j] = dy[j] * tc * o * (1 - o);            // do = tanh(c') dh'; da_o = o (1 - o) do
          dc[b * H + j] = f * dcn;                            // dc += f dc'
        }
      }
    });
    if (g.wants(0)) add_step_input_grad(g, in, B, 4 * H, da);  // dxp += da
    if (g.wants(2)) g.add(2, std::move(dc));
    state_projection_backward(g, 1, 3, da, Tensor::empty({B, H}), false);
  };
  return make_var(std::move(y), "lstm_step", {xp, h, c, weight_hh, bias_hh}, std::move(backward));
}


// ---- the cells' steps, fused: step() and step_at() run the op of the cell's kind

State Cell::fused_step(const Var& xp, int64_t t, const State& s) const {
  switch (kind_) {
    case CellKind::kRnn: return {rnn_step(xp, s.h, weight_hh, bias_hh, t), Var()};
    case CellKind::kGru: return {gru_step(xp, s.h, weight_hh, bias_hh, t), Var()};
    case CellKind::kLstm: {
      check_memory(s);
      const int64_t H = hidden_size_;
      Var hc = lstm_step(xp, s.h, s.c, weight_hh, bias_hh, t);  // (B, 2H) = [h' | c']
      return {slice(hc, 1, 0, H), slice(hc, 1, H, 2 * H)};
    }
  }
  throw Error("cell: unknown kind");  // not reached: every CellKind is a case above
}

std::unique_ptr<Cell> make_cell(const std::string& kind, int64_t input_size, int64_t hidden_size, Generator& gen) {
  if (kind == "rnn") return std::make_unique<RNNCell>(input_size, hidden_size, gen);
  if (kind == "gru") return std::make_unique<GRUCell>(input_size, hidden_size, gen);
  if (kind == "lstm") return std::make_unique<LSTMCell>(input_size, hidden_size, gen);
  throw Error("cell: unknown kind '" + kind + "' (choose rnn, gru or lstm)");
}

}  // namespace heed
