#include "models/tasks/data.h"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <fstream>
#include <unordered_map>

#include "io/paths.h"
#include "autograd/functions.h"
#include "io/utf8.h"
#include "nn/loss.h"
#include "tensor/math.h"
#include "tensor/tensor.h"

namespace heed {

namespace {

std::string str(int64_t x) { return std::to_string(x); }

bool ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool ascii_punct(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}

// Checks one line (without its \n) and splits it into a pair. `at` is "PATH: line N (byte B)".
void parse_line(std::string_view text, const std::string& at, const Tokenizer& tok, PairLine& out) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '\0')
      throw Error(at + ": holds a NUL byte at column " + str(static_cast<int64_t>(i) + 1) +
                  ": this is not a text file (expected UTF-8 lines of source<TAB>target)");
    size_t n = utf8_length(text, i);
    if (n == 0)
      throw Error(at + ": invalid UTF-8 at column " + str(static_cast<int64_t>(i) + 1) + " (byte 0x" +
                  [&] {
                    const char* hex = "0123456789abcdef";
                    unsigned char b = static_cast<unsigned char>(text[i]);
                    return std::string{hex[b >> 4], hex[b & 15]};
                  }() +
                  "); save the file as UTF-8");
    i += n;
  }
  if (text.empty()) throw Error(at + ": is empty; expected source<TAB>target");
  const int64_t tabs = std::count(text.begin(), text.end(), '\t');
  if (tabs == 0) throw Error(at + ": has no tab; expected source<TAB>target");
  if (tabs > 1) throw Error(at + ": has " + str(tabs) + " tabs; expected exactly one, between source and target");
  const size_t tab = text.find('\t');
  out.src = tok.split(text.substr(0, tab));
  out.tgt = tok.split(text.substr(tab + 1));
  if (out.src.empty()) throw Error(at + ": the source (before the tab) is empty");
  if (out.tgt.empty()) throw Error(at + ": the target (after the tab) is empty");
}

}  // namespace

std::vector<std::string> Tokenizer::split(std::string_view text) const {
  std::vector<std::string> tokens;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) tokens.push_back(std::move(word));
    word.clear();
  };
  for (char c : text) {
    if (ascii_space(c)) {
      flush();
    } else if (ascii_punct(c)) {
      flush();
      tokens.emplace_back(1, c);
    } else {
      word += lower && c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    }
  }
  flush();
  return tokens;
}

int64_t read_pair_file(const std::string& path, const Tokenizer& tok, const std::function<void(PairLine&)>& each,
                       uint64_t* fingerprint) {
  uint64_t fnv = 14695981039346656037ull;  // FNV-1a, 64 bits: offset basis, then per byte xor and multiply
  check_regular_input(path, "data");  // a FIFO would block the reader forever
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("data " + path + ": cannot open");
  std::string line;               // the line being gathered
  std::vector<char> block(1 << 16);
  int64_t number = 0, pairs = 0;  // lines seen, pairs handed out
  uint64_t offset = 0, line_start = 0;  // byte offsets of the next byte and of the current line
  PairLine pair;
  auto finish_line = [&] {
    ++number;
    std::string_view text = line;
    if (number == 1 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a byte-order mark
    std::string at = "data " + path + ": line " + str(number) + " (byte " + std::to_string(line_start) + ")";
    parse_line(text, at, tok, pair);
    pair.line = number;
    each(pair);
    ++pairs;
    line.clear();
  };
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const std::streamsize got = in.gcount();
    for (std::streamsize i = 0; i < got; ++i) {
      const char c = block[i];
      fnv = (fnv ^ static_cast<unsigned char>(c)) * 1099511628211ull;
      ++offset;
      if (c == '\n') {
        finish_line();
        line_start = offset;
        continue;
      }
      line += c;
      if (static_cast<int64_t>(line.size()) > kMaxLineBytes)
        throw Error("data " + path + ": line " + str(number + 1) + " (byte " + std::to_string(line_start) +
                    "): is longer than " + str(kMaxLineBytes) + " bytes; is this a text file of sentence pairs?");
    }
  }
  if (in.bad()) throw Error("data " + path + ": read error at byte " + std::to_string(offset));
  if (!line.empty()) finish_line();  // a last line without \n
  if (pairs == 0) throw Error("data " + path + ": no pairs (the file is empty); expected lines of source<TAB>target");
  if (fingerprint) *fingerprint = fnv;
  return number;
}

