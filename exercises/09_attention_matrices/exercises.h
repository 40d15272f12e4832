// Chapter 09's exercises: reading an attention matrix with numbers. Where each output step's
// largest weight falls relative to the position a reversal would read, and how spread out each
// step's distribution is. What each must do: README.md in this folder.
#pragma once

#include <vector>

#include "exercises/not_done.h"
#include "tensor/ops.h"

namespace heed::student {

// weights (T, S): row t is output step t's distribution over the S source positions, of which
// the first L are real. For each step t < L, the offset of its largest weight (the first one, on
// a tie) from the mirrored position L - 1 - t, the one a perfect reversal reads: argmax - (L-1-t).
std::vector<int64_t> mirror_offsets(const Tensor& weights, int64_t L);

// The entropy of each row of weights (T, S), in nats: -sum_i w_i log w_i, where a weight of
// exactly 0 adds nothing (0 log 0 = 0). Returns (T).
Tensor row_entropy(const Tensor& weights);

}  // namespace heed::student
