// Elementwise kernels: unary maps and broadcasting binary ops.
#include <algorithm>
#include <cmath>

#include "tensor/math.h"
#include "tensor/ops.h"

namespace heed {

namespace {

template <class F>
Tensor map(const Tensor& x, F f) {
  Tensor y = x;
  real* p = y.data();
  for (int64_t i = 0, n = y.numel(); i < n; ++i) p[i] = f(p[i]);
  return y;
}

// Strides of `in` laid against `out` (right-aligned), 0 along broadcast axes.
std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  std::vector<int64_t> st(out.size(), 0);
  int64_t stride = 1;
  for (int64_t k = static_cast<int64_t>(in.size()) - 1; k >= 0; --k) {
    int64_t ko = k + static_cast<int64_t>(out.size() - in.size());
    st[ko] = in[k] == 1 ? 0 : stride;
    stride *= in[k];
  }
  return st;
}

// out[i] = f(a[ia], b[ib]) over the broadcast shape; the innermost axis is a plain loop.
template <class F>
Tensor binary(const Tensor& a, const Tensor& b, F f, const char* op) {
  if (a.shape() == b.shape()) {
    Tensor y = a;
    real* p = y.data();
    const real* q = b.data();
    for (int64_t i = 0, n = y.numel(); i < n; ++i) p[i] = f(p[i], q[i]);
    return y;
  }
  Shape out = broadcast_shape(a.shape(), b.shape(), op);
  Tensor y = Tensor::empty(out);  // every element is written below
  if (y.numel() == 0) return y;
  if (out.empty()) {
    y[0] = f(a[0], b[0]);
    return y;
  }
  std::vector<int64_t> sa = broadcast_strides(a.shape(), out), sb = broadcast_strides(b.shape(), out);
  const int64_t d = static_cast<int64_t>(out.size()), inner = out[d - 1];
  const int64_t ja = sa[d - 1], jb = sb[d - 1];
  std::vector<int64_t> idx(d, 0);
  const real* pa = a.data();
  const real* pb = b.data();
  real* py = y.data();
  int64_t oa = 0, ob = 0;
  for (int64_t row = 0, rows = y.numel() / inner; row < rows; ++row) {
    for (int64_t j = 0; j < inner; ++j) py[row * inner + j] = f(pa[oa + j * ja], pb[ob + j * jb]);
    // Odometer over the outer axes.
    for (int64_t k = d - 2; k >= 0; --k) {
      oa += sa[k];
      ob += sb[k];
      if (++idx[k] < out[k]) break;
      oa -= sa[k] * out[k];
      ob -= sb[k] * out[k];
      idx[k] = 0;
    }
  }
  return y;
}

}  // namespace

Tensor neg(const Tensor& x) { return map(x, [](real v) { return -v; }); }
Tensor exp(const Tensor& x) { return map(x, [](real v) { return math::exp(v); }); }
Tensor log(const Tensor& x) { return map(x, [](real v) { return math::log(v); }); }
Tensor tanh(const Tensor& x) { return map(x, [](real v) { return math::tanh(v); }); }
Tensor relu(const Tensor& x) { return map(x, [](real v) { return v > 0 ? v : 0; }); }
Tensor sqrt(const Tensor& x) { return map(x, [](real v) { return std::sqrt(v); }); }
Tensor pow(const Tensor& x, real p) { return map(x, [p](real v) { return math::pow(v, p); }); }

// math::sigmoid: 1 / (1 + e^-v) for v >= 0, e^v / (1 + e^v) below, so that no exp overflows.
Tensor sigmoid(const Tensor& x) { return map(x, [](real v) { return math::sigmoid(v); }); }

