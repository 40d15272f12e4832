// Your heed's additive score: heed::AdditiveScore::score(query, prepared), Bahdanau's
// v^T tanh(W1 h_i + W2 s) at every decoder step (nn/attention.cpp), on your additive_scores
// (exercise 07.1). make yours links this file in place of heed's when 07.1 has passed; every
// additive attention of heed (--model additive) then scores the source positions with yours.
// heed computes W1 h_i once per batch (AdditiveScore::prepare, still heed's) and hands each step
// those prepared keys; yours takes h and W1. So yours is handed the prepared keys as its h, with
// W1 the identity: (W1 h_i) I^T is W1 h_i exactly, and the gradient through it too. W2 and v are
// the layer's own. What it costs: one (B S, A) x (A, A) product more per step, forward and
// backward, and the composed graph's nodes in place of heed's one fused node.
#include "exercises/07_additive_attention/exercises.h"
#include "nn/attention.h"

namespace heed {

Var AdditiveScore::score(const Var& query, const Var& prepared) const {
  const int64_t A = v.in_features();
  if (query.value().dim() != 2 || prepared.value().dim() != 3 || query.shape()[0] != prepared.shape()[0] ||
      query.shape()[1] != W2.in_features() || prepared.shape()[2] != A)
    throw Error("additive attention (yours, exercise 07.1): query " + shape_str(query.shape()) + " and keys " +
                shape_str(prepared.shape()) + " must be (B, " + std::to_string(W2.in_features()) + ") and (B, S, " +
                std::to_string(A) + ")");
  Tensor identity = Tensor::zeros({A, A});
  for (int64_t i = 0; i < A; ++i) identity[i * A + i] = 1;
  return student::additive_scores(prepared, query, Var(identity), W2.weight, reshape(v.weight, {A}));
}

}  // namespace heed
