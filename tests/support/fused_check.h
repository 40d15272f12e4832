// The comparison of a fused op with the composed ops it replaces (ch05 and ch07 fused tests).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "tensor/tensor.h"
#include "tests/support/precision.h"

namespace heed {

// Every element within 1e-12 (test::tol: in float, the same units of its epsilon) of the reference, relative to the reference's largest element: an
// element that is a sum of cancelling terms is small, and carries the rounding of the terms.
inline void check_rel(const Tensor& got, const Tensor& want, const std::string& what) {
  REQUIRE(got.shape() == want.shape());
  real scale = 0;
  for (real w : want.values()) scale = std::max(scale, std::fabs(w));
  for (int64_t k = 0; k < want.numel(); ++k) {
    INFO(what << " element " << k << ": fused " << got[k] << ", composed " << want[k] << ", largest " << scale);
    CHECK(std::fabs(got[k] - want[k]) <= test::tol(1e-12) * scale);
  }
}

}  // namespace heed
