// Chapter 06's exercises: the decoder's teacher-forced inputs and targets, greedy decoding with
// the model's own pieces, and the exact and token metrics. What each must do: README.md here.
#pragma once

#include <utility>
#include <vector>

#include "exercises/not_done.h"
#include "models/seq2seq.h"
#include "models/tasks/vocab.h"

namespace heed::student {

// For B target sequences (ids, without BOS/EOS) of lengths L_b, the decoder's input BOS y1 .. yL
// and its target y1 .. yL EOS, each padded with PAD to T = max L_b + 1 and laid out row-major
// (B, T). Returns {input, target}. Vocab::kPad, kBos, kEos are the special ids.
std::pair<std::vector<int64_t>, std::vector<int64_t>> decoder_io(const std::vector<std::vector<int64_t>>& targets);

// Greedy decoding of `batch` for exactly `steps` steps, from model.start(batch) and
// model.step(prev, state): each step feeds every row the token it chose at the previous step
// (BOS at the first) and chooses the argmax of model.logits(out). No gradients are needed.
// Returns the chosen ids, (B, steps).
std::vector<std::vector<int64_t>> greedy_decode(const Seq2Seq& model, const Batch& batch, int64_t steps);

// Scores one output against its target y1 .. yL (without EOS): {exact, tokens}. exact is 1 when
// output[0 .. L-1] equals the target and output[L] is EOS, else 0; tokens counts the positions
// t < L where output[t] equals target[t]. REQUIRES: output.size() > L.
std::pair<int64_t, int64_t> exact_and_tokens(const std::vector<int64_t>& output, const std::vector<int64_t>& target);

}  // namespace heed::student
