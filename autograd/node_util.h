// Small helpers shared by the backward functions (internal to autograd/ and nn/).
#pragma once

#include "autograd/var.h"

namespace heed {

// Input i of `self` when it wants a gradient, else nullptr (so its work is skipped).
inline Node* wants_grad(Node& self, size_t i) {
  Node* n = self.inputs[i].get();
  return n->requires_grad ? n : nullptr;
}

// n's gradient as a buffer a kernel can add into in place (gemm with accumulate): zeros of the
// value's shape on first use, as Node::accumulate would have started from.
inline Tensor& grad_buffer(Node* n) {
  if (!n->has_grad) {
    n->grad = Tensor::zeros(n->value.shape());
    n->has_grad = true;
  }
  return n->grad;
}

}  // namespace heed
