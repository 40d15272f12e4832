// Position information for layers that see no order. Self-attention treats its input as a set:
// permute the positions and the outputs permute the same way. A model that needs order adds a
// position vector to each token's embedding, x[b, p] = embed(token[b, p]) + P[p], P one of:
//   sinusoidal_positions: fixed, Vaswani et al. 2017 (section 3.5), defined for any length;
//   PositionEmbedding:    learned, one row per position up to a maximum length (BERT, GPT).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nn/embedding.h"
#include "nn/hooks.h"
#include "nn/module.h"
#include "tensor/random.h"

namespace heed {

// (S, D): P[p, 2i] = sin(p / 10000^(2i / D)), P[p, 2i + 1] = cos(p / 10000^(2i / D)) for
// p = 0 .. S-1 (an odd D ends on a sine). Each pair of columns is a clock of its own frequency,
// so P[p + k] is a fixed rotation of P[p]. REQUIRES: S >= 0, D >= 1 (else heed::Error).
Tensor sinusoidal_positions(int64_t S, int64_t D);

// A learned table (max_len, D), row p for position p, from N(0, 1) like Embedding.
class PositionEmbedding : public Module {
 public:
  // REQUIRES: max_len, dim >= 1.
  PositionEmbedding(int64_t max_len, int64_t dim, Generator& gen);

  // The first S rows (S, D), which broadcast over a batch (B, S, D). heed::Error when S > max_len.
  Var forward(int64_t S) const;

  int64_t max_len() const { return weight.shape()[0]; }

  Var weight;  // (max_len, D), registered as "weight"
};

// A Transformer's input, token vectors plus positions: ids (B, L) row-major at positions offset ..
// offset + L - 1 -> table(ids) scale + P[offset .. offset + L - 1] (B, L, D), P the rows of
// `learned` when given, else sinusoidal_positions. scale: sqrt(D) in Vaswani et al.'s
// encoder-decoder, 1 (no multiply) in GPT's decoder-only model. heed::Error naming `who` when a
// position is beyond the learned table's rows. Hook points prefix + hook_embed (table(ids) scale,
// (B, L, D)) and prefix + hook_pos_embed (the positions, (L, D)) when hooks is given.
Var embed_with_positions(const std::string& who, const Embedding& table, const PositionEmbedding* learned,
                         const std::vector<int64_t>& ids, int64_t B, int64_t L, int64_t offset, real scale,
                         Hooks* hooks = nullptr, const std::string& prefix = {});

}  // namespace heed
