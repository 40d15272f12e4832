// Your own data: a file of sentence pairs as a Task (docs/cli.md, "Data files").
//
// The format: UTF-8 text, one pair a line, `source<TAB>target`; a line ends with \n (a \r
// before it is dropped, a UTF-8 byte-order mark at the start of the file is skipped). Each side
// is split into tokens by one rule (Tokenizer): runs of ASCII whitespace separate tokens, and
// every ASCII punctuation character (!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~) is a token of its own,
// so "Hello, world!" is "Hello , world !" and "<pad>" is "< pad >" (no word of a file can be a
// special). Lower-casing, when asked for, maps A-Z only: other letters are kept as they are.
//
// The vocabularies come from the training split alone: "<unk>" at id 3, then every token seen
// at least min_count times, in order of first appearance. A token outside them is read as
// <unk> and counted. Pairs with a side longer than max_len tokens are skipped and counted.
//
// Reading streams: a file is read in blocks, one line at a time; memory grows with the
// vocabulary and the pairs kept, not with the file. Every mistake in a file is a heed::Error
// naming the file, the line and the byte offset where it starts, and what is wrong with it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/evaluate.h"
#include "models/model.h"
#include "models/tasks/tasks.h"

namespace heed {

// Tokenizer's rule by name in a model's metadata ("data.tokenizer", "text.tokenizer"): a change
// to the rule gets a new name, so an old model is never read with another rule.
inline constexpr const char* kDataTokenizer = "whitespace-punctuation-1";

struct Tokenizer {
  bool lower = false;  // map A-Z to a-z first
  std::vector<std::string> split(std::string_view text) const;
};

// One checked line of a pair file: its number (from 1) and both sides' tokens.
struct PairLine {
  int64_t line = 0;
  std::vector<std::string> src, tgt;
};

inline constexpr int64_t kMaxLineBytes = int64_t(1) << 20;  // a longer line is an error, not a hang

// Reads `path` line by line and hands each pair to `each`. Throws heed::Error
// "PATH: line N (byte B): ..." for a line without a tab or with two, invalid UTF-8, a NUL byte
// (not a text file), an empty side or a line longer than kMaxLineBytes, and "PATH: no pairs"
// for a file without any. Returns the number of lines read; `fingerprint` (when not null)
// receives the 64-bit FNV-1a hash of every byte of the file, which tells a resumed run whether
// its file is the one it started on.
int64_t read_pair_file(const std::string& path, const Tokenizer& tok, const std::function<void(PairLine&)>& each,
                       uint64_t* fingerprint = nullptr);

struct DataOptions {
  Tokenizer tok;
  int64_t min_count = 1;          // a token seen fewer times in training is <unk>
  int64_t max_len = 50;           // pairs with a longer side are skipped
  std::string valid_path;         // a validation file; empty: valid_fraction of the training file
  real valid_fraction = 0.1;      // each kept pair goes to validation with this probability
  static constexpr uint64_t kSplitSeed = 20021;  // the split's own stream: --seed does not move it
};

// What reading a data file found (for the report at the start of train and in eval).
struct DataCounts {
  int64_t lines = 0, skipped = 0;                // lines read; pairs longer than max_len
  int64_t pairs = 0;                             // pairs kept
  int64_t src_tokens = 0, tgt_tokens = 0;        // tokens of the kept pairs
  int64_t src_unknown = 0, tgt_unknown = 0;      // of which <unk>
};

// Pairs encoded with a model's vocabularies, and the reference target tokens as written (BLEU
// scores against these, so producing <unk> never earns a match).
struct PairSet {
  std::vector<Example> pairs;
  std::vector<std::vector<std::string>> references;
  DataCounts counts;
};

class DataTask : public Task {
 public:
  static constexpr const char* kUnk = "<unk>";

  // Reads the training file (and the validation file, if any) and builds the vocabularies.
  DataTask(const std::string& train_path, const DataOptions& opt);
  // The task of a saved model: its vocabularies and settings, no pairs (sampling throws).
  DataTask(Vocab src, Vocab tgt, const DataOptions& opt, int64_t min_len, int64_t max_len, int64_t max_target_len);

