// Chapter 04's exercises: the pieces of a classifier. softmax's backward, cross-entropy forward
// and backward, a Linear layer's product, an Embedding's scatter-add backward, and Adam's update.
// What each must do, and how it is checked: README.md in this folder.
#pragma once

#include <vector>

#include "autograd/functions.h"
#include "exercises/not_done.h"
#include "tensor/ops.h"

namespace heed::student {

// y = softmax of each row of x (N, D). Given y and dy (N, D), return dx (N, D).
Tensor softmax_backward(const Tensor& y, const Tensor& dy);

// Cross-entropy: the mean over kept rows r (targets[r] != ignore_index) of
// -log softmax(logits[r])[targets[r]]; 0 when no row is kept. logits (N, V), targets (N).
// Stable for logits of any finite size.
real cross_entropy_value(const Tensor& logits, const std::vector<int64_t>& targets, int64_t ignore_index);

// Its gradient with respect to the logits (N, V), for dL = 1.
Tensor cross_entropy_backward(const Tensor& logits, const std::vector<int64_t>& targets, int64_t ignore_index);

// A Linear layer's forward from autograd ops (autograd/functions.h): y (N, out) = x (N, in) W^T + b,
// with W (out, in) and b (out). Gradients then come from the graph.
Var linear_forward(const Var& x, const Var& W, const Var& b);

// An Embedding looked up row ids[r] of its table W (V, E) for each r; dy (N, E) is the gradient of
// those rows. Return dW (V, E): dy[r] added into row ids[r] (ids may repeat), except rows whose id
// is padding_idx (-1: none), which get nothing.
Tensor embedding_backward(const std::vector<int64_t>& ids, const Tensor& dy, int64_t V, int64_t padding_idx);

// One Adam step (torch.optim.Adam, no weight decay) at step t (1, 2, ...), in place on the
// parameter p, its moments m and v, given its gradient g:
//   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;
//   p -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
void adam_step(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, int64_t t, real lr, real b1, real b2, real eps);

}  // namespace heed::student
