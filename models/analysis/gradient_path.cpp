#include "models/analysis/gradient_path.h"

#include <cmath>

#include "autograd/functions.h"
#include "nn/loss.h"

namespace heed {

std::vector<real> encoder_gradient_norms(const Seq2Seq& model, const Batch& batch, int64_t t) {
  const int64_t B = batch.batch, S = batch.src_len, T = batch.tgt_len;
  for (int64_t b = 0; b < B; ++b)
    if (t < 0 || t >= batch.tgt_lengths[b])
      throw Error("encoder_gradient_norms: output step " + std::to_string(t) + " is outside [0, " +
                  std::to_string(batch.tgt_lengths[b]) + ") for sequence " + std::to_string(b));
  std::vector<Var> h;  // S x (B, H)
  DecoderState st = model.start(batch, &h);
  for (Var& v : h) v.retain_grad();
  std::vector<int64_t> prev(B), target(B);
  Var out;
  for (int64_t k = 0; k <= t; ++k) {
    for (int64_t b = 0; b < B; ++b) prev[b] = batch.tgt_in[b * T + k];
    out = model.step(prev, st).out;
  }
  for (int64_t b = 0; b < B; ++b) target[b] = batch.tgt_out[b * T + t];
  // The mean over the batch times B: each sequence's own loss, so its gradient is its own.
  (cross_entropy(model.logits(out), target) * static_cast<real>(B)).backward();

  std::vector<real> norms(S, 0);
  for (int64_t i = 0; i < S; ++i) {
    const Tensor& g = h[i].grad();  // (B, H)
    const int64_t H = g.shape()[1];
    int64_t n = 0;
    for (int64_t b = 0; b < B; ++b) {
      if (i >= batch.lengths[b]) continue;
      real sq = 0;
      for (int64_t k = 0; k < H; ++k) sq = std::fma(g[b * H + k], g[b * H + k], sq);
      norms[i] += std::sqrt(sq);
      ++n;
    }
    norms[i] /= static_cast<real>(n);
  }
  return norms;
}

}  // namespace heed
