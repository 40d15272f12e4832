// Fused RNN, GRU and LSTM steps. Every step shares one matrix product, hp = h W_hh^T + b_hh
// (B, G*H), and in backward its three derivatives; the gates around it are loops over a row,
// with the formulas of the composed cells (nn/rnn_cell.cpp), and tanh and sigmoid from
// tensor/vmath.h, several elements at a time.
#include "nn/fused_cells.h"

#include <cmath>
#include <string>

#include "autograd/node_util.h"
#include "tensor/gemm.h"
#include "tensor/vmath.h"

namespace heed {

namespace {

// Checks the shapes of a step with G gates (c may be null); returns H.
int64_t check_step(const char* op, int64_t G, const Var& xp, const Var& h, const Var* c, const Var& w,
                   const Var& b) {
  const Tensor& hv = h.value();
  const int64_t H = hv.dim() == 2 ? hv.size(1) : -1, B = hv.dim() == 2 ? hv.size(0) : -1;
  bool ok = H > 0 && xp.shape() == Shape{B, G * H} && w.shape() == Shape{G * H, H} && b.shape() == Shape{G * H} &&
            (c == nullptr || c->shape() == hv.shape());
  if (!ok) {
    std::string g = G == 1 ? "" : std::to_string(G);
    throw Error(std::string(op) + ": xp " + shape_str(xp.shape()) + ", h " + shape_str(hv.shape()) +
                (c ? ", c " + shape_str(c->shape()) : std::string()) + ", weight_hh " + shape_str(w.shape()) +
                ", bias_hh " + shape_str(b.shape()) + " must be (B, " + g + "H), (B, H)" + (c ? ", (B, H)" : "") +
                ", (" + g + "H, H), (" + g + "H)");
  }
  return H;
}

// hp = h W_hh^T + b_hh: (B, GH), the share of every gate that comes from the previous state.
Tensor state_projection(const Tensor& h, const Tensor& w, const Tensor& bias) {
  const int64_t B = h.size(0), H = h.size(1), GH = w.size(0);
  Tensor hp = Tensor::empty({B, GH});
  gemm(false, true, B, GH, H, h.data(), w.data(), hp.data(), false);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t j = 0; j < GH; ++j) hp[b * GH + j] += bias[j];
  return hp;
}

// The backward of hp = h W^T + b, for inputs h at ih, W at iw and b at iw + 1. When `add`, dh
// arrives holding h's other share (the GRU's z * dh') and dhp W is added to it; otherwise dh is
// scratch space of the right shape, overwritten.
void state_projection_backward(Node& self, size_t ih, size_t iw, const Tensor& dhp, Tensor dh, bool add) {
  const Tensor& h = self.inputs[ih]->value;  // (B, H)
  const Tensor& w = self.inputs[iw]->value;  // (GH, H)
  const int64_t B = h.size(0), H = h.size(1), GH = w.size(0);
  if (Node* n = wants_grad(self, ih)) {
    gemm(false, false, B, H, GH, dhp.data(), w.data(), dh.data(), add);  // dh (+)= dhp W
    n->accumulate(std::move(dh));
  }
  if (Node* n = wants_grad(self, iw)) {  // dW += dhp^T h
    bool add = false;
    real* dw = grad_target(n, add).data();
    gemm(true, false, GH, H, B, dhp.data(), h.data(), dw, add);
  }
  if (Node* n = wants_grad(self, iw + 1)) {
    real* db = grad_buffer(n).data();
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < GH; ++j) db[j] += dhp[b * GH + j];  // db += sum_b dhp
  }
}

}  // namespace

Var rnn_step(const Var& xp, const Var& h, const Var& weight_hh, const Var& bias_hh) {
  const int64_t H = check_step("rnn_step", 1, xp, h, nullptr, weight_hh, bias_hh), B = h.shape()[0];
  Tensor y = state_projection(h.value(), weight_hh.value(), bias_hh.value());  // (B, H)
  const real* x = xp.value().data();
  for (int64_t k = 0; k < B * H; ++k) y[k] += x[k];
  tanh_n(y.data(), y.data(), B * H);
  // Saves nothing: the derivative needs only y, the node's own value.
  return make_var(std::move(y), "rnn_step", {xp, h, weight_hh, bias_hh}, [B, H](Node& self) {
    Tensor da = self.grad;  // (B, H)
    for (int64_t k = 0; k < B * H; ++k) da[k] *= std::fma(-self.value[k], self.value[k], 1);  // da = (1 - y^2) dy
    if (Node* n = wants_grad(self, 0)) n->accumulate(da);  // dxp += da
    state_projection_backward(self, 1, 2, da, Tensor::empty({B, H}), false);
  });
}

