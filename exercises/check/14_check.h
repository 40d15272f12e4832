// Chapter 14's functions to check, as a table, and their checks.
#pragma once

#include "exercises/check/check.h"

namespace heed::check {

struct Impl14 {
  Tensor (*causal_mask)(const std::vector<int64_t>&, int64_t);
  real (*induction_score)(const Tensor&, int64_t);
  int64_t (*sample_token)(const Tensor&, real, int64_t, real);
};
#define HEED_IMPL_14(ns) Impl14{ns::causal_mask, ns::induction_score, ns::sample_token}

std::vector<Exercise> exercises_14(const Impl14& impl);

}  // namespace heed::check
