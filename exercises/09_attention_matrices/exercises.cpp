// Chapter 09: write these two functions, then run `make exercise-09`.
#include "exercises/09_attention_matrices/exercises.h"

namespace heed::student {

std::vector<int64_t> mirror_offsets(const Tensor& weights, int64_t L) {
  not_done("write mirror_offsets: for t < L, (the first argmax of row t) - (L - 1 - t)");
}

Tensor row_entropy(const Tensor& weights) {
  not_done("write row_entropy: -sum w log w per row, skipping weights of exactly 0");
}

}  // namespace heed::student
