// Chapter 10: write these two functions, then run `make exercise-10`.
#include "exercises/10_long_sequences/exercises.h"

namespace heed::student {

real clip_by_global_norm(std::vector<Tensor>& grads, real max_norm) {
  not_done("write clip_by_global_norm: one norm over all tensors, then scale all by max_norm / (norm + 1e-6) if < 1");
}

std::vector<real> gradient_to_source(const Seq2Seq& model, const Batch& batch, int64_t t) {
  not_done("write gradient_to_source: retain_grad on the encoder steps, run steps 0..t, backward loss_t, take norms");
}

}  // namespace heed::student
