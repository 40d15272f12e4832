// Chapter 07's functions to check, as a table, and their checks.
#pragma once

#include "exercises/check/check.h"

namespace heed::check {

struct Impl07 {
  Var (*additive_scores)(const Var&, const Var&, const Var&, const Var&, const Var&);
  Var (*masked_softmax_rows)(const Var&, const Tensor&);
  Var (*context_vector)(const Var&, const Var&);
};
#define HEED_IMPL_07(ns) Impl07{ns::additive_scores, ns::masked_softmax_rows, ns::context_vector}

std::vector<Exercise> exercises_07(const Impl07& impl);

// The training part of 07.1's check: the chapter's model with this score must learn reverse 5-8.
void expect_learns_reverse(Var (*additive_scores)(const Var&, const Var&, const Var&, const Var&, const Var&));


}  // namespace heed::check
