// Tensor: a shape plus a contiguous row-major buffer of heed::real values.
// A Tensor is a value: copying copies the data, moving is cheap. There are no strides
// and no views; an op that rearranges data (transpose, slice, concat) writes a new tensor.
// A 0-d tensor (shape []) holds one value. Knows nothing of gradients.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tensor/real.h"

namespace heed {

using Shape = std::vector<int64_t>;

// A mistake a user can make: wrong shapes, bad values, a corrupt file. The message
// names the operation and the shapes or values involved.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Generator;

// An allocator that leaves doubles uninitialised when a vector is sized (value-initialisation
// would write zeros), so that Tensor::empty costs no pass over memory. Everything else is
// std::allocator's.
template <typename T>
struct NoInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  NoInitAllocator() = default;
  template <typename U>
  NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialisation: no write for a double
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

std::string shape_str(const Shape& shape);  // "[2, 3]"
// Keeps freed tensor memory with the process (glibc's mallopt) instead of returning it to the
// system after every step. The heap's top is kept without a call, as the program starts (what
// decoding and small models need, tensor/tensor.cpp); this adds large blocks, for programs that
// train large models. Call once, first thing in main.
void tune_allocator();
int64_t shape_numel(const Shape& shape);    // product of the sizes; 1 for []; throws on overflow

class Tensor {
 public:
  Tensor();  // a 0-d tensor holding 0
  // REQUIRES: data.size() equals the product of shape (else heed::Error).
  Tensor(Shape shape, std::vector<real> data);

  static Tensor scalar(real value);
  static Tensor zeros(const Shape& shape);
  static Tensor ones(const Shape& shape);
  static Tensor full(const Shape& shape, real value);
  // A tensor whose values are unspecified: for an op's output that it then writes in full.
  // Never read an element before writing it.
  static Tensor empty(const Shape& shape);
  static Tensor arange(int64_t n);  // [0, 1, ..., n-1]
  static Tensor arange(real start, real stop, real step);
  // U(lo, hi) and N(mean, std^2), drawn in row-major order from `gen`.
  static Tensor uniform(const Shape& shape, real lo, real hi, Generator& gen);
  static Tensor normal(const Shape& shape, real mean, real std, Generator& gen);

  const Shape& shape() const { return shape_; }
  int64_t dim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t size(int64_t axis) const;  // negative axes count from the end
  int64_t numel() const { return static_cast<int64_t>(data_.size()); }

  real* data() { return data_.data(); }
  const real* data() const { return data_.data(); }
  std::span<real> values() { return {data_.data(), data_.size()}; }
  std::span<const real> values() const { return {data_.data(), data_.size()}; }
  std::vector<real> to_vector() const { return {data_.begin(), data_.end()}; }

  real& operator[](int64_t flat) { return data_[flat]; }
  real operator[](int64_t flat) const { return data_[flat]; }
  // Checked element access by multi-index, e.g. t.at({1, 2}).
  real& at(std::initializer_list<int64_t> index);
  real at(std::initializer_list<int64_t> index) const;
  real item() const;  // REQUIRES: numel() == 1

  // Replaces the shape, keeping the data. REQUIRES: same number of elements.
  void reshape_inplace(const Shape& shape);
  void fill(real value);

  // PyTorch-like text: tensor([[1.0000, 2.0000], ...], shape=[2, 2]).
  std::string str(int precision = 4) const;

 private:
  struct Unfilled {};  // tags the constructor behind empty(): n values, none written
  Tensor(Shape shape, int64_t n, Unfilled);
  int64_t flat_index(std::initializer_list<int64_t> index) const;

  Shape shape_;             // sizes, outermost first
  std::vector<real, NoInitAllocator<real>> data_;  // row-major, numel() values
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

// True when the shapes are equal and every element is exactly equal.
bool equal(const Tensor& a, const Tensor& b);
// True when shapes are equal and |a - b| <= atol + rtol * |b| everywhere. The defaults are 1e-9 and
// 1e-12 in double; in the float build (make float) 1e-5 and 1e-6, about 84 and 8 units of float's
// epsilon (1.2e-7), since a float cannot hold 1e-9.
inline constexpr real kAllcloseRtol = sizeof(real) == 8 ? real(1e-9) : real(1e-5);
inline constexpr real kAllcloseAtol = sizeof(real) == 8 ? real(1e-12) : real(1e-6);
bool allclose(const Tensor& a, const Tensor& b, real rtol = kAllcloseRtol, real atol = kAllcloseAtol);

}  // namespace heed
