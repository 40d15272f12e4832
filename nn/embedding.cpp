#include "nn/embedding.h"

#include <algorithm>
#include <string>

#include "autograd/layout.h"
#include "nn/init.h"

namespace heed {

Var embedding(const Var& weight, const std::vector<int64_t>& ids, int64_t padding_idx) {
  const Shape& ws = weight.shape();
  if (ws.size() != 2) throw Error("Embedding: weight " + shape_str(ws) + " must be 2-D (num, dim)");
  int64_t V = ws[0], E = ws[1];
  int64_t N = static_cast<int64_t>(ids.size());
  Tensor out = Tensor::empty({N, E});  // (N, E)
  const real* w = weight.value().data();
  for (int64_t r = 0; r < N; ++r) {
    int64_t id = ids[r];
    if (id < 0 || id >= V)
      throw Error("Embedding: id " + std::to_string(id) + " at position " + std::to_string(r) +
                  " is out of range for a vocabulary of " + std::to_string(V));
    std::copy(w + id * E, w + (id + 1) * E, out.data() + r * E);
  }
  return make_var(std::move(out), "embedding", {weight}, [ids, padding_idx, ws](Backward& g) {
    // dW[ids[r]] += dy[r], except the padding row
    Tensor d = Tensor::zeros(ws);
    int64_t E = ws[1];
    const real* dy = g.grad().data();
    for (size_t r = 0; r < ids.size(); ++r) {
      if (ids[r] == padding_idx) continue;
      real* row = d.data() + ids[r] * E;
      for (int64_t k = 0; k < E; ++k) row[k] += dy[r * E + k];
    }
    g.add(0, std::move(d));
  });
}

Embedding::Embedding(int64_t num, int64_t dim, Generator& gen, int64_t padding_idx)
    : padding_idx_(padding_idx < 0 ? -1 : padding_idx) {
  if (padding_idx >= num)
    throw Error("Embedding: padding_idx " + std::to_string(padding_idx) + " is out of range for a vocabulary of " +
                std::to_string(num));
  Tensor w = embedding_init(num, dim, gen);  // (num, dim)
  if (padding_idx_ >= 0) std::fill(w.data() + padding_idx_ * dim, w.data() + (padding_idx_ + 1) * dim, real(0));
  weight = register_parameter("weight", std::move(w));
}

Var Embedding::forward(const std::vector<int64_t>& ids) const { return embedding(weight, ids, padding_idx_); }

Var Embedding::forward(const std::vector<int64_t>& ids, const Shape& shape) const {
  if (shape_numel(shape) != static_cast<int64_t>(ids.size()))
    throw Error("Embedding: " + std::to_string(ids.size()) + " ids cannot be laid out as " + shape_str(shape));
  Shape out = shape;
  out.push_back(embedding_dim());
  return reshape(embedding(weight, ids, padding_idx_), out);  // (N, E) -> (shape..., E)
}

}  // namespace heed