std::vector<int64_t> DataTask::encode(const Vocab& v, const std::vector<std::string>& tokens, int64_t* unknown) {
  const int64_t unk = v.id(kUnk);
  std::vector<int64_t> ids;
  ids.reserve(tokens.size());
  for (const std::string& t : tokens) {
    const bool known = v.contains(t);
    ids.push_back(known ? v.id(t) : unk);
    *unknown += !known;
  }
  return ids;
}

DataTask::DataTask(const std::string& train_path, const DataOptions& opt) : opt_(opt), train_path_(train_path) {
  if (opt.min_count < 1) throw Error("data: --min-count " + str(opt.min_count) + " must be at least 1");
  if (opt.max_len < 1) throw Error("data: --max-len " + str(opt.max_len) + " must be at least 1");
  // Pass 1 (streaming): the training pairs as provisional ids, one per distinct token in order
  // of first appearance, with each token's count; validation pairs kept as text.
  struct Side {
    std::unordered_map<std::string, int64_t> index;
    std::vector<std::string> words;
    std::vector<int64_t> counts;
    std::vector<int64_t> intern(const std::vector<std::string>& tokens) {
      std::vector<int64_t> ids;
      for (const std::string& t : tokens) {
        auto [it, fresh] = index.emplace(t, static_cast<int64_t>(words.size()));
        if (fresh) {
          words.push_back(t);
          counts.push_back(0);
        }
        ++counts[it->second];
        ids.push_back(it->second);
      }
      return ids;
    }
  } src_side, tgt_side;
  std::vector<PairLine> valid_text;
  Generator split(DataOptions::kSplitSeed);
  const bool split_here = opt.valid_path.empty();
  train_counts_.lines = read_pair_file(train_path, opt.tok, [&](PairLine& p) {
    if (static_cast<int64_t>(std::max(p.src.size(), p.tgt.size())) > opt.max_len) {
      ++train_counts_.skipped;
      return;
    }
    if (split_here && split.uniform() < opt.valid_fraction) {
      valid_text.push_back(std::move(p));
      return;
    }
    train_.push_back({src_side.intern(p.src), tgt_side.intern(p.tgt)});
  }, &fingerprint_);
  if (train_.empty())
    throw Error("data " + train_path + ": no training pair is left (" + str(train_counts_.skipped) +
                " of the pairs are longer than --max-len " + str(opt.max_len) +
                (split_here ? ", the others went to validation" : "") + ")");
  // The vocabularies: <unk>, then the tokens seen at least min_count times.
  auto build = [&](const Side& s, std::vector<int64_t>& final_id) {
    std::vector<std::string> words = {kUnk};
    for (size_t i = 0; i < s.words.size(); ++i)
      if (s.counts[i] >= opt.min_count) {
        final_id.push_back(static_cast<int64_t>(words.size()) + Vocab::kNumSpecials);
        words.push_back(s.words[i]);
      } else {
        final_id.push_back(Vocab::kNumSpecials);  // <unk>
      }
    return Vocab(words);
  };
  std::vector<int64_t> src_id, tgt_id;
  src_ = build(src_side, src_id);
  tgt_ = build(tgt_side, tgt_id);
  min_len_ = INT64_MAX;
  for (Example& e : train_) {
    for (int64_t& id : e.src) {
      id = src_id[id];
      train_counts_.src_unknown += id == Vocab::kNumSpecials;
    }
    for (int64_t& id : e.tgt) {
      id = tgt_id[id];
      train_counts_.tgt_unknown += id == Vocab::kNumSpecials;
    }
    train_counts_.src_tokens += static_cast<int64_t>(e.src.size());
    train_counts_.tgt_tokens += static_cast<int64_t>(e.tgt.size());
    min_len_ = std::min<int64_t>(min_len_, static_cast<int64_t>(e.src.size()));
    max_len_ = std::max<int64_t>(max_len_, static_cast<int64_t>(e.src.size()));
    max_target_len_ = std::max<int64_t>(max_target_len_, static_cast<int64_t>(e.tgt.size()));
  }
  train_counts_.pairs = static_cast<int64_t>(train_.size());
  if (!split_here) {
    valid_ = read_eval_file(opt.valid_path);
  } else {
    valid_.counts.lines = train_counts_.lines;
    for (const PairLine& p : valid_text) {
      valid_.pairs.push_back({encode(src_, p.src, &valid_.counts.src_unknown), encode(tgt_, p.tgt, &valid_.counts.tgt_unknown)});
      valid_.references.push_back(p.tgt);
      valid_.counts.src_tokens += static_cast<int64_t>(p.src.size());
      valid_.counts.tgt_tokens += static_cast<int64_t>(p.tgt.size());
    }
    valid_.counts.pairs = static_cast<int64_t>(valid_.pairs.size());
  }
}

