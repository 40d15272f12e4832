// Chapter 05's functions to check, as a table, and their checks.
#pragma once

#include "exercises/check/check.h"
#include "nn/rnn_cell.h"

namespace heed::check {

struct Impl05 {
  Var (*gru_step)(const Var&, const Var&, const Var&, const Var&, const Var&, const Var&);
  std::pair<Var, Var> (*lstm_step)(const Var&, const Var&, const Var&, const Var&, const Var&, const Var&, const Var&);
  Var (*last_state)(const Cell&, const Var&, const std::vector<int64_t>&);
};
#define HEED_IMPL_05(ns) Impl05{ns::gru_step, ns::lstm_step, ns::last_state}

std::vector<Exercise> exercises_05(const Impl05& impl);

}  // namespace heed::check
