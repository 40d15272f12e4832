// Properties every Model (models/model.h) must have, written once and checked by each model's
// chapter suite (ch06 the recurrent Seq2Seq, ch13 the Transformer, ch14 the decoder-only model):
// padding never changes a result, and decoding step by step gives the teacher-forced logits.
// Each reports through doctest's CHECKs, so a failure names the test case that called it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "models/model.h"
#include "models/tasks/tasks.h"

namespace heed::test {

// `ex` alone, and `ex` padded beside the longer `longer` (its second row), give bit-identical
// logits of ex's positions, the same loss over its targets and the same gradient in every
// parameter (docs/architecture.md: padding never changes a result).
void check_padding_invariance(Model& model, const Example& ex, const Example& longer);

// Decoding `batch` step by step (start_decoding, decode_step on the teacher's tokens) gives the
// logits of forward(batch) to 1e-12 at every real target position. `each` (optional) sees every
// step's output. Returns the state after the last step.
std::unique_ptr<StepState> check_steps_match_forward(
    const Model& model, const Batch& batch,
    const std::function<void(int64_t t, const StepOutput&)>& each = {});

}  // namespace heed::test