  std::string name() const override { return "data"; }
  const Vocab& src_vocab() const override { return src_; }
  const Vocab& tgt_vocab() const override { return tgt_; }
  int64_t min_len() const override { return min_len_; }
  int64_t max_len() const override { return max_len_; }
  int64_t max_target_len() const override { return max_target_len_; }
  const DataOptions& options() const { return opt_; }
  const std::string& train_path() const { return train_path_; }  // "" for the task of a checkpoint
  uint64_t fingerprint() const { return fingerprint_; }            // of the training file (read_pair_file)

  Example sample(Generator& gen) const override;  // a uniform training pair, randint(0, n - 1)
  Example sample(Generator& gen, int64_t length) const override;  // a validation pair of that length
  Example sample_held_out(Generator& gen) const override;          // a uniform validation pair
  std::vector<int64_t> target(const std::vector<int64_t>& src) const override;  // heed::Error

  const std::vector<Example>& train_pairs() const { return train_; }
  const PairSet& valid() const { return valid_; }
  const DataCounts& train_counts() const { return train_counts_; }

  // A file scored with this task's tokeniser, vocabularies and max_len.
  PairSet read_eval_file(const std::string& path) const;
  // Tokens -> ids, <unk> for what the vocabulary lacks; adds the <unk>s to *unknown.
  static std::vector<int64_t> encode(const Vocab& v, const std::vector<std::string>& tokens, int64_t* unknown);

 private:
  Vocab src_, tgt_;
  DataOptions opt_;
  std::string train_path_;
  uint64_t fingerprint_ = 0;
  std::vector<Example> train_;
  PairSet valid_;
  DataCounts train_counts_;
  int64_t min_len_ = 0, max_len_ = 0, max_target_len_ = 0;
};

// Corpus BLEU (Papineni et al. 2002) with one reference per hypothesis, computed as NLTK's
// corpus_bleu does with its default weights (0.25 each) and no smoothing: for n = 1..4, the
// clipped n-gram matches and the hypothesis n-grams (at least 1 per sentence) are summed over
// the corpus; BLEU = BP * exp(sum of log(p_n) / 4), BP = 1 when the hypotheses are longer than
// the references, else exp(1 - r / c) (0 for c = 0). No unigram match gives 0; a zero higher
// precision is replaced by the smallest normal double, as NLTK's method0 does. Computed in
// double in every build (a metric, not a model value). BleuCounts holds the sums, added one
// sentence at a time, so that a corpus is scored without being held.
struct BleuCounts {
  static constexpr int kMaxN = 4;
  std::array<int64_t, kMaxN> matches{}, totals{};  // clipped n-gram matches, output n-grams (n - 1)
  int64_t hyp_len = 0, ref_len = 0;
  void add(const std::vector<std::string>& hypothesis, const std::vector<std::string>& reference);
  double bleu() const;
};
double corpus_bleu(const std::vector<std::vector<std::string>>& hypotheses,
                 const std::vector<std::vector<std::string>>& references);

// The most tokens a greedy output of a source of S tokens may have: 2 S + 10 (after that it has
// gone astray), and no more than a table of learned target positions holds (max_src_len). The
// same cap for eval --data, train's closing line and heed predict, sentence by sentence.
int64_t output_cap(const ModelConfig& config, int64_t source_len);

// A model scored on the first `limit` pairs of a set, in order, 100 at a time:
// - exact and token as score_batch counts them (greedy decoding, the reference length + 1);
// - BLEU of the greedy outputs, each decoded until <eos> or its own output_cap, so that a
//   sentence's output never depends on the others in its batch, against the references as written;
// - perplexity = exp(mean over the target tokens, <eos> included, of the teacher-forced
//   cross-entropy).
struct PairScore {
  Accuracy acc;
  real bleu = 0, perplexity = 0;
  int64_t pairs = 0;
  std::vector<std::vector<std::string>> outputs;  // the first keep_outputs greedy outputs BLEU scored
};
PairScore score_pairs(const Model& model, const Vocab& tgt_vocab, const PairSet& set, int64_t limit,
                      int64_t keep_outputs = 0);

}  // namespace heed
