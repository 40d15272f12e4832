// Chapter 10: the solutions registered for the self-test, and wrong answers its checks must reject.
#include <cmath>

#include "exercises/check/10_check.h"
#include "nn/loss.h"
// The solution, compiled here in namespace heed::solution (one translation unit for both).
#define student solution
#include "exercises/solutions/10_long_sequences/exercises.cpp"
#undef student

namespace heed::check {
namespace {

// Each tensor clipped on its own norm: the direction of the whole gradient changes.
real clip_each(std::vector<Tensor>& grads, real max_norm) {
  real total = 0;
  for (Tensor& g : grads) {
    std::vector<Tensor> one = {g};
    const real n = heed::solution::clip_by_global_norm(one, max_norm);
    g = one[0];
    total += n * n;
  }
  return std::sqrt(total);
}
// Always rescaled to max_norm, even a small gradient (normalised, not clipped).
real clip_always(std::vector<Tensor>& grads, real max_norm) {
  std::vector<Tensor> copy = grads;
  const real norm = heed::solution::clip_by_global_norm(copy, 1e300);
  for (Tensor& g : grads)
    for (int64_t i = 0; i < g.numel(); ++i) g[i] *= max_norm / (norm + 1e-6);
  return norm;
}
// The loss of every step 0..t summed, not of step t alone.
std::vector<real> gradient_all_steps(const Seq2Seq& model, const Batch& batch, int64_t t) {
  std::vector<Var> h;
  DecoderState st = model.start(batch, &h);
  for (Var& v : h) v.retain_grad();
  Var loss(Tensor::scalar(0));
  for (int64_t k = 0; k <= t; ++k) loss = loss + cross_entropy(model.logits(model.step({batch.tgt_in[k]}, st).out), {batch.tgt_out[k]});
  loss.backward();
  std::vector<real> norms;
  for (const Var& v : h) {
    real sq = 0;
    for (real g : v.grad().values()) sq += g * g;
    norms.push_back(std::sqrt(sq));
  }
  return norms;
}

Impl10 solution() { return HEED_IMPL_10(heed::solution); }
template <class F>
std::function<std::vector<Exercise>()> with(F change) {
  return [change] {
    Impl10 impl = solution();
    change(impl);
    return exercises_10(impl);
  };
}

Register sol({"10", "exercises/10_long_sequences", "solution", [] { return exercises_10(solution()); }});
RegisterWrong w1({"10", "clip_by_global_norm", "per tensor", with([](Impl10& i) { i.clip_by_global_norm = clip_each; })});
RegisterWrong w2({"10", "clip_by_global_norm", "always rescaled", with([](Impl10& i) { i.clip_by_global_norm = clip_always; })});
RegisterWrong w3({"10", "gradient_to_source", "all steps' losses", with([](Impl10& i) { i.gradient_to_source = gradient_all_steps; })});

}  // namespace
}  // namespace heed::check
