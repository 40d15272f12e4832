// Chapter 09: the solutions registered for the self-test, and wrong answers its checks must reject.
#include <cmath>

#include "exercises/check/09_check.h"
// The solution, compiled here in namespace heed::solution (one translation unit for both).
#define student solution
#include "exercises/solutions/09_attention_matrices/exercises.cpp"
#undef student

namespace heed::check {
namespace {

// The mirror taken as L - t (off by one).
std::vector<int64_t> offsets_off_by_one(const Tensor& weights, int64_t L) {
  auto o = heed::solution::mirror_offsets(weights, L);
  for (int64_t& x : o) x += 1;
  return o;
}
// The last maximum on a tie (>= instead of >).
std::vector<int64_t> offsets_last_max(const Tensor& weights, int64_t L) {
  const int64_t S = weights.shape()[1];
  std::vector<int64_t> offsets;
  for (int64_t t = 0; t < L; ++t) {
    int64_t best = 0;
    for (int64_t i = 1; i < S; ++i)
      if (weights[t * S + i] >= weights[t * S + best]) best = i;
    offsets.push_back(best - (L - 1 - t));
  }
  return offsets;
}
// 0 log 0 computed as it stands: NaN.
Tensor entropy_nan(const Tensor& weights) { return neg(sum(mul(weights, log(weights)), 1)); }
// In bits.
Tensor entropy_bits(const Tensor& weights) { return mul(heed::solution::row_entropy(weights), 1 / std::log(2.0)); }

Impl09 solution() { return HEED_IMPL_09(heed::solution); }
template <class F>
std::function<std::vector<Exercise>()> with(F change) {
  return [change] {
    Impl09 impl = solution();
    change(impl);
    return exercises_09(impl);
  };
}

Register sol({"09", "exercises/09_attention_matrices", "solution", [] { return exercises_09(solution()); }});
RegisterWrong w1({"09", "mirror_offsets", "L - t", with([](Impl09& i) { i.mirror_offsets = offsets_off_by_one; })});
RegisterWrong w2({"09", "mirror_offsets", "last max on ties", with([](Impl09& i) { i.mirror_offsets = offsets_last_max; })});
RegisterWrong w3({"09", "row_entropy", "0 log 0 = NaN", with([](Impl09& i) { i.row_entropy = entropy_nan; })});
RegisterWrong w4({"09", "row_entropy", "bits", with([](Impl09& i) { i.row_entropy = entropy_bits; })});

}  // namespace
}  // namespace heed::check
