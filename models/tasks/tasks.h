// The sequence-to-sequence tasks of docs/models.md: copy, reverse and sort over V symbols, and
// (translate.h) a toy German->English grammar. A Task draws Examples (token ids, no BOS/EOS)
// from an explicit Generator; make_batch pads a list of them into the row-major id arrays a
// model reads: source (B, S), decoder input BOS y1..yL and target y1..yL EOS, both (B, T).
// Sampling is pinned so other implementations can reproduce it: the length first
// (randint(min_len, max_len)), then the symbols left to right (randint(0, V - 1)).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/tasks/vocab.h"
#include "tensor/random.h"

namespace heed {

struct Example {
  std::vector<int64_t> src;  // (S) ids, no specials
  std::vector<int64_t> tgt;  // (L) ids, without BOS/EOS
  // The first `context` target tokens are given, not predicted: make_batch scores their
  // positions against PAD (ignored by the loss). 0 for every sequence-to-sequence task; a task
  // written as one sequence (OneSequenceTask) gives its source and <sep> as context.
  int64_t context = 0;
  // false for a window of a longer text (models/tasks/text.h): the text goes on after y_L, so there is
  // no <eos> to predict, and y_L is predicted but never read: decoder input BOS y1..y_{L-1},
  // target y1..yL, L positions.
  bool eos = true;
};

struct Batch {
  int64_t batch = 0, src_len = 0, tgt_len = 0;  // B, S = longest source, T = longest target + 1 (+ 0 without eos)
  std::vector<int64_t> src;                     // (B, S) padded with PAD
  std::vector<int64_t> lengths;                 // (B) real source lengths
  std::vector<int64_t> tgt_in;                  // (B, T) BOS y1..yL, padded
  std::vector<int64_t> tgt_out;                 // (B, T) y1..yL EOS, padded
  std::vector<int64_t> tgt_lengths;             // (B) L + 1 (L without eos)
  std::vector<int64_t> context;                 // (B) each row's Example::context (empty: all 0)
};

// REQUIRES: at least one example; every source non-empty; no specials inside src or tgt;
// 0 <= context <= L; a target of at least one token when eos is false. tgt_out holds PAD at the
// positions that predict context tokens; an example without eos has L positions, not L + 1.
Batch make_batch(const std::vector<Example>& examples);

class Task {
 public:
  virtual ~Task() = default;

  virtual std::string name() const = 0;
  virtual const Vocab& src_vocab() const = 0;
  virtual const Vocab& tgt_vocab() const = 0;
  virtual int64_t min_len() const = 0;         // shortest training source
  virtual int64_t max_len() const = 0;         // longest training source
  virtual int64_t max_target_len() const = 0;  // longest training target (without EOS)

  virtual Example sample(Generator& gen) const = 0;  // one training example
  // An example whose source has `length` tokens, for evaluation by length (toy tasks accept
  // lengths beyond the training range, to measure extrapolation).
  virtual Example sample(Generator& gen, int64_t length) const = 0;
  // An evaluation example: a fresh sample for the toy tasks, a held-out pair for translate.
  virtual Example sample_held_out(Generator& gen) const { return sample(gen); }
  // The reference target of a source (ids); heed::Error if the task has none for it.
  virtual std::vector<int64_t> target(const std::vector<int64_t>& src) const = 0;
};

// copy, reverse and sort: sources of min_len .. max_len symbols drawn uniformly from V.
class SymbolTask : public Task {
 public:
  static constexpr int64_t kMaxVocab = 10000;  // limits against absurd sizes (typos)
  static constexpr int64_t kMaxLength = 1000;

  // REQUIRES: 1 <= V <= kMaxVocab, 1 <= min_len <= max_len <= kMaxLength (else heed::Error
  // naming the flag: --vocab, --min-len, --max-len).
  SymbolTask(std::string name, int64_t V, int64_t min_len, int64_t max_len);

  std::string name() const override { return name_; }
  const Vocab& src_vocab() const override { return vocab_; }
  const Vocab& tgt_vocab() const override { return vocab_; }
  int64_t min_len() const override { return min_len_; }
  int64_t max_len() const override { return max_len_; }
  int64_t max_target_len() const override { return max_len_; }
  int64_t num_symbols() const { return V_; }

  Example sample(Generator& gen) const override;
  Example sample(Generator& gen, int64_t length) const override;  // 1 <= length <= kMaxLength
  std::vector<int64_t> target(const std::vector<int64_t>& src) const override;

 protected:
  // The task's rule, applied to a valid source.
  virtual std::vector<int64_t> transform(std::vector<int64_t> src) const = 0;

 private:
  std::string name_;
  int64_t V_, min_len_, max_len_;
  Vocab vocab_;
};

class CopyTask : public SymbolTask {
 public:
  CopyTask(int64_t V, int64_t min_len, int64_t max_len);

