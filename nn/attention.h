// Attention, as the papers introduced it: score every encoder state (a key) against the
// decoder's state (the query), turn the scores into a probability distribution over the
// real positions with a masked softmax, and take the weighted sum of the encoder states.
//
//   score(query (B, Dq), keys (B, S, Dk)) -> (B, S)       one class per score function
//   weights = masked_softmax(scores, mask)                 shared
//   context = sum_i weights_i h_i                          shared
//
// Key projections that do not depend on the decoder step (W1 h_i, W h_i) are computed once
// per batch by prepare(); score() then costs only the query's part at each step.
#pragma once

#include <memory>
#include <string>

#include "autograd/softmax.h"  // masked_softmax(scores (B, S), mask (B, S)): the weights
#include "nn/linear.h"
#include "nn/module.h"

namespace heed {

class Score : public Module {
 public:
  // keys (B, S, Dk) -> whatever score() needs per position; computed once per batch.
  virtual Var prepare(const Var& keys) const { return keys; }
  // query (B, Dq), prepared keys from prepare() -> scores (B, S).
  virtual Var score(const Var& query, const Var& prepared) const = 0;
  virtual std::string name() const = 0;
};

// Bahdanau: e_i = v^T tanh(W1 h_i + W2 s), no biases.
class AdditiveScore : public Score {
 public:
  AdditiveScore(int64_t query_size, int64_t key_size, int64_t attention_size, Generator& gen);
  Var prepare(const Var& keys) const override;  // W1 h_i: (B, S, A)
  Var score(const Var& query, const Var& prepared) const override;
  std::string name() const override { return "additive"; }
  Linear W1, W2;  // (A, Dk), (A, Dq)
  Linear v;       // weight (1, A): PyTorch's nn.Linear(A, 1, bias=False); registered first
};

// The additive score's core, e (B, S) = v^T tanh(prepared (B, S, A) + q (B, A)) with q added at
// every position, as one graph node with a hand-written backward. v (A) or (1, A), a Linear(A, 1)'s
// weight. Rows are independent.
// backward() reads v from the graph: REQUIRES v unchanged in place until then.
Var additive_score(const Var& prepared, const Var& q, const Var& v);
// The same composed from autograd ops (add, tanh, matmul): the readable reference and test oracle.
Var additive_score_composed(const Var& prepared, const Var& q, const Var& v);

// Luong's general: e_i = s^T W h_i, no bias.
class GeneralScore : public Score {
 public:
  GeneralScore(int64_t query_size, int64_t key_size, Generator& gen);
  Var prepare(const Var& keys) const override;  // W h_i: (B, S, Dq)
  Var score(const Var& query, const Var& prepared) const override;
  std::string name() const override { return "general"; }
  Linear W;  // (Dq, Dk)
};

// Luong's dot: e_i = s^T h_i (general with W the identity); scaled (Vaswani): divided by sqrt(D).
class DotScore : public Score {
 public:
  explicit DotScore(bool scaled) : scaled_(scaled) {}
  Var score(const Var& query, const Var& prepared) const override;
  std::string name() const override { return scaled_ ? "scaled" : "dot"; }

 private:
  bool scaled_;
};

// Graves' content-based addressing: e_i = beta * cos(s, h_i), beta a learned scalar.
class CosineScore : public Score {
 public:
  CosineScore();
  Var prepare(const Var& keys) const override;  // h_i / |h_i|
  Var score(const Var& query, const Var& prepared) const override;
  std::string name() const override { return "cosine"; }
  Var beta;  // (1), starts at 1
};

// Luong's location-based: e = W_a s over positions 1..S_max; looks at no key.
class LocationScore : public Score {
 public:
  LocationScore(int64_t query_size, int64_t max_positions, Generator& gen);
  Var score(const Var& query, const Var& prepared) const override;  // uses prepared only for S
  std::string name() const override { return "location"; }
  Linear W_a;  // (S_max, Dq), no bias
};

// kind: additive, general, dot, scaled, cosine, location.
std::unique_ptr<Score> make_score(const std::string& kind, int64_t query_size, int64_t key_size,
                                  int64_t attention_size, int64_t max_positions, Generator& gen);

struct Attention {
  Var context;  // (B, Dv)
  Var weights;  // (B, S)
};

// The shared second half: weights = masked_softmax(scores), context = weighted_sum(weights, values).
Attention attend(const Var& scores, const Var& values, const Tensor& mask);

// context (B, D) = sum_i weights_i values_i, from weights (B, S) and values (B, S, D), as one graph
// node. backward() adds the values' share into their gradient in place (no (B, S, D) tensor per
// decoder step) and reads weights and values from the graph: REQUIRES them unchanged until then.
Var weighted_sum(const Var& weights, const Var& values);

}  // namespace heed
