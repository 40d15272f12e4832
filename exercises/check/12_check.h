// Chapter 12's functions to check, as a table, and their checks.
#pragma once

#include "exercises/check/check.h"

namespace heed::check {

struct Impl12 {
  Var (*cosine_scores)(const Var&, const Var&, const Var&);
  Var (*causal_attention)(const Var&, const Var&, const Var&);
  Tensor (*split_heads)(const Tensor&, int64_t);
};
#define HEED_IMPL_12(ns) Impl12{ns::cosine_scores, ns::causal_attention, ns::split_heads}

std::vector<Exercise> exercises_12(const Impl12& impl);

}  // namespace heed::check
