// Chapter 02's solutions.
#include "exercises/02_autograd/exercises.h"

namespace heed::student {

Tensor tanh_backward(const Tensor&, const Tensor& y, const Tensor& dy) {
  return mul(dy, sub(Tensor::ones(y.shape()), mul(y, y)));  // dx = dy (1 - y^2)
}

std::pair<Tensor, Tensor> mul_backward(const Tensor& a, const Tensor& b, const Tensor& dy) {
  return {mul(dy, b), mul(dy, a)};  // da = dy b, db = dy a
}

std::pair<Tensor, Tensor> matmul_backward(const Tensor& a, const Tensor& b, const Tensor& dy) {
  return {matmul_nt(dy, b), matmul_tn(a, dy)};  // da = dy b^T, db = a^T dy
}

}  // namespace heed::student