DataTask::DataTask(Vocab src, Vocab tgt, const DataOptions& opt, int64_t min_len, int64_t max_len,
                   int64_t max_target_len)
    : src_(std::move(src)), tgt_(std::move(tgt)), opt_(opt), min_len_(min_len), max_len_(max_len),
      max_target_len_(max_target_len) {
  if (!src_.contains(kUnk) || !tgt_.contains(kUnk)) throw Error("data: a data task's vocabularies hold <unk>");
}

PairSet DataTask::read_eval_file(const std::string& path) const {
  PairSet out;
  out.counts.lines = read_pair_file(path, opt_.tok, [&](PairLine& p) {
    if (static_cast<int64_t>(std::max(p.src.size(), p.tgt.size())) > opt_.max_len) {
      ++out.counts.skipped;
      return;
    }
    out.pairs.push_back({encode(src_, p.src, &out.counts.src_unknown), encode(tgt_, p.tgt, &out.counts.tgt_unknown)});
    out.counts.src_tokens += static_cast<int64_t>(p.src.size());
    out.counts.tgt_tokens += static_cast<int64_t>(p.tgt.size());
    out.references.push_back(std::move(p.tgt));
  });
  out.counts.pairs = static_cast<int64_t>(out.pairs.size());
  if (out.pairs.empty())
    throw Error("data " + path + ": every pair is longer than the model's max_len " + str(opt_.max_len));
  return out;
}

Example DataTask::sample(Generator& gen) const {
  if (train_.empty())
    throw Error("data: this model was trained on a data file, which a checkpoint does not hold; give the file "
                "again (heed eval --data FILE)");
  return train_[gen.randint(0, static_cast<int64_t>(train_.size()) - 1)];
}

Example DataTask::sample(Generator& gen, int64_t length) const {
  std::vector<size_t> fit;
  for (size_t i = 0; i < valid_.pairs.size(); ++i)
    if (static_cast<int64_t>(valid_.pairs[i].src.size()) == length) fit.push_back(i);
  if (fit.empty())
    throw Error("data: no validation pair has a source of " + str(length) +
                " tokens; score a data file with heed eval --data FILE");
  return valid_.pairs[fit[gen.randint(0, static_cast<int64_t>(fit.size()) - 1)]];
}

Example DataTask::sample_held_out(Generator& gen) const {
  if (valid_.pairs.empty())
    throw Error("data: no validation pairs (give --valid FILE or a --valid-fraction above 0)");
  return valid_.pairs[gen.randint(0, static_cast<int64_t>(valid_.pairs.size()) - 1)];
}

std::vector<int64_t> DataTask::target(const std::vector<int64_t>&) const {
  throw Error("data: a data file gives targets only for its own pairs");
}

void BleuCounts::add(const std::vector<std::string>& h, const std::vector<std::string>& r) {
  hyp_len += static_cast<int64_t>(h.size());
  ref_len += static_cast<int64_t>(r.size());
  for (int n = 1; n <= kMaxN; ++n) {
    // Clipped matches: each hypothesis n-gram counts at most as often as the reference has it.
    std::map<std::vector<std::string>, int64_t> ref_counts, hyp_counts;
    for (size_t i = 0; i + n <= r.size(); ++i) ++ref_counts[std::vector<std::string>(r.begin() + i, r.begin() + i + n)];
    for (size_t i = 0; i + n <= h.size(); ++i) ++hyp_counts[std::vector<std::string>(h.begin() + i, h.begin() + i + n)];
    int64_t count = 0, clipped = 0;
    for (const auto& [gram, c] : hyp_counts) {
      count += c;
      auto it = ref_counts.find(gram);
      clipped += std::min(c, it == ref_counts.end() ? int64_t(0) : it->second);
    }
    matches[n - 1] += clipped;
    totals[n - 1] += std::max<int64_t>(1, count);  // NLTK's denominator is at least 1 per sentence
  }
}

