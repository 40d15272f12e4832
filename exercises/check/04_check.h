// Chapter 04's functions to check, as a table, and their checks.
#pragma once

#include "exercises/check/check.h"

namespace heed::check {

struct Impl04 {
  Tensor (*softmax_backward)(const Tensor&, const Tensor&);
  real (*cross_entropy_value)(const Tensor&, const std::vector<int64_t>&, int64_t);
  Tensor (*cross_entropy_backward)(const Tensor&, const std::vector<int64_t>&, int64_t);
  Var (*linear_forward)(const Var&, const Var&, const Var&);
  Tensor (*embedding_backward)(const std::vector<int64_t>&, const Tensor&, int64_t, int64_t);
  void (*adam_step)(Tensor&, const Tensor&, Tensor&, Tensor&, int64_t, real, real, real, real);
};
#define HEED_IMPL_04(ns)                                                                                  \
  Impl04 {                                                                                                \
    ns::softmax_backward, ns::cross_entropy_value, ns::cross_entropy_backward, ns::linear_forward,      \
        ns::embedding_backward, ns::adam_step                                                            \
  }

std::vector<Exercise> exercises_04(const Impl04& impl);

}  // namespace heed::check
