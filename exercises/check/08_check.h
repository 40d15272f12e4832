// Chapter 08's functions to check, as a table, and their checks.
#pragma once

#include "exercises/check/check.h"
#include "nn/rnn_cell.h"

namespace heed::check {

struct Impl08 {
  Var (*general_scores)(const Var&, const Var&, const Var&);
  Var (*scaled_dot_scores)(const Var&, const Var&);
  Var (*attentional_state)(const Var&, const Var&, const Var&);
  std::pair<Var, Var> (*feeding_step)(const Cell&, const Var&, const Var&, const Var&, const Var&, const Tensor&, const Var&,
                                      const Var&);
};
#define HEED_IMPL_08(ns) Impl08{ns::general_scores, ns::scaled_dot_scores, ns::attentional_state, ns::feeding_step}

std::vector<Exercise> exercises_08(const Impl08& impl);

}  // namespace heed::check