Var gru_step(const Var& xp, const Var& h, const Var& weight_hh, const Var& bias_hh) {
  const int64_t H = check_step("gru_step", 3, xp, h, nullptr, weight_hh, bias_hh), B = h.shape()[0];
  Tensor hp = state_projection(h.value(), weight_hh.value(), bias_hh.value());  // (B, 3H)
  Tensor y = Tensor::empty({B, H});
  // Saved per row: r, z, n and hp_n = W_hn h + b_hn (B, 4H), all backward needs besides h and W_hh.
  Tensor saved = Tensor::empty({B, 4 * H});
  for (int64_t b = 0; b < B; ++b) {
    const real* x = xp.value().data() + b * 3 * H;
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
  auto backward = [saved = std::move(saved), B, H](Node& self) {
    const Tensor& h = self.inputs[1]->value;
    Tensor dxp = Tensor::empty({B, 3 * H});  // d(pre-activations) = dxp: (da_r, da_z, da_n)
    Tensor dhp = Tensor::empty({B, 3 * H});  // d(h W_hh^T + b_hh): (da_r, da_z, r da_n)
    Tensor dh = Tensor::empty({B, H});
    for (int64_t b = 0; b < B; ++b) {
      const real* s = saved.data() + b * 4 * H;
      real* dx = dxp.data() + b * 3 * H;
      real* dp = dhp.data() + b * 3 * H;
      for (int64_t j = 0; j < H; ++j) {
        const real r = s[j], z = s[H + j], n = s[2 * H + j], hp_n = s[3 * H + j];
        const real dy = self.grad[b * H + j], hj = h[b * H + j];
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
    if (Node* n = wants_grad(self, 0)) n->accumulate(std::move(dxp));
    state_projection_backward(self, 1, 2, dhp, std::move(dh), true);
  };
  return make_var(std::move(y), "gru_step", {xp, h, weight_hh, bias_hh}, std::move(backward));
}

Var lstm_step(const Var& xp, const Var& h, const Var& c, const Var& weight_hh, const Var& bias_hh) {
  const int64_t H = check_step("lstm_step", 4, xp, h, &c, weight_hh, bias_hh), B = h.shape()[0];
  Tensor hp = state_projection(h.value(), weight_hh.value(), bias_hh.value());  // (B, 4H)
  Tensor y = Tensor::empty({B, 2 * H});  // [h' | c'] per row
  // Saved per row: i, f, g, o and tanh(c') (B, 5H), all backward needs besides c, h and W_hh.
  Tensor saved = Tensor::empty({B, 5 * H});
  for (int64_t b = 0; b < B; ++b) {
    const real* x = xp.value().data() + b * 4 * H;
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
  auto backward = [saved = std::move(saved), B, H](Node& self) {
    const Tensor& c = self.inputs[2]->value;
    Tensor da = Tensor::empty({B, 4 * H});  // d(pre-activations) = dxp = dhp: (da_i, da_f, da_g, da_o)
    Tensor dc = Tensor::empty({B, H});
    for (int64_t b = 0; b < B; ++b) {
      const real* s = saved.data() + b * 5 * H;
      const real* dy = self.grad.data() + b * 2 * H;
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
    if (Node* n = wants_grad(self, 0)) n->accumulate(da);  // dxp += da
    if (Node* n = wants_grad(self, 2)) n->accumulate(std::move(dc));
    state_projection_backward(self, 1, 3, da, Tensor::empty({B, H}), false);
  };
  return make_var(std::move(y), "lstm_step", {xp, h, c, weight_hh, bias_hh}, std::move(backward));
}

}  // namespace heed
