// One extension of a live beam-search hypothesis: what best_extensions (exercises.h) returns.
#pragma once

#include <cstdint>

#include "tensor/tensor.h"

namespace heed {

struct BeamCandidate {
  int64_t parent = 0;  // which live hypothesis it extends (row of log_probs)
  int64_t token = 0;   // the token it appends
  real total = 0;      // the parent's total log-probability plus log_probs[parent, token]
};

}  // namespace heed
