// Chapter 11's functions to check, as a table, and their checks.
#pragma once

#include "exercises/check/check.h"
#include "exercises/11_translation/candidate.h"
#include "models/beam.h"

namespace heed::check {

struct Impl11 {
  std::vector<BeamCandidate> (*best_extensions)(const Tensor&, const std::vector<real>&, int64_t);
  void (*rank_hypotheses)(std::vector<Hypothesis>&);
};
#define HEED_IMPL_11(ns) Impl11{ns::best_extensions, ns::rank_hypotheses}

std::vector<Exercise> exercises_11(const Impl11& impl);

}  // namespace heed::check
