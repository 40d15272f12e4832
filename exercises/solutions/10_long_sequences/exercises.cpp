// Chapter 10's solutions.
#include <cmath>

#include "exercises/10_long_sequences/exercises.h"
#include "nn/loss.h"

namespace heed::student {

// The squares summed as heed's own clip_grad_norm (nn/optim.cpp) sums them: in the parameters'
// order, each added with std::fma (g g + sq rounded once, not twice). sq += g * g is the same
// mathematics, but a last bit of the norm differs now and then, and with it every clipped
// gradient; in heed's order your heed's training equals heed's bit for bit.
real clip_by_global_norm(std::vector<Tensor>& grads, real max_norm) {
  real sq = 0;
  for (const Tensor& g : grads)
    for (int64_t i = 0; i < g.numel(); ++i) sq = std::fma(g[i], g[i], sq);  // sq += g^2
  const real norm = std::sqrt(sq), factor = max_norm / (norm + 1e-6);
  if (factor < 1)
    for (Tensor& g : grads)
      for (int64_t i = 0; i < g.numel(); ++i) g[i] *= factor;
  return norm;
}

std::vector<real> gradient_to_source(const Seq2Seq& model, const Batch& batch, int64_t t) {
  std::vector<Var> h;
  DecoderState st = model.start(batch, &h);
  for (Var& v : h) v.retain_grad();  // keep the gradients of these non-leaf nodes
  Var out;
  for (int64_t k = 0; k <= t; ++k) out = model.step({batch.tgt_in[k]}, st).out;
  cross_entropy(model.logits(out), {batch.tgt_out[t]}).backward();
  std::vector<real> norms;
  for (const Var& v : h) {
    real sq = 0;
    for (real g : v.grad().values()) sq += g * g;
    norms.push_back(std::sqrt(sq));
  }
  return norms;
}

}  // namespace heed::student
