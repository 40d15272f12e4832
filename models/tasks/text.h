// Your own text for the decoder-only model (heed train --model decoder --data FILE.txt;
// docs/cli.md, "Text files"): a plain UTF-8 file read as one stream of tokens, and next-token
// prediction on windows of N of them (N = --context).
//
// Tokens: by the data rule of models/tasks/data.h (Tokenizer: runs of ASCII whitespace separate
// words, every ASCII punctuation character is a token of its own), or, with `chars`, one token
// per UTF-8 character, whitespace included; a whitespace character is written in the vocabulary
// by its name (<space>, <newline>, <tab>, <cr>, <vt>, <ff>), since a vocabulary word holds none.
// A \r just before a \n is dropped, as is a byte-order mark at the start of the file.
// The vocabulary comes from the training tokens alone: <unk> at id 3, then every token seen at
// least min_count times, in order of first appearance; any other token reads as <unk>.
// Validation: the tokens of valid_path, or else the last valid_fraction of the file's tokens
// (a contiguous tail: a window never straddles the two).
//
// A training window starts at a uniform position, randint(0, n - N), of the n training tokens,
// drawn from the Trainer's data stream: a fixed seed gives the same windows, bit for bit.
// A window is read as <bos> t_1 .. t_{N-1} and scored on t_1 .. t_N (Example::eos false): the
// loss at position k (1 .. N) is -log p(t_k | t_1 .. t_{k-1}).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/tasks/data.h"
#include "models/model.h"
#include "models/tasks/tasks.h"

namespace heed {

struct TextOptions {
  bool chars = false;             // one token per UTF-8 character; else Tokenizer's words
  Tokenizer tok;                  // words: lower-case A-Z first when tok.lower
  int64_t min_count = 1;          // a token seen fewer times in training is <unk>
  int64_t context = 64;           // N, tokens per window
  std::string valid_path;         // a validation file; empty: the last valid_fraction of the tokens
  real valid_fraction = 0.1;
  static constexpr int64_t kMinContext = 2, kMaxContext = 1000;
  static constexpr int64_t kMaxVocab = 50000;  // a larger vocabulary is refused (try --min-count or --chars)
  static constexpr const char* kCharsTokenizer = "utf8-chars-1";
};

// The tokens of a text file, as strings, by opt's rule. heed::Error "text PATH: byte B: ..." for
// invalid UTF-8 or a NUL byte (not a text file), "text PATH: no tokens" for a file without any.
// `fingerprint` (when not null) receives the FNV-1a hash of the file's bytes (read_pair_file's).
std::vector<std::string> read_text_tokens(const std::string& path, const TextOptions& opt, uint64_t* fingerprint = nullptr);
// The tokens of a text (a prompt) by opt's rule; invalid UTF-8 is a heed::Error naming its byte.
std::vector<std::string> text_tokens(std::string_view text, const TextOptions& opt, const std::string& where);

class TextTask : public Task {
 public:
  // Reads the training file (and the validation file, if any) and builds the vocabulary.
  // heed::Error for a text shorter than a window (training or validation), a vocabulary above
  // kMaxVocab, a context or min_count out of range, and read_text_tokens's errors.
  TextTask(const std::string& train_path, const TextOptions& opt);
  // The task of a saved model: its vocabulary and settings, no text (sampling throws).
  TextTask(Vocab vocab, const TextOptions& opt);

  std::string name() const override { return "text"; }
  const Vocab& src_vocab() const override { return vocab_; }
  const Vocab& tgt_vocab() const override { return vocab_; }
  int64_t min_len() const override { return opt_.context; }
  int64_t max_len() const override { return opt_.context; }
  int64_t max_target_len() const override { return opt_.context; }
  const TextOptions& options() const { return opt_; }
  const std::string& train_path() const { return train_path_; }  // "" for the task of a checkpoint
  uint64_t fingerprint() const { return fingerprint_; }

  Example sample(Generator& gen) const override;                  // a uniform training window
  Example sample(Generator& gen, int64_t length) const override;  // heed::Error: one length, N
  Example sample_held_out(Generator& gen) const override;          // a uniform validation window
  std::vector<int64_t> target(const std::vector<int64_t>& src) const override;  // heed::Error

  const std::vector<int64_t>& train_tokens() const { return train_; }  // (n) ids
  const std::vector<int64_t>& valid_tokens() const { return valid_; }
  int64_t train_unknown() const { return train_unknown_; }  // <unk>s among them
  int64_t valid_unknown() const { return valid_unknown_; }

  // Text -> ids by the task's rule, <unk> for what the vocabulary lacks (added to *unknown).
  std::vector<int64_t> encode(std::string_view text, int64_t* unknown, const std::string& where) const;
  // A file scored with this task's rule and vocabulary (heed eval --data FILE.txt).
  std::vector<int64_t> read_eval_file(const std::string& path, int64_t* unknown) const;
  // Ids -> text: characters joined as they are (names back to whitespace), words by spaces.
  std::string decode(const std::vector<int64_t>& ids) const;
  // The window of N tokens at `start`: Example{src = tgt = the window, eos = false}.
  Example window(const std::vector<int64_t>& tokens, int64_t start) const;

  // What a checkpoint keeps of the task ("text." keys) and the options read back from it.
  std::map<std::string, std::string> metadata() const;
  // Throws heed::Error naming the key for a missing or out-of-range value.
  static TextOptions options_from_metadata(const std::map<std::string, std::string>& meta, const std::string& where);

 private:
  Vocab vocab_;
  TextOptions opt_;
  std::string train_path_;
  uint64_t fingerprint_ = 0;
  std::vector<int64_t> train_, valid_;
  int64_t train_unknown_ = 0, valid_unknown_ = 0;
};

// The loss by position in the window (Olsson et al. 2022, figure 2's per-token loss): over
// `windows` consecutive windows of N tokens from the start of `tokens` (as many as fit, at most
// max_windows; at least one must fit), by_position[k - 1] is the mean over the windows of
// -log p(t_k | t_1 .. t_{k-1}), k = 1 .. N, teacher forced; mean is the mean over every position.
struct PositionLoss {
  std::vector<real> by_position;  // (N) nats
  real mean = 0;
  int64_t windows = 0;
};
PositionLoss position_loss(const Model& model, const TextTask& task, const std::vector<int64_t>& tokens,
                           int64_t max_windows);

// Olsson et al. 2022's in-context learning score: the loss at a late token minus the loss at an
// early one, token 500 against token 50 in their 512-token context. Scaled to a context of N:
// early = round(50 N / 512), late = round(500 N / 512) (halves up), each at least 1 and at most
// N, and late > early (N >= 2): for N = 512, 50 and 500; for N = 64, 6 and 63.
struct IclPositions {
  int64_t early = 0, late = 0;  // 1-based positions in the window
};
IclPositions icl_positions(int64_t N);
// by_position[late - 1] - by_position[early - 1]: negative when later tokens are predicted better.
real icl_score(const std::vector<real>& by_position);

}  // namespace heed
