// Dropout (Srivastava et al. 2014): in training, each element is zeroed with probability p and
// the survivors are scaled by 1 / (1 - p), so the expected value is unchanged; at evaluation it
// is the identity. The mask comes from an explicit Generator, so a seed fixes every mask.
#pragma once

#include "autograd/var.h"
#include "tensor/random.h"

namespace heed {

// x * m / (1 - p) with m_i = 1 when gen.uniform() >= p (drawn in row-major order), else 0.
// p = 0 returns x itself and draws nothing; p = 1 gives zeros. The mask is a constant: the
// gradient is dy * m / (1 - p). REQUIRES: 0 <= p <= 1 (else heed::Error).
Var dropout(const Var& x, real p, Generator& gen);

// What a layer needs to apply dropout: a rate and, in training, a generator. With no generator
// (evaluation) or p = 0, apply() is the identity.
struct Dropout {
  real p = 0;
  Generator* gen = nullptr;

  Var apply(const Var& x) const { return gen && p > 0 ? dropout(x, p, *gen) : x; }
};

}  // namespace heed
