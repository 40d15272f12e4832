// Chapter 09's functions to check, as a table, and their checks.
#pragma once

#include "exercises/check/check.h"

namespace heed::check {

struct Impl09 {
  std::vector<int64_t> (*mirror_offsets)(const Tensor&, int64_t);
  Tensor (*row_entropy)(const Tensor&);
};
#define HEED_IMPL_09(ns) Impl09{ns::mirror_offsets, ns::row_entropy}

std::vector<Exercise> exercises_09(const Impl09& impl);

}  // namespace heed::check
