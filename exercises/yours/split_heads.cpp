// Your heed's split into heads: heed::split_heads(x, heads), which every multi-head attention of
// heed (chapter 12's layers and the Transformer: nn/self_attention.cpp) applies to its queries,
// keys and values, on your split_heads (exercise 12.3). make yours links this file in place of
// heed's when 12.3 has passed.
// Yours moves a tensor's values, (B, L, D) -> (B, h, L, D/h); heed's is an op of the graph, (B, L,
// D) -> (B h, L, d_k) (the same values in the same order), whose gradient must flow back. So
// yours is asked where each value goes: given the positions 0 .. n-1 of x laid out as x, it
// returns for each element of the result the position of x it came from. The forward gathers x
// there, and the backward sends each gradient back to where its value came from:
//   y_i = x_{p(i)}   =>   dL/dx_j = sum over i with p(i) = j of dL/dy_i
// (one i per j when yours is right: a split into heads is a permutation).
#include <string>

#include "exercises/12_attention_zoo/exercises.h"
#include "nn/self_attention.h"

namespace heed {

Var split_heads(const Var& x, int64_t heads) {
  const Shape& s = x.shape();
  if (s.size() != 3 || heads < 1 || s[2] % heads != 0)
    throw Error("split_heads (yours, exercise 12.3): input " + shape_str(s) +
                " must be (B, L, D) with D a multiple of heads " + std::to_string(heads));
  const int64_t B = s[0], L = s[1], dk = s[2] / heads, n = x.value().numel();
  const Tensor from = student::split_heads(reshape(Tensor::arange(n), s), heads);  // p(i), as reals
  if (from.shape() != Shape{B, heads, L, dk})
    throw Error("split_heads (yours, exercise 12.3): for " + shape_str(s) + " and " + std::to_string(heads) +
                " heads it returned " + shape_str(from.shape()) + ", not " + shape_str({B, heads, L, dk}));
  std::vector<int64_t> p(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    p[i] = static_cast<int64_t>(from[i]);
    if (!(from[i] >= 0 && from[i] < static_cast<real>(n)) || static_cast<real>(p[i]) != from[i])
      throw Error("split_heads (yours, exercise 12.3): element " + std::to_string(i) +
                  " of the result comes from no element of the input (position " + std::to_string(from[i]) + ")");
  }
  const Tensor& xv = x.value();
  Tensor y = Tensor::empty({B * heads, L, dk});
  for (int64_t i = 0; i < n; ++i) y[i] = xv[p[i]];  // y_i = x_p(i)
  return make_var(std::move(y), "split_heads", {x}, [p, n](Backward& g) {
    if (!g.wants(0)) return;
    const Tensor& dy = g.grad();
    Tensor& dx = g.buffer(0);
    for (int64_t i = 0; i < n; ++i) dx[p[i]] += dy[i];  // dx_p(i) += dy_i
  });
}

}  // namespace heed
