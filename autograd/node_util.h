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

// self's gradient for a backward function to pass on: moved out when backward() is about to
// discard it anyway (the node does not retain its gradient), else copied. Call it at most once,
// after every other read of self.grad.
inline Tensor take_grad(Node& self) { return self.retain_grad ? self.grad : std::move(self.grad); }

// Where a kernel that can either write or add (gemm) should put n's gradient: n's gradient, to
// add to (`add` true), or, on first use, a fresh tensor to write in full (`add` false), which
// saves zeroing it first. Both give the same values: the first contribution is x either way.
inline Tensor& grad_target(Node* n, bool& add) {
  add = n->has_grad;
  if (!n->has_grad) {
    n->grad = Tensor::empty(n->value.shape());
    n->has_grad = true;
  }
  return n->grad;
}

}  // namespace heed
