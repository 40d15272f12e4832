// For the joints of your row-wise pieces (softmax_rows, softmax_backward): any tensor seen as rows
// along an axis. With x seen as [outer, n, inner] around the axis, its rows are the outer * inner
// runs of n values `inner` apart; to_rows copies them into an (outer * inner, n) matrix, your
// function's shape, and from_rows puts such a matrix back in x's layout.
#pragma once

#include "tensor/ops.h"

namespace heed::yours {

inline Tensor to_rows(const Tensor& x, int64_t axis) {
  int64_t outer, n, inner;
  split_at_axis(x.shape(), axis, outer, n, inner);
  Tensor rows = Tensor::empty({outer * inner, n});
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j)
      for (int64_t i = 0; i < n; ++i) rows[(o * inner + j) * n + i] = x[(o * n + i) * inner + j];
  return rows;
}

inline Tensor from_rows(const Tensor& rows, const Shape& shape, int64_t axis) {
  int64_t outer, n, inner;
  split_at_axis(shape, axis, outer, n, inner);
  Tensor x = Tensor::empty(shape);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j)
      for (int64_t i = 0; i < n; ++i) x[(o * n + i) * inner + j] = rows[(o * inner + j) * n + i];
  return x;
}

}  // namespace heed::yours