Shape broadcast_shape(const Shape& a, const Shape& b, const char* op) {
  size_t d = std::max(a.size(), b.size());
  Shape out(d);
  for (size_t k = 0; k < d; ++k) {
    int64_t x = k < d - a.size() ? 1 : a[k - (d - a.size())];
    int64_t y = k < d - b.size() ? 1 : b[k - (d - b.size())];
    if (x != y && x != 1 && y != 1)
      throw Error(std::string(op) + ": shapes " + shape_str(a) + " and " + shape_str(b) +
                  " do not broadcast (axis " + std::to_string(k) + ": " + std::to_string(x) + " vs " +
                  std::to_string(y) + ")");
    out[k] = x == 1 ? y : x;
  }
  return out;
}

Tensor add(const Tensor& a, const Tensor& b) { return binary(a, b, [](real x, real y) { return x + y; }, "add"); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(a, b, [](real x, real y) { return x - y; }, "sub"); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(a, b, [](real x, real y) { return x * y; }, "mul"); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(a, b, [](real x, real y) { return x / y; }, "div"); }
Tensor add(const Tensor& a, real b) { return map(a, [b](real v) { return v + b; }); }
Tensor mul(const Tensor& a, real b) { return map(a, [b](real v) { return v * b; }); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator+(const Tensor& a, real b) { return add(a, b); }
Tensor operator+(real a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Tensor& a, real b) { return add(a, -b); }
Tensor operator-(real a, const Tensor& b) { return add(neg(b), a); }
Tensor operator*(const Tensor& a, real b) { return mul(a, b); }
Tensor operator*(real a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Tensor& a, real b) { return mul(a, 1 / b); }

Tensor sum_to(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  if (broadcast_shape(shape, x.shape(), "sum_to") != x.shape())
    throw Error("sum_to: " + shape_str(shape) + " does not broadcast to " + shape_str(x.shape()));
  Tensor y = Tensor::zeros(shape);
  if (x.numel() == 0) return y;
  const Shape& out = x.shape();
  if (out.empty()) {
    y[0] = x[0];
    return y;
  }
  std::vector<int64_t> st = broadcast_strides(shape, out);
  const int64_t d = static_cast<int64_t>(out.size()), inner = out[d - 1], js = st[d - 1];
  std::vector<int64_t> idx(d, 0);
  const real* px = x.data();
  real* py = y.data();
  int64_t o = 0;
  for (int64_t row = 0, rows = x.numel() / inner; row < rows; ++row) {
    for (int64_t j = 0; j < inner; ++j) py[o + j * js] += px[row * inner + j];
    for (int64_t k = d - 2; k >= 0; --k) {
      o += st[k];
      if (++idx[k] < out[k]) break;
      o -= st[k] * out[k];
      idx[k] = 0;
    }
  }
  return y;
}

Tensor broadcast_to(const Tensor& x, const Shape& shape) {
  if (broadcast_shape(x.shape(), shape, "broadcast_to") != shape)
    throw Error("broadcast_to: " + shape_str(x.shape()) + " does not broadcast to " + shape_str(shape));
  return add(Tensor::zeros(shape), x);
}

void add_inplace(Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape())
    throw Error("add_inplace: shapes " + shape_str(a.shape()) + " and " + shape_str(b.shape()) + " differ");
  real* p = a.data();
  const real* q = b.data();
  for (int64_t i = 0, n = a.numel(); i < n; ++i) p[i] += q[i];
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, real value) {
  Shape s = broadcast_shape(x.shape(), mask.shape(), "masked_fill");
  if (s != x.shape())
    throw Error("masked_fill: mask " + shape_str(mask.shape()) + " does not broadcast to " + shape_str(x.shape()));
  return binary(x, mask, [value](real v, real m) { return m != 0 ? value : v; }, "masked_fill");
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape())
    throw Error("where: shapes " + shape_str(a.shape()) + " and " + shape_str(b.shape()) + " differ");
  if (broadcast_shape(cond.shape(), a.shape(), "where") != a.shape())
    throw Error("where: condition " + shape_str(cond.shape()) + " does not broadcast to " + shape_str(a.shape()));
  Tensor c = broadcast_to(cond, a.shape());
  Tensor y = a;
  for (int64_t i = 0; i < y.numel(); ++i)
    if (c[i] == 0) y[i] = b[i];
  return y;
}

}  // namespace heed
