// Numeric kernels on Tensors: elementwise maths with NumPy broadcasting, reductions,
// matrix products, layout changes and softmax. Each returns a new tensor and throws
// heed::Error naming the op and the shapes when they do not fit. No gradients here.
#pragma once

#include <vector>

#include "tensor/tensor.h"

namespace heed {

// ---- elementwise, unary
Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor pow(const Tensor& x, real p);

// ---- elementwise, binary, with NumPy broadcasting
// The result shape of broadcasting a with b; `op` names the caller in the error.
Shape broadcast_shape(const Shape& a, const Shape& b, const char* op);
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor add(const Tensor& a, real b);
Tensor mul(const Tensor& a, real b);
// Sums x down to `shape`, the inverse of broadcasting `shape` up to x.shape()
// (the gradient of a broadcast input). REQUIRES: shape broadcasts to x.shape().
Tensor sum_to(const Tensor& x, const Shape& shape);
// x repeated along broadcast axes up to `shape`. REQUIRES: x.shape() broadcasts to shape.
Tensor broadcast_to(const Tensor& x, const Shape& shape);
// In place: a += b, same shapes.
void add_inplace(Tensor& a, const Tensor& b);
// The same as operators, as Var has them (autograd/elementwise.h): a + b is add(a, b), a - 2 is
// add(a, -2), 2 - a is add(neg(a), 2), a / 2 is mul(a, 1 / 2.0), the same bits as Var's.
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator+(const Tensor& a, real b);
Tensor operator+(real a, const Tensor& b);
Tensor operator-(const Tensor& a, real b);
Tensor operator-(real a, const Tensor& b);
Tensor operator*(const Tensor& a, real b);
Tensor operator*(real a, const Tensor& b);
Tensor operator/(const Tensor& a, real b);

// ---- reductions. `axis` may be negative; keepdim keeps the reduced axis as size 1.
Tensor sum(const Tensor& x);  // 0-d
Tensor sum(const Tensor& x, int64_t axis, bool keepdim = false);
Tensor mean(const Tensor& x);
Tensor mean(const Tensor& x, int64_t axis, bool keepdim = false);
Tensor max(const Tensor& x);
Tensor max(const Tensor& x, int64_t axis, bool keepdim = false);
// The index of the first maximum: over the whole tensor (its flat index), or along `axis`, one
// per position of the other axes, in row-major order ((B, V) along 1: a token id per row).
int64_t argmax_index(const Tensor& x);
std::vector<int64_t> argmax_indices(const Tensor& x, int64_t axis);
// The same indices stored as reals, in a tensor of x's shape without `axis` (kept as 1 with keepdim).
Tensor argmax(const Tensor& x);
Tensor argmax(const Tensor& x, int64_t axis, bool keepdim = false);

// ---- matrix products: 2-D [M, K] x [K, N], or batched 3-D [B, M, K] x [B, K, N].
Tensor matmul(const Tensor& a, const Tensor& b);     // A B
Tensor matmul_nt(const Tensor& a, const Tensor& b);  // A B^T: b is [N, K] or [B, N, K]
Tensor matmul_tn(const Tensor& a, const Tensor& b);  // A^T B: a is [K, M] or [B, K, M]
// x W^T + b: x [..., in], weight [out, in], bias [out] (or none when null) -> [..., out]. x's
// leading axes are read as rows where they lie; b is added to each row after the product. The
// value of autograd's linear, and of the fused recurrent steps' h W_hh^T + b_hh.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor* bias);

// ---- layout
Tensor transpose(const Tensor& x);  // swaps the last two axes
Tensor reshape(const Tensor& x, Shape shape);  // one size may be -1
Tensor concat(const std::vector<Tensor>& xs, int64_t axis);
Tensor stack(const std::vector<Tensor>& xs, int64_t axis);
// The same, from pointers: for callers whose tensors live elsewhere (a graph's nodes), no copies.
Tensor concat_ptrs(const std::vector<const Tensor*>& xs, int64_t axis);
Tensor stack_ptrs(const std::vector<const Tensor*>& xs, int64_t axis);
Tensor slice(const Tensor& x, int64_t axis, int64_t start, int64_t stop);  // [start, stop)
// Rows of x (axis 0) in the order of `index`; an index may repeat.
Tensor index_select(const Tensor& x, const std::vector<int64_t>& index);

// ---- softmax along an axis; stable for logits of any finite size (max subtracted).
Tensor softmax(const Tensor& x, int64_t axis);
Tensor log_softmax(const Tensor& x, int64_t axis);
// softmax over the positions where mask (x's shape) is non-zero: exactly 0 elsewhere, and a row
// with no such position all 0 (never NaN).
Tensor softmax(const Tensor& x, int64_t axis, const Tensor& mask);

// The one softmax that every other is built on (the three above, autograd's softmax and
// log_softmax, attention's masked softmax, cross-entropy): one row of n values `stride` apart.
// With keep (n flags, the same stride; null for all) only the positions where it is non-zero
// count. Writes y = softmax(x) (0 where not kept; all 0 when nothing is kept), or, when
// log_space, y = (x - m) - log(s) (REQUIRES keep null). y may be x.
// Returns m = max over kept x and s = sum over kept of exp(x - m): logsumexp(x) = m + log(s).
struct SoftmaxRow {
  real max;
  real sum;
};
SoftmaxRow softmax_row(const real* x, real* y, int64_t n, int64_t stride, const real* keep, bool log_space);

// Where mask (broadcast to x's shape) is non-zero, the result holds `value`.
Tensor masked_fill(const Tensor& x, const Tensor& mask, real value);

// Elementwise choice: a where cond (broadcast to a's shape) is non-zero, else b.
// REQUIRES: a and b have the same shape.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

// Helpers shared by the kernels and autograd.
int64_t normalize_axis(int64_t axis, int64_t dim, const char* op);
// The same, naming the shape in the error: "sum: axis 2 out of range for shape [2, 3]".
int64_t normalize_axis(int64_t axis, const Shape& shape, const char* op);
// Splits shape around `axis` into outer (product before), n (the axis) and inner (after).
void split_at_axis(const Shape& shape, int64_t axis, int64_t& outer, int64_t& n, int64_t& inner);

}  // namespace heed
