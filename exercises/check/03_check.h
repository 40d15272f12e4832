// Chapter 03's functions to check, as a table, and their checks.
#pragma once

#include <functional>

#include "exercises/check/check.h"

namespace heed::check {

struct Impl03 {
  Tensor (*numeric_gradient)(const std::function<real(const Tensor&)>&, const Tensor&, real);
  Tensor (*softplus_backward)(const Tensor&, const Tensor&);
  std::pair<Tensor, Tensor> (*div_backward)(const Tensor&, const Tensor&, const Tensor&);
};
#define HEED_IMPL_03(ns) Impl03{ns::numeric_gradient, ns::softplus_backward, ns::div_backward}

std::vector<Exercise> exercises_03(const Impl03& impl);

}  // namespace heed::check
