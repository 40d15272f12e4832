// Chapter 10's functions to check, as a table, and their checks.
#pragma once

#include "exercises/check/check.h"
#include "models/seq2seq.h"

namespace heed::check {

struct Impl10 {
  real (*clip_by_global_norm)(std::vector<Tensor>&, real);
  std::vector<real> (*gradient_to_source)(const Seq2Seq&, const Batch&, int64_t);
};
#define HEED_IMPL_10(ns) Impl10{ns::clip_by_global_norm, ns::gradient_to_source}

std::vector<Exercise> exercises_10(const Impl10& impl);

}  // namespace heed::check