 protected:
  std::vector<int64_t> transform(std::vector<int64_t> src) const override;
};

class ReverseTask : public SymbolTask {
 public:
  ReverseTask(int64_t V, int64_t min_len, int64_t max_len);

 protected:
  std::vector<int64_t> transform(std::vector<int64_t> src) const override;
};

class SortTask : public SymbolTask {  // ascending
 public:
  SortTask(int64_t V, int64_t min_len, int64_t max_len);

 protected:
  std::vector<int64_t> transform(std::vector<int64_t> src) const override;
};

// repeat: a random segment of min_len .. max_len symbols followed by its exact repetition, the
// task that isolates induction (Olsson et al. 2022): the source is the segment, the target the
// segment twice. A decoder-only model (models/decoder_model.h) reads only the target, BOS s s:
// nothing predicts the first copy's symbols (its loss stays near log V), and every symbol of the
// second copy but its first can be read off the first copy by a model that looks back for the
// current token and copies the one after it.
class RepeatTask : public SymbolTask {
 public:
  RepeatTask(int64_t V, int64_t min_len, int64_t max_len);
  int64_t max_target_len() const override { return 2 * max_len(); }

 protected:
  std::vector<int64_t> transform(std::vector<int64_t> src) const override;
};

// A sequence-to-sequence task written as one sequence, for a decoder-only model
// (models/decoder_model.h), which reads the target row alone:
//
//   decoder input   <bos> s_1 .. s_n <sep> t_1 .. t_m
//   scored target   <pad> ..   <pad> t_1 .. t_m <eos>      (n + 1 ignored positions, then m + 1)
//
// The source and <sep> are context (Example::context = n + 1): the model reads them but is not
// scored on predicting them, so its loss is per target symbol, <eos> included, as the
// encoder-decoder models' is. The vocabulary is the base task's source words, then its target
// words the source lacks (translate's English), then "<sep>" as the last id: for copy, reverse
// and sort over V symbols, symbol k keeps id k + 3 and <sep> is id V + 3. The checkpoint keeps
// this vocabulary (<sep> included) and the task's name, base + "-seq" ("reverse-seq").
// Lengths are the base task's source lengths; evaluation by length and held-out draws are the
// base task's, written this way.
class OneSequenceTask : public Task {
 public:
  static constexpr const char* kSep = "<sep>";
  static constexpr const char* kSuffix = "-seq";

  explicit OneSequenceTask(std::unique_ptr<Task> base);

  std::string name() const override { return base_->name() + kSuffix; }
  const Vocab& src_vocab() const override { return vocab_; }
  const Vocab& tgt_vocab() const override { return vocab_; }
  int64_t min_len() const override { return base_->min_len(); }
  int64_t max_len() const override { return base_->max_len(); }
  // The whole sequence: source, <sep> and target (without <bos> and <eos>).
  int64_t max_target_len() const override { return base_->max_len() + 1 + base_->max_target_len(); }

  const Task& base() const { return *base_; }
  int64_t sep() const { return sep_; }  // the id of <sep>: the vocabulary's last

  Example sample(Generator& gen) const override { return join(base_->sample(gen)); }
  Example sample(Generator& gen, int64_t length) const override { return join(base_->sample(gen, length)); }
  Example sample_held_out(Generator& gen) const override { return join(base_->sample_held_out(gen)); }
  // The base task's target of a source (ids of this vocabulary): the continuation after <sep>.
  std::vector<int64_t> target(const std::vector<int64_t>& src) const override;
  // A base example as one sequence: tgt = s <sep> t (t in this vocabulary's ids), context n + 1.
  Example join(const Example& e) const;

 private:
  std::unique_ptr<Task> base_;
  Vocab vocab_;
  int64_t sep_ = 0;
  std::vector<int64_t> tgt_ids_;  // the base target vocabulary's id -> this vocabulary's
};

// "copy", "reverse", "sort", "repeat", "translate" (which ignores vocab, min_len and max_len: its
// grammar fixes them) or "german" (translate.h: the grammar's German sentences, one sequence
// each, a language to model). Also the one-sequence forms "copy-seq", "reverse-seq", "sort-seq"
// and "translate-seq" (OneSequenceTask), which a decoder-only model's checkpoint records. An
// unknown name is a heed::Error listing the valid ones.
std::unique_ptr<Task> make_task(const std::string& name, int64_t vocab, int64_t min_len,
                                int64_t max_len);
const std::vector<std::string>& task_names();

// make_batch of `batch` draws of task.sample(gen). REQUIRES: batch >= 1.
Batch sample_batch(const Task& task, Generator& gen, int64_t batch);

}  // namespace heed
