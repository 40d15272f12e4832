// Chapter 02's functions to check, as a table, and their checks.
#pragma once

#include "exercises/02_autograd/exercises.h"
#include "exercises/check/check.h"

namespace heed::check {

struct Impl02 {
  Tensor (*tanh_backward)(const Tensor&, const Tensor&, const Tensor&);
  std::pair<Tensor, Tensor> (*mul_backward)(const Tensor&, const Tensor&, const Tensor&);
  std::pair<Tensor, Tensor> (*matmul_backward)(const Tensor&, const Tensor&, const Tensor&);
  Tensor (*sum_backward)(const Tensor&, int64_t, bool, const Tensor&);
  void (*backward_pass)(student::GraphView&, const Tensor&);
};
#define HEED_IMPL_02(ns) Impl02{ns::tanh_backward, ns::mul_backward, ns::matmul_backward, ns::sum_backward, ns::backward_pass}

std::vector<Exercise> exercises_02(const Impl02& impl);

}  // namespace heed::check
