// Chapter 12: the solutions registered for the self-test, and wrong answers its checks must reject.
#include <cmath>

#include "exercises/check/12_check.h"
// The solution, compiled here in namespace heed::solution (one translation unit for both).
#define student solution
#include "exercises/solutions/12_attention_zoo/exercises.cpp"
#undef student

namespace heed::check {
namespace {

// Norms without the floor: a zero state gives 0 / 0 = NaN.
Var cosine_no_floor(const Var& s, const Var& h, const Var& beta) {
  const int64_t B = h.shape()[0], S = h.shape()[1], D = h.shape()[2];
  Var hn = h / sqrt(sum(h * h, -1, true)), sn = s / sqrt(sum(s * s, -1, true));
  return reshape(matmul(hn, reshape(sn, {B, D, 1})), {B, S}) * beta;
}
// Only the keys normalised: beta s.h_i / |h_i|.
Var cosine_query_unnormalised(const Var& s, const Var& h, const Var& beta) {
  const int64_t B = h.shape()[0], S = h.shape()[1], D = h.shape()[2];
  Var hn = h / sqrt(sum(h * h, -1, true) + 1e-16);
  return reshape(matmul(hn, reshape(s, {B, D, 1})), {B, S}) * beta;
}
// The floor added outside the square root, |x| = sqrt(sum x^2) + 1e-16: the same scores (a zero
// state still scores 0), but d sqrt(u)/du is infinite at u = 0, so the gradient at a zero state is
// 0 * inf = NaN, even when the softmax masks that position out.
Var cosine_floor_outside(const Var& s, const Var& h, const Var& beta) {
  const int64_t B = h.shape()[0], S = h.shape()[1], D = h.shape()[2];
  Var hn = h / (sqrt(sum(h * h, -1, true)) + 1e-16), sn = s / (sqrt(sum(s * s, -1, true)) + 1e-16);
  return reshape(matmul(hn, reshape(sn, {B, D, 1})), {B, S}) * beta;
}
// The mask transposed: each query sees the keys after it.
Var causal_transposed(const Var& q, const Var& k, const Var& v) {
  const int64_t N = q.shape()[0], S = q.shape()[1], dk = q.shape()[2];
  Tensor past = Tensor::zeros({N, S, S});
  for (int64_t n = 0; n < N; ++n)
    for (int64_t i = 0; i < S; ++i)
      for (int64_t j = 0; j < i; ++j) past[(n * S + i) * S + j] = 1;
  return matmul(softmax(masked_fill(matmul_nt(q, k) / std::sqrt(static_cast<real>(dk)), past, -1e30), -1), v);
}
// No mask at all.
Var causal_unmasked(const Var& q, const Var& k, const Var& v) {
  return matmul(softmax(matmul_nt(q, k) / std::sqrt(static_cast<real>(q.shape()[2])), -1), v);
}
// Reshape to (B, h, S, d) without moving the head axis in front of the positions.
Tensor split_reshape_only(const Tensor& x, int64_t heads) {
  return reshape(x, {x.shape()[0], heads, x.shape()[1], x.shape()[2] / heads});
}

Impl12 solution() { return HEED_IMPL_12(heed::solution); }
template <class F>
std::function<std::vector<Exercise>()> with(F change) {
  return [change] {
    Impl12 impl = solution();
    change(impl);
    return exercises_12(impl);
  };
}

Register sol({"12", "exercises/12_attention_zoo", "solution", [] { return exercises_12(solution()); }});
RegisterWrong w1({"12", "cosine_scores", "NaN on a zero state", with([](Impl12& i) { i.cosine_scores = cosine_no_floor; })});
RegisterWrong w2({"12", "cosine_scores", "query not normalised", with([](Impl12& i) { i.cosine_scores = cosine_query_unnormalised; })});
RegisterWrong w3({"12", "causal_attention", "mask transposed", with([](Impl12& i) { i.causal_attention = causal_transposed; })});
RegisterWrong w4({"12", "causal_attention", "no mask", with([](Impl12& i) { i.causal_attention = causal_unmasked; })});
RegisterWrong w5({"12", "split_heads", "reshape only", with([](Impl12& i) { i.split_heads = split_reshape_only; })});
RegisterWrong w6({"12", "cosine_scores", "floor outside the square root", with([](Impl12& i) { i.cosine_scores = cosine_floor_outside; })});

}  // namespace
}  // namespace heed::check
