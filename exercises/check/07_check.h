// Chapter 07's functions to check, as a table, and their checks.
#pragma once

#include "exercises/07_additive_attention/exercises.h"
#include "exercises/check/check.h"

namespace heed::check {

struct Impl07 {
  Var (*additive_scores)(const Var&, const Var&, const Var&, const Var&, const Var&);
  Var (*masked_softmax_rows)(const Var&, const Tensor&);
  Var (*context_vector)(const Var&, const Var&);
  // The capstone (07.4-07.6).
  Var (*decoder_step)(const course::AttentionModel&, const std::vector<int64_t>&, Var&, const Var&, const Tensor&);
  Var (*batch_loss)(const course::AttentionModel&, const Batch&);
  std::vector<real> (*train_loop)(course::AttentionModel&, Adam&, const Task&, Generator&, int64_t, int64_t, real);
};
#define HEED_IMPL_07(ns) \
  Impl07{ns::additive_scores, ns::masked_softmax_rows, ns::context_vector, ns::decoder_step, ns::batch_loss, ns::train_loop}

std::vector<Exercise> exercises_07(const Impl07& impl);

// The training part of 07.1's check: the chapter's model with this score must learn reverse 5-8.
void expect_learns_reverse(Var (*additive_scores)(const Var&, const Var&, const Var&, const Var&, const Var&));


}  // namespace heed::check
