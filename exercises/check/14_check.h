// Chapter 14's functions to check, as a table, and their checks; and the small decoder-only
// model they (and tests/models/analysis/ch14_heads_test.cpp) build.
#pragma once

#include "exercises/check/check.h"
#include "models/config.h"

namespace heed::check {

struct Impl14 {
  Tensor (*causal_mask)(const std::vector<int64_t>&, int64_t);
  real (*induction_score)(const Tensor&, int64_t);
  int64_t (*sample_token)(const Tensor&, real, int64_t, real);
};
#define HEED_IMPL_14(ns) Impl14{ns::causal_mask, ns::induction_score, ns::sample_token}

std::vector<Exercise> exercises_14(const Impl14& impl);

// The decoder-only model of models/decoder_model.h, attention-only with learned positions, over
// the repeat task's V symbols (the three specials before them).
inline ModelConfig decoder_config(int64_t V, int64_t D, int64_t layers, int64_t heads) {
  ModelConfig c;
  c.model = "decoder";
  c.src_vocab = c.tgt_vocab = V + 3;
  c.embed = D;
  c.layers = layers;
  c.heads = heads;
  c.attention_only = true;
  c.positions = "learned";
  c.max_src_len = 32;
  return c;
}

}  // namespace heed::check
