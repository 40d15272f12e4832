// Embedding: a table of learned vectors, one row per token id, as torch.nn.Embedding.
// weight is (num, dim), starting from N(0, 1). With a padding index (>= 0), that row starts at
// zero and never gets a gradient, so it stays zero under any optimiser without weight decay
// (PyTorch's padding_idx; unlike PyTorch, a negative padding_idx means "none").
#pragma once

#include <cstdint>
#include <vector>

#include "nn/module.h"
#include "tensor/random.h"

namespace heed {

// The lookup as a differentiable op: out[r] = weight[ids[r]]. weight (V, E), ids (N) -> (N, E).
// Backward adds dy[r] into row ids[r] (a repeated id accumulates) and skips rows whose id is
// padding_idx. An id outside [0, V) throws heed::Error naming the id and V.
Var embedding(const Var& weight, const std::vector<int64_t>& ids, int64_t padding_idx = -1);

class Embedding : public Module {
 public:
  // REQUIRES: num, dim > 0; padding_idx < num.
  Embedding(int64_t num, int64_t dim, Generator& gen, int64_t padding_idx = -1);

  Var forward(const std::vector<int64_t>& ids) const;  // (N) -> (N, E)
  // Ids laid out in a shape, row-major: ids (B S) with shape {B, S} -> (B, S, E), the id at [b, s]
  // giving row [b, s, :] (a Batch's src with {batch, src_len}). Any shape: the output is shape
  // followed by E. The same lookup and gradient as forward(ids), reshaped. heed::Error when
  // shape's elements are not ids.size().
  Var forward(const std::vector<int64_t>& ids, const Shape& shape) const;

  int64_t num_embeddings() const { return weight.shape()[0]; }
  int64_t embedding_dim() const { return weight.shape()[1]; }
  int64_t padding_idx() const { return padding_idx_; }

  Var weight;  // (num, dim), registered as "weight"

 private:
  int64_t padding_idx_;  // -1: none
};

}  // namespace heed
