// Finding the heads of a decoder-only model (models/decoder_model.h) by what they do, on the repeat
// task (models/tasks.h), as Olsson et al. 2022 ("In-context Learning and Induction Heads") and
// Elhage et al. 2021 ("A Mathematical Framework for Transformer Circuits") do:
//
// - by where they look: two scores read off each head's attention weights;
// - by what they are for: the loss on the repeated half when one head's output is zeroed.
//
// A repeat sequence with a segment s of n symbols is read as BOS s_1 .. s_n s_1 .. s_n: position
// 0 is BOS, positions 1 .. n the first copy, n+1 .. 2n the second (the 2n + 1 positions of the
// target a decoder-only model reads; the EOS is only predicted). Its symbol s_k sits at k and n+k.
//
//   previous-token score = mean over sequences and positions t = 1 .. 2n of  w[t][t-1]
//       the weight each position gives the one just before it;
//   induction score      = mean over sequences and positions t = n+1 .. 2n of  w[t][t-n+1]
//       the weight a symbol of the second copy (s_k at t = n+k) gives the position right after
//       the same symbol's place in the first copy (k+1, which holds s_{k+1}, the next symbol):
//       where a head that completes "A B ... A" with B looks.
// Both are 1 for a head that always looks exactly there, and 1 / (t+1) on average for a head that
// spreads its weight evenly. (A segment may hold a symbol twice; the induction score still asks
// for the place at the same offset in the first copy, as TransformerLens's offset diagonal does.)
//
// Zeroing head i's output is exact and touches nothing else: the layer's output is
// concat(head_1 .. head_h) W_o^T + b_o, so head i's part is the product with W_o's columns
// i*d_k .. (i+1)*d_k - 1, and with those columns zero its terms add exactly 0. ZeroedHeads does
// that for as long as it lives and puts the columns back, bit for bit, when it goes.
#pragma once

#include <cstdint>
#include <vector>

#include "models/decoder_model.h"
#include "models/tasks.h"

namespace heed {

// A head: layer 0 .. layers-1, head 0 .. heads-1.
struct HeadId {
  int64_t layer = 0, head = 0;
};

struct HeadScore {
  int64_t layer = 0, head = 0;
  real previous_token = 0;  // mean weight from t to t-1
  real induction = 0;       // mean weight from the second copy's t to t-n+1
};

// The two scores of one head from one layer's weights (B, h, T, T) of a batch of repeat sequences
// whose segments have lengths n[b] (each row's real positions are 0 .. 2 n[b]): the sums and counts
// of the terms above, so batches can be added up. REQUIRES: head < h, 2 n[b] < T (else heed::Error).
struct ScoreSums {
  real previous_token = 0, induction = 0;
  int64_t previous_terms = 0, induction_terms = 0;
};
ScoreSums score_head(const Tensor& weights, int64_t head, const std::vector<int64_t>& n);

// Both scores of every head of every layer (layer by layer, head by head), over `samples` repeat
// sequences drawn from Generator(seed) in batches of up to 100, teacher forced.
std::vector<HeadScore> head_scores(const DecoderModel& model, const RepeatTask& task, int64_t samples, uint64_t seed);

// Zeroes the given heads' outputs (their columns of out_proj's weight) while it lives, and
// restores them exactly on leaving scope, by any path. REQUIRES: each head exists (else heed::Error).
class ZeroedHeads {
 public:
  ZeroedHeads(DecoderModel& model, const std::vector<HeadId>& heads);
  ~ZeroedHeads();
  ZeroedHeads(const ZeroedHeads&) = delete;
  ZeroedHeads& operator=(const ZeroedHeads&) = delete;

 private:
  DecoderModel& model_;
  std::vector<std::pair<int64_t, Tensor>> saved_;  // layer and its out_proj.weight before
};

// repeat_halves_loss (models/decoder_model.h) with the given heads' outputs zeroed; the model is
// as it was when this returns.
HalvesLoss ablated_halves_loss(DecoderModel& model, const std::vector<HeadId>& heads, const RepeatTask& task,
                               int64_t samples, uint64_t seed);

// One ablation per head, layer by layer, head by head, each on the same sequences.
struct HeadAblation {
  int64_t layer = 0, head = 0;
  HalvesLoss loss;
};
std::vector<HeadAblation> ablate_each_head(DecoderModel& model, const RepeatTask& task, int64_t samples,
                                           uint64_t seed);

}  // namespace heed
