// Chapter 13's functions to check, as a table, and their checks.
#pragma once

#include "exercises/check/check.h"
#include "nn/transformer_layers.h"

namespace heed::check {

struct Impl13 {
  Var (*layer_norm_rows)(const Var&, const Var&, const Var&);
  Var (*decoder_layer)(const TransformerDecoderLayer&, const Var&, const Tensor&, const Var&, const Tensor&);
  Var (*transformer_input)(const Var&, const std::vector<int64_t>&, int64_t, int64_t);
};
#define HEED_IMPL_13(ns) Impl13{ns::layer_norm_rows, ns::decoder_layer, ns::transformer_input}

std::vector<Exercise> exercises_13(const Impl13& impl);

}  // namespace heed::check
