// Finding the heads of a decoder-only model (models/decoder_model.h) by what they do, on the repeat
// task (models/tasks/tasks.h), as Olsson et al. 2022 ("In-context Learning and Induction Heads") and
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
#include <functional>
#include <vector>

#include <string>

#include "models/decoder_model.h"
#include "models/tasks/tasks.h"
#include "models/train.h"
#include "viz/film.h"

namespace heed {

// The decoder-only model a Model is, for the analyses here and in models/analysis/circuits.h (the tools
// hand over a Model, as to sample_continuation); heed::Error naming the model when it is another.
const DecoderModel& decoder_only(const Model& model);

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
// sequences drawn from Generator(seed) in batches of up to 100, teacher forced. REQUIRES: a
// decoder-only model, as for everything below that takes a Model (else heed::Error).
std::vector<HeadScore> head_scores(const Model& model, const RepeatTask& task, int64_t samples, uint64_t seed);

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
std::vector<HeadAblation> ablate_each_head(Model& model, const RepeatTask& task, int64_t samples,
                                           uint64_t seed);

// One head's (R, C) matrix of the sequence `b` from one layer's weights (B, h, R, C), as the
// pictures draw it: head's own, or for head -1 the mean over the layer's heads (summed in order
// of head, then divided by h). (R = C = T for a self-attention.)
// REQUIRES: 0 <= b < B, -1 <= head < h (else heed::Error).
std::vector<std::vector<real>> head_matrix(const Tensor& weights, int64_t b, int64_t head);

// ---- The phase change: watching the heads form (heed train --model decoder --film) ----------
//
// Olsson et al. 2022 see the induction heads form abruptly, at the same step as the loss on
// repeated text drops. Two series of a training run (the film's snapshots) say when each
// happened: a head's induction score first reaching one half, and the in-context loss (the
// repeated copy from its 2nd symbol) first falling below a fraction of log V, the loss of a
// model that knows nothing.

// The first of `steps` whose value is at least `level` (for a score), or -1 when none is. NaN
// counts as never. REQUIRES: steps and values of one length (else heed::Error).
int64_t first_step_reaching(const std::vector<int64_t>& steps, const std::vector<real>& values, real level);
// The first of `steps` whose value is below `level` (for a loss), or -1 when none is.
int64_t first_step_below(const std::vector<int64_t>& steps, const std::vector<real>& values, real level);

// The levels chapter 14 sets side by side: a score of one half, a loss of half of log V.
inline constexpr real kScoreLevel = 0.5;
inline constexpr real kLossFractionOfLogV = 0.5;

// The sequence the film of a decoder-only model shows: a segment of the task's middle length
// ((min + max) / 2) drawn from Generator(seed), followed by its repeat. ids() is what the model
// reads, BOS s_1 .. s_n s_1 .. s_n (T = 2n + 1 positions; the film's rows and columns).
Example film_sequence(const RepeatTask& task, uint64_t seed = 4242);

// Films a decoder-only model learning the repeat task, as FilmMaker (models/analysis/watch.h) films an
// encoder-decoder one: a snapshot at step 0 (or where a resumed run starts), every `every` steps
// and at the last. A frame holds
//   weights  the film's sequence attending to itself, (T, T), causal: layer `layer`'s head
//            `head` (-1: the mean of its heads), row t the position predicting, column j the
//            position looked at;
//   exact    that head's induction score (the lower curve: Film::curve names it);
//   note     the step, the training loss, the head's induction and previous-token scores and
//            the in-context loss against log V, the line the page shows for the frame;
//   values   in_context_loss, log_v and every head's previous-token and induction score
//            (Film::columns names them), for the phase change in numbers (film_csv).
// The scores and the loss are measured on the same `held_out` sequences from Generator(seed)
// at every snapshot (head_scores and repeat_halves_loss), not on the one sequence drawn.
class HeadFilmMaker {
 public:
  // REQUIRES: config is the decoder's, 0 <= layer < layers, -1 <= head < heads, every >= 1,
  // held_out >= 1 (else heed::Error).
  HeadFilmMaker(const RepeatTask& task, const ModelConfig& config, int64_t layer, int64_t head, int64_t every,
                int64_t held_out = 32, uint64_t seed = 4242);

  const FilmFrame* start(const Model& model, int64_t step = 0);
  const FilmFrame* on_step(const Model& model, const Progress& p);
  FilmFrame take(const Model& model, int64_t step, real loss) const;
  Film& film() { return film_; }  // source, reference, curve, hint and columns filled in
  // One more number per frame, measured by `measure` at every snapshot: a column `name` after
  // the heads' (a model of a text adds its in-context learning score), and in the note.
  void add_column(const std::string& name, std::function<real(const Model&)> measure);
  const std::vector<int64_t>& ids() const { return ids_; }

 private:
  const RepeatTask& task_;
  int64_t layers_, heads_, layer_, head_, every_, held_out_;
  uint64_t seed_;
  std::vector<int64_t> ids_;
  Film film_;
  real loss_sum_ = 0;
  int64_t losses_ = 0;
  std::vector<std::pair<std::string, std::function<real(const Model&)>>> extra_;  // add_column's
};

}  // namespace heed
