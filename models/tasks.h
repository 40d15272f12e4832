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

#include "models/vocab.h"
#include "tensor/random.h"

namespace heed {

struct Example {
  std::vector<int64_t> src;  // (S) ids, no specials
  std::vector<int64_t> tgt;  // (L) ids, without BOS/EOS
};

struct Batch {
  int64_t batch = 0, src_len = 0, tgt_len = 0;  // B, S = longest source, T = longest target + 1
  std::vector<int64_t> src;                     // (B, S) padded with PAD
  std::vector<int64_t> lengths;                 // (B) real source lengths
  std::vector<int64_t> tgt_in;                  // (B, T) BOS y1..yL, padded
  std::vector<int64_t> tgt_out;                 // (B, T) y1..yL EOS, padded
  std::vector<int64_t> tgt_lengths;             // (B) L + 1
};

// REQUIRES: at least one example; every source non-empty; no specials inside src or tgt.
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

// "copy", "reverse", "sort", "repeat" or "translate" (which ignores vocab, min_len and max_len: its
// grammar fixes them). An unknown name is a heed::Error listing the valid ones.
std::unique_ptr<Task> make_task(const std::string& name, int64_t vocab, int64_t min_len,
                                int64_t max_len);
const std::vector<std::string>& task_names();

// make_batch of `batch` draws of task.sample(gen). REQUIRES: batch >= 1.
Batch sample_batch(const Task& task, Generator& gen, int64_t batch);

}  // namespace heed
