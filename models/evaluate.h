// Evaluation of a trained Model (models/model.h) on a Task, as docs/models.md pins it: greedy decoding for
// exactly L+1 steps, scored by two numbers, exact (the L symbols and the EOS after them all
// right) and token (the fraction of the L symbol positions that are right). Training is in
// models/train.h; nothing here changes the model.
#pragma once

#include <cstdint>
#include <vector>

#include "models/model.h"
#include "models/tasks.h"

namespace heed {

struct Accuracy {
  int64_t length = 0;  // source length (0: mixed)
  int64_t n = 0;       // sequences
  int64_t exact_right = 0, tokens_right = 0, tokens = 0;
  real exact() const { return n ? static_cast<real>(exact_right) / n : 0; }
  real token() const { return tokens ? static_cast<real>(tokens_right) / tokens : 0; }
};

// Greedy decoding of `batch` for T steps; adds its counts to `acc`: a sequence is exact when
// its L symbols and the EOS after them are right; token counts the L symbol positions.
void score_batch(const Model& model, const Batch& batch, Accuracy& acc);
// The same counts from a greedy decoding of `batch` already made (at least T steps).
void score_decoded(const Decoded& d, const Batch& batch, Accuracy& acc);

// `samples` sequences of each source length, drawn from Generator(seed).
std::vector<Accuracy> evaluate_by_length(const Model& model, const Task& task, const std::vector<int64_t>& lengths,
                                         int64_t samples, uint64_t seed);
// `samples` held-out sequences (fresh draws for the toy tasks, held-out pairs for translate).
Accuracy evaluate_held_out(const Model& model, const Task& task, int64_t samples, uint64_t seed);

}  // namespace heed
