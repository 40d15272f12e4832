#include "nn/positions.h"

#include <cmath>
#include <string>

#include "autograd/functions.h"
#include "nn/init.h"
#include "tensor/math.h"

namespace heed {

Tensor sinusoidal_positions(int64_t S, int64_t D) {
  if (S < 0 || D < 1)
    throw Error("sinusoidal_positions: length " + std::to_string(S) + " and dim " + std::to_string(D) +
                " must be >= 0 and >= 1");
  Tensor P = Tensor::zeros({S, D});  // (S, D)
  for (int64_t i = 0; 2 * i < D; ++i) {
    real freq = math::pow(real(10000), -static_cast<real>(2 * i) / static_cast<real>(D));  // 1 / 10000^(2i/D)
    for (int64_t p = 0; p < S; ++p) {
      P[p * D + 2 * i] = math::sin(static_cast<real>(p) * freq);
      if (2 * i + 1 < D) P[p * D + 2 * i + 1] = math::cos(static_cast<real>(p) * freq);
    }
  }
  return P;
}

PositionEmbedding::PositionEmbedding(int64_t max_len, int64_t dim, Generator& gen) {
  if (max_len < 1 || dim < 1)
    throw Error("PositionEmbedding: max_len " + std::to_string(max_len) + " and dim " + std::to_string(dim) +
                " must be positive");
  weight = register_parameter("weight", embedding_init(max_len, dim, gen));
}

Var PositionEmbedding::forward(int64_t S) const {
  if (S < 1 || S > max_len())
    throw Error("PositionEmbedding: length " + std::to_string(S) + " is outside [1, " + std::to_string(max_len()) +
                "], the positions it was built for");
  return slice(weight, 0, 0, S);  // rows 0 .. S-1
}

Var embed_with_positions(const std::string& who, const Embedding& table, const PositionEmbedding* learned,
                         const std::vector<int64_t>& ids, int64_t B, int64_t L, int64_t offset, real scale,
                         Hooks* hooks, const std::string& prefix) {
  const int64_t D = table.weight.shape()[1];
  Var e = reshape(table.forward(ids), {B, L, D});  // (B, L, D)
  if (scale != 1) e = e * scale;
  Var p;  // (L, D), broadcast over B
  if (learned) {
    if (offset + L > learned->max_len())
      throw Error(who + ": position " + std::to_string(offset + L - 1) + " is beyond the " +
                  std::to_string(learned->max_len()) + " learned positions");
    p = slice(learned->weight, 0, offset, offset + L);
  } else {
    Tensor P = sinusoidal_positions(offset + L, D);
    p = Var(Tensor({L, D}, std::vector<real>(P.data() + offset * D, P.data() + (offset + L) * D)));
  }
  e = hook(hooks, prefix, "hook_embed", e);  // before the positions: a hook sees them in this order
  return e + hook(hooks, prefix, "hook_pos_embed", p);
}

}  // namespace heed
