// Chapter 06's functions to check, as a table, and their checks.
#pragma once

#include "exercises/check/check.h"
#include "models/seq2seq.h"

namespace heed::check {

struct Impl06 {
  std::pair<std::vector<int64_t>, std::vector<int64_t>> (*decoder_io)(const std::vector<std::vector<int64_t>>&);
  std::vector<std::vector<int64_t>> (*greedy_decode)(const Seq2Seq&, const Batch&, int64_t);
  std::pair<int64_t, int64_t> (*exact_and_tokens)(const std::vector<int64_t>&, const std::vector<int64_t>&);
};
#define HEED_IMPL_06(ns) Impl06{ns::decoder_io, ns::greedy_decode, ns::exact_and_tokens}

std::vector<Exercise> exercises_06(const Impl06& impl);

}  // namespace heed::check
