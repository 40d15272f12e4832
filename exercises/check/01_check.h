// Chapter 01's functions to check, as a table, and their checks.
#pragma once

#include <array>

#include "exercises/check/check.h"

namespace heed::check {

struct Impl01 {
  Tensor (*broadcast_add)(const Tensor&, const Tensor&);
  Tensor (*matmul_loops)(const Tensor&, const Tensor&);
  Tensor (*softmax_rows)(const Tensor&);
};
#define HEED_IMPL_01(ns) Impl01{ns::broadcast_add, ns::matmul_loops, ns::softmax_rows}

std::vector<Exercise> exercises_01(const Impl01& impl);

}  // namespace heed::check
