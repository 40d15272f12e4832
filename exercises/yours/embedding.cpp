// Your heed's embedding: heed::embedding(weight, ids, padding_idx), the lookup every Embedding
// runs, with your embedding_backward (exercise 04.5) as its backward rule. make yours links this
// file in place of heed's (nn/embedding.cpp) when 04.5 has passed: every token embedding's
// gradient is then yours. The lookup itself (row ids[r] of the table, copied) and its checks are
// heed's, written again here because the whole function is replaced.
#include <algorithm>
#include <string>

#include "exercises/04_classifiers/exercises.h"
#include "nn/embedding.h"

namespace heed {

Var embedding(const Var& weight, const std::vector<int64_t>& ids, int64_t padding_idx) {
  const Shape& ws = weight.shape();
  if (ws.size() != 2) throw Error("Embedding: weight " + shape_str(ws) + " must be 2-D (num, dim)");
  const int64_t V = ws[0], E = ws[1], N = static_cast<int64_t>(ids.size());
  Tensor out = Tensor::empty({N, E});  // out[r] = weight[ids[r]]
  const real* w = weight.value().data();
  for (int64_t r = 0; r < N; ++r) {
    const int64_t id = ids[r];
    if (id < 0 || id >= V)
      throw Error("Embedding: id " + std::to_string(id) + " at position " + std::to_string(r) +
                  " is out of range for a vocabulary of " + std::to_string(V));
    std::copy(w + id * E, w + (id + 1) * E, out.data() + r * E);
  }
  return make_var(std::move(out), "embedding", {weight}, [ids, padding_idx, ws](Backward& g) {
    // dW[ids[r]] += dy[r], except the padding row: yours
    Tensor dw = student::embedding_backward(ids, g.grad(), ws[0], padding_idx);
    if (dw.shape() != ws)
      throw Error("embedding (yours, exercise 04.5): embedding_backward returned " + shape_str(dw.shape()) +
                  " for a table of " + shape_str(ws));
    g.add(0, std::move(dw));
  });
}

}  // namespace heed
