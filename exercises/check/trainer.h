// A small attention model for the exercises' training checks: GRU encoder and Bahdanau's decoder
// step of models/seq2seq.cpp (score the encoder states with s_{t-1}, masked softmax, context,
// cell input [emb(y); c], output W_out [s; c] + b), with the score function given. Trained on
// reverse with the library's recipe (models/train.h: Adam 3e-3 decayed linearly, clip 1); scored by
// greedy decoding.
#pragma once

#include <functional>
#include <vector>

#include "autograd/var.h"
#include "tensor/random.h"

namespace heed::check {

struct TrainSetup {
  int64_t min_len = 5, max_len = 8, vocab = 10;
  int64_t embed = 16, hidden = 32, batch = 32, steps = 300;
  uint64_t seed = 1;
};

// score(h (B, S, H), s (B, H)) -> (B, S); its own weights are `score_params` (trained too).
using ScoreOf = std::function<Var(const Var& h, const Var& s)>;

// Trains and returns the exact accuracy of greedy decoding (L + 1 steps) on 200 fresh sources.
real train_reverse(const ScoreOf& score, const std::vector<Var>& score_params, const TrainSetup& setup);

}  // namespace heed::check
