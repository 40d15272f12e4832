#include "tensor/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <ostream>
#include <sstream>

#include "tensor/random.h"

namespace heed {

// A training step frees and reallocates the same large tensors every step. By default glibc
// hands big blocks back to the system and faults them in again (measured: a fifth of a step's
// time in `heed bench`, and half of chapter 11's training time spent in the kernel); keeping
// them with the process makes the steady state cheap. glibc only: elsewhere both do nothing.
//
// The part every program needs, without asking: the heap keeps 64 MiB of freed memory at its top
// rather than trimming it back after every step and faulting it in again on the next (glibc's
// M_TOP_PAD; its default is 128 KiB). It is set once, as the program starts (this file is in
// every program that uses a Tensor); a program that wants other settings calls mallopt in its
// main, which runs after. 128 greedy steps of a Transformer (D 64, batch 8, examples/
// decode_speed.cpp) took 2.87 s without it and 0.44 s with tune_allocator's three settings.
[[maybe_unused]] static const bool kHeapKeepsItsTop = [] {
#ifdef __GLIBC__
  mallopt(M_TOP_PAD, 64 << 20);
#endif
  return true;
}();

// tune_allocator adds the rest for programs that train large models: blocks up to 64 MiB come
// from the heap rather than from mmap (glibc's threshold would otherwise move with the sizes it
// sees), and the heap is trimmed only past 512 MiB of free memory at its top.
void tune_allocator() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

std::string shape_str(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

int64_t shape_numel(const Shape& shape) {
  // Every partial product of the sizes must fit too (kernels split a shape around an axis), so
  // the non-zero sizes are multiplied with a check even when a zero makes the total 0.
  int64_t n = 1;
  bool empty = false;
  for (int64_t d : shape) {
    if (d == 0) empty = true;
    else if (__builtin_mul_overflow(n, d, &n))  // past 2^63 the product would wrap to a small size
      throw Error("shape " + shape_str(shape) + ": the number of elements overflows a 64-bit integer");
  }
  return empty ? 0 : n;
}

static void check_shape(const Shape& shape, const char* op) {
  for (int64_t d : shape)
    if (d < 0) throw Error(std::string(op) + ": negative size in shape " + shape_str(shape));
}

Tensor::Tensor() : data_(1, 0) {}

Tensor::Tensor(Shape shape, std::vector<real> data) : shape_(std::move(shape)), data_(data.begin(), data.end()) {
  check_shape(shape_, "Tensor");
  if (shape_numel(shape_) != static_cast<int64_t>(data_.size()))
    throw Error("Tensor: shape " + shape_str(shape_) + " needs " + std::to_string(shape_numel(shape_)) +
                " values, got " + std::to_string(data_.size()));
}

Tensor Tensor::scalar(real value) { return Tensor({}, {value}); }

Tensor Tensor::zeros(const Shape& shape) { return full(shape, 0); }
Tensor Tensor::ones(const Shape& shape) { return full(shape, 1); }

Tensor Tensor::full(const Shape& shape, real value) {
  Tensor t = empty(shape);
  std::fill(t.data_.begin(), t.data_.end(), value);
  return t;
}

Tensor::Tensor(Shape shape, int64_t n, Unfilled) : shape_(std::move(shape)), data_(static_cast<size_t>(n)) {}

Tensor Tensor::empty(const Shape& shape) {
  check_shape(shape, "empty");
  return Tensor(shape, shape_numel(shape), Unfilled{});
}

Tensor Tensor::arange(int64_t n) { return arange(0, static_cast<real>(n), 1); }

Tensor Tensor::arange(real start, real stop, real step) {
  if (step == 0 || !std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step))
    throw Error("arange: start, stop and step must be finite and step non-zero");
  std::vector<real> v;
  int64_t n = static_cast<int64_t>(std::ceil((stop - start) / step));
  for (int64_t i = 0; i < n; ++i) v.push_back(std::fma(step, static_cast<real>(i), start));
  Shape shape{static_cast<int64_t>(v.size())};  // before the move: argument order is unspecified
  return Tensor(std::move(shape), std::move(v));
}

Tensor Tensor::uniform(const Shape& shape, real lo, real hi, Generator& gen) {
  Tensor t = zeros(shape);
  for (real& x : t.data_) x = gen.uniform(lo, hi);
  return t;
}

Tensor Tensor::normal(const Shape& shape, real mean, real std, Generator& gen) {
  Tensor t = zeros(shape);
  for (real& x : t.data_) x = std::fma(std, gen.normal(), mean);
  return t;
}

int64_t Tensor::size(int64_t axis) const {
  int64_t d = dim();
  if (axis < -d || axis >= d)
    throw Error("size: axis " + std::to_string(axis) + " out of range for shape " + shape_str(shape_));
  return shape_[axis < 0 ? axis + d : axis];
}

int64_t Tensor::flat_index(std::initializer_list<int64_t> index) const {
  if (static_cast<int64_t>(index.size()) != dim())
    throw Error("at: " + std::to_string(index.size()) + " indices for shape " + shape_str(shape_));
  int64_t flat = 0, k = 0;
  for (int64_t i : index) {
    if (i < 0 || i >= shape_[k])
      throw Error("at: index " + std::to_string(i) + " out of range for axis " + std::to_string(k) +
                  " of shape " + shape_str(shape_));
    flat = flat * shape_[k] + i;
    ++k;
  }
  return flat;
}

real& Tensor::at(std::initializer_list<int64_t> index) { return data_[flat_index(index)]; }
real Tensor::at(std::initializer_list<int64_t> index) const { return data_[flat_index(index)]; }

real Tensor::item() const {
  if (data_.size() != 1) throw Error("item: tensor of shape " + shape_str(shape_) + " is not one value");
  return data_[0];
}

void Tensor::reshape_inplace(const Shape& shape) {
  check_shape(shape, "reshape");
  if (shape_numel(shape) != numel())
    throw Error("reshape: " + shape_str(shape_) + " to " + shape_str(shape) + ": element counts differ");
  shape_ = shape;
}

void Tensor::fill(real value) {
  for (real& x : data_) x = value;
}

namespace {

std::string format_value(real v, int precision) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}

// Writes dimension `d` of x starting at flat offset `off`; PyTorch's layout: nested
// brackets, one row per line, with "..." when a large tensor is summarised.
void write_dim(std::ostringstream& os, const Tensor& x, int64_t d, int64_t off, int indent,
               bool summarise, int precision, size_t width) {
  const Shape& s = x.shape();
  int64_t n = s[d], stride = 1;
  for (size_t k = d + 1; k < s.size(); ++k) stride *= s[k];
  const int64_t edge = 3;
  os << "[";
  for (int64_t i = 0; i < n; ++i) {
    if (summarise && n > 2 * edge && i == edge) {
      os << (d + 1 == x.dim() ? "..., " : "...,\n" + std::string(indent + 1, ' '));
      i = n - edge;
    }
    if (d + 1 == x.dim()) {
      std::string v = format_value(x[off + i], precision);
      os << std::string(width - v.size(), ' ') << v;
    } else {
      write_dim(os, x, d + 1, off + i * stride, indent + 1, summarise, precision, width);
    }
    if (i + 1 < n) {
      if (d + 1 == x.dim()) os << ", ";
      else os << "," << std::string(x.dim() - d - 1, '\n') << std::string(indent + 1, ' ');
    }
  }
  os << "]";
}

}  // namespace

std::string Tensor::str(int precision) const {
  std::ostringstream os;
  os << "tensor(";
  if (dim() == 0) {
    os << format_value(data_[0], precision);
  } else if (numel() == 0) {
    os << "[]";
  } else {
    size_t width = 0;
    for (real v : data_) width = std::max(width, format_value(v, precision).size());
    write_dim(os, *this, 0, 0, 7, numel() > 1000, precision, width);
  }
  os << ", shape=" << shape_str(shape_) << ")";
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }

bool equal(const Tensor& a, const Tensor& b) { return a.shape() == b.shape() && std::equal(a.data(), a.data() + a.numel(), b.data()); }

bool allclose(const Tensor& a, const Tensor& b, real rtol, real atol) {
  if (a.shape() != b.shape()) return false;
  for (int64_t i = 0; i < a.numel(); ++i)
    if (!(std::fabs(a[i] - b[i]) <= std::fma(rtol, std::fabs(b[i]), atol))) return false;
  return true;
}

}  // namespace heed
