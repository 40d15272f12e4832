// An encoder-only tagger built from self-attention, and the toy task it is made for.
//
// histogram (Weiss et al. 2021, "Thinking Like Transformers"): for each position, how many times
// its symbol occurs in the whole sequence: 3 1 4 1 5 -> 1 2 1 2 1. Every position must gather
// the positions that hold its own symbol, wherever they are: one attention step, content-based
// and order-free (a recurrent network would have to count every symbol as it reads). The
// answer does not depend on order, so the tagger needs no position information at all.
//
// SelfAttentionTagger, one Transformer encoder layer without normalisation:
//   x = embed(BOS, s_1 .. s_L) [+ positions]     (B, S, E)   S = L + 1 with the BOS
//   h = x + MultiHeadAttention(x)                (B, S, E)
//   h = h + W_2 relu(W_1 h + b_1) + b_2          (B, S, E)   feed-forward, F hidden units
//   logits = W_out h + b_out                     (B, S, C)   C = max_len + 1 classes (counts)
// The BOS in front of every sequence gives attention a fixed reference: a query that spreads its
// weight equally over BOS and the c positions of its symbol sees BOS with weight 1 / (c + 1),
// which says c whatever the sequence's length. That is one exact solution; trained models share
// the work between heads less tidily. Without the BOS (bos = false) a softmax only gives averages,
// and the same budget that reaches 0.99 with it stays near 0.67 (V 5, lengths 5..10).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/tasks/tasks.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "nn/positions.h"
#include "nn/self_attention.h"

namespace heed {

// A padded batch of tagged sequences (no BOS: the model adds it).
struct TagBatch {
  int64_t batch = 0, len = 0;    // B, S = the longest sequence
  std::vector<int64_t> ids;      // (B, S) symbol ids, PAD after each sequence's end
  std::vector<int64_t> lengths;  // (B)
  std::vector<int64_t> labels;   // (B, S) the class of each position; kIgnore at padding
  static constexpr int64_t kIgnore = -100;
};

class HistogramTask {
 public:
  // Sources as the copy task draws them (docs/models.md): L in [min_len, max_len], symbols uniform
  // over V. REQUIRES as SymbolTask (else heed::Error naming the flag).
  HistogramTask(int64_t V, int64_t min_len, int64_t max_len);

  std::string name() const { return "histogram"; }
  const Vocab& vocab() const { return copy_.src_vocab(); }
  int64_t num_classes() const { return copy_.max_len() + 1; }  // counts 1 .. max_len (0 unused)
  int64_t max_len() const { return copy_.max_len(); }

  std::vector<int64_t> sample(Generator& gen) const { return copy_.sample(gen).src; }
  // The count of each position's symbol in src. src (L) -> (L).
  std::vector<int64_t> labels(const std::vector<int64_t>& src) const;
  // Pads sources (each non-empty) into a batch with their labels.
  TagBatch make_batch(const std::vector<std::vector<int64_t>>& sources) const;
  TagBatch sample_batch(Generator& gen, int64_t batch) const;

 private:
  CopyTask copy_;  // draws the sources
};

struct TaggerConfig {
  int64_t vocab = 13;    // token ids, the three specials included
  int64_t classes = 11;  // output classes
  int64_t embed = 32, heads = 2, ffn = 64;
  std::string positions = "none";  // none, sinusoidal or learned
  int64_t max_len = 64;            // longest input the learned positions cover (BOS included)
  bool bos = true;                 // put a BOS in front of every sequence

  void validate() const;  // heed::Error naming the field and its value
};

struct TaggerOutput {
  Var logits;   // (B, S, C) for the real symbols' positions (the BOS row is dropped)
  Var weights;  // (B, h, S', S') attention weights, S' = S + 1 with the BOS at index 0
};

class SelfAttentionTagger : public Module {
 public:
  SelfAttentionTagger(const TaggerConfig& config, Generator& gen);

  TaggerOutput forward(const TagBatch& batch) const;
  // Mean cross-entropy over the real positions of the batch.
  Var loss(const TagBatch& batch) const;
  // The argmax class of every position (B, S), kIgnore at padding; no graph is recorded.
  std::vector<int64_t> predict(const TagBatch& batch) const;

  const TaggerConfig& config() const { return config_; }

 private:
  TaggerConfig config_;
  Embedding embed_;
  std::unique_ptr<PositionEmbedding> learned_;  // positions = learned
  MultiHeadAttention attention_;
  Linear ffn_in_, ffn_out_, out_;
};

struct TaggerTrainOptions {
  int64_t steps = 400;
  int64_t batch = 32;
  real lr = 3e-3;     // Adam (0.9, 0.999, 1e-8), decayed linearly to 0 over the run
  real clip = 1.0;    // max gradient norm; 0 turns clipping off
  uint64_t seed = 1;  // the data stream's seed (the model has its own)
};

struct TaggerProgress {
  int64_t step = 0, steps = 0;
  real loss = 0, accuracy = 0;  // this step's batch; accuracy over its real positions
};

struct TaggerTrainResult {
  std::vector<real> losses;  // one per step
  real seconds = 0;
};

TaggerTrainResult train_tagger(SelfAttentionTagger& model, const HistogramTask& task, const TaggerTrainOptions& opt,
                               const std::function<void(const TaggerProgress&)>& on_step = {});

struct TagAccuracy {
  int64_t sequences = 0, exact_right = 0;  // exact: every position of the sequence right
  int64_t positions = 0, right = 0;
  real exact() const { return sequences ? static_cast<real>(exact_right) / sequences : 0; }
  real token() const { return positions ? static_cast<real>(right) / positions : 0; }
};

// Adds one batch's counts to acc.
void score_tag_batch(const SelfAttentionTagger& model, const TagBatch& batch, TagAccuracy& acc);
// `samples` fresh sequences drawn from Generator(seed), in batches of 64.
TagAccuracy evaluate_tagger(const SelfAttentionTagger& model, const HistogramTask& task, int64_t samples,
                            uint64_t seed);

}  // namespace heed
