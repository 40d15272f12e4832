// Chapter 04: write these six functions, then run `make exercise-04`.
// tensor/ops.h and autograd/functions.h have what you need (softmax, log_softmax, max, sum,
// matmul_nt, linear ...); plain loops over t[i * D + j] are just as good.
#include "exercises/04_classifiers/exercises.h"

namespace heed::student {

Tensor softmax_backward(const Tensor& y, const Tensor& dy) {
  not_done("write softmax_backward: dx = y * (dy - the row's sum of y * dy)");
}

real cross_entropy_value(const Tensor& logits, const std::vector<int64_t>& targets, int64_t ignore_index) {
  not_done("write cross_entropy_value: the mean over kept rows of log-sum-exp (max subtracted) minus the target's logit");
}

Tensor cross_entropy_backward(const Tensor& logits, const std::vector<int64_t>& targets, int64_t ignore_index) {
  not_done("write cross_entropy_backward: (softmax(row) - onehot(target)) / kept rows; ignored rows 0");
}

Var linear_forward(const Var& x, const Var& W, const Var& b) {
  not_done("write linear_forward: x W^T + b from autograd ops");
}

Tensor embedding_backward(const std::vector<int64_t>& ids, const Tensor& dy, int64_t V, int64_t padding_idx) {
  not_done("write embedding_backward: add dy's row r into dW's row ids[r], skipping padding_idx");
}

void adam_step(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, int64_t t, real lr, real b1, real b2, real eps) {
  not_done("write adam_step: update m and v, then p with the bias-corrected moments");
}

}  // namespace heed::student