double BleuCounts::bleu() const {
  if (matches[0] == 0) return 0;
  // The brevity penalty e^(1 - r/c), by heed's own exp (tensor/math.h): in real's precision, so
  // the float build's BLEU is good to float's epsilon, the double build's to double's.
  const double bp = hyp_len > ref_len ? 1
                    : hyp_len == 0    ? 0
                                      : static_cast<double>(math::exp(static_cast<real>(1 - static_cast<double>(ref_len) / hyp_len)));
  // The geometric mean of the four precisions, (p1 p2 p3 p4)^(1/4), as the product of their fourth
  // roots: sqrt is correctly rounded, and no partial product underflows even when every p is
  // DBL_MIN (NLTK's stand-in for a precision of 0), so the result equals NLTK's
  // exp(sum of log(p) / 4) to a few units in the last place.
  double mean = 1;
  for (int n = 0; n < kMaxN; ++n) {
    const double p = matches[n] ? static_cast<double>(matches[n]) / static_cast<double>(totals[n]) : DBL_MIN;
    mean *= std::sqrt(std::sqrt(p));
  }
  return bp * mean;
}

double corpus_bleu(const std::vector<std::vector<std::string>>& hyps, const std::vector<std::vector<std::string>>& refs) {
  if (hyps.size() != refs.size())
    throw Error("corpus_bleu: " + str(static_cast<int64_t>(hyps.size())) + " hypotheses but " +
                str(static_cast<int64_t>(refs.size())) + " references");
  BleuCounts counts;
  for (size_t s = 0; s < hyps.size(); ++s) counts.add(hyps[s], refs[s]);
  return counts.bleu();
}

int64_t output_cap(const ModelConfig& config, int64_t source_len) {
  const int64_t cap = 2 * source_len + 10;
  const bool table = config.is_transformer() && config.positions == "learned";
  return table ? std::min(cap, config.max_src_len) : cap;
}

PairScore score_pairs(const Model& model, const Vocab& tgt_vocab, const PairSet& set, int64_t limit,
                      int64_t keep_outputs) {
  const int64_t n = std::min<int64_t>(limit, static_cast<int64_t>(set.pairs.size()));
  if (n < 1) throw Error("score_pairs: no pairs to score");
  NoGradGuard no_grad;
  PairScore out;
  out.pairs = n;
  const int64_t V = model.config().tgt_vocab;
  double nll_sum = 0;  // sum over target tokens of -log p
  int64_t nll_tokens = 0;
  BleuCounts bleu;  // sentence by sentence: no copy of the outputs or references is held
  for (int64_t first = 0; first < n; first += 100) {
    const int64_t last = std::min<int64_t>(n, first + 100);
    std::vector<Example> examples(set.pairs.begin() + first, set.pairs.begin() + last);
    const Batch batch = make_batch(examples);
    // Perplexity: cross_entropy is the mean over the batch's non-PAD targets.
    Var logits = reshape(model.forward(batch), {-1, V});
    int64_t kept = 0;
    for (int64_t y : batch.tgt_out) kept += y != Vocab::kPad;
    nll_sum += static_cast<double>(cross_entropy(logits, batch.tgt_out, Vocab::kPad).item()) * kept;
    nll_tokens += kept;
    // One greedy decoding serves exact/token (its first L + 1 steps) and BLEU (up to <eos> or
    // the sentence's own cap: a row's first k tokens are the same however many steps follow).
    std::vector<int64_t> caps;
    int64_t steps = batch.tgt_len;
    for (const Example& e : examples) {
      caps.push_back(output_cap(model.config(), static_cast<int64_t>(e.src.size())));
      steps = std::max(steps, caps.back());
    }
    Decoded d = model.greedy(batch, steps);
    score_decoded(d, batch, out.acc);
    for (int64_t b = 0; b < batch.batch; ++b) {
      std::vector<std::string> words;
      for (int64_t k = 0; k < caps[b]; ++k) {
        const int64_t id = d.tokens[b][k];
        if (id == Vocab::kEos) break;
        words.push_back(tgt_vocab.token(id));
      }
      bleu.add(words, set.references[first + b]);
      if (first + b < keep_outputs) out.outputs.push_back(std::move(words));
    }
  }
  out.perplexity = math::exp(static_cast<real>(nll_sum / static_cast<double>(nll_tokens)));
  out.bleu = static_cast<real>(bleu.bleu());
  return out;
}

}  // namespace heed
