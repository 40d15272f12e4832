// Small helpers shared by the backward functions (internal to autograd/ and nn/).
#pragma once

#include "autograd/var.h"

namespace heed {

// Input i of `self` when it wants a gradient, else nullptr (so its work is skipped).
inline Node* wants_grad(Node& self, size_t i) {
  Node* n = self.inputs[i].get();
  return n->requires_grad ? n : nullptr;
}

}  // namespace heed
