#include "models/tasks/tasks.h"

#include <algorithm>

#include "models/tasks/translate.h"
#include "tensor/tensor.h"

namespace heed {

namespace {

std::string str(int64_t x) { return std::to_string(x); }

void check_range(const std::string& task, const std::string& flag, int64_t value, int64_t lo,
                 int64_t hi) {
  if (value < lo || value > hi)
    throw Error(task + ": " + flag + " " + str(value) + " is out of range (" + str(lo) + " .. " +
                str(hi) + ")");
}

void check_ids(const std::vector<int64_t>& ids, size_t index, const char* what) {
  for (int64_t id : ids)
    if (id < Vocab::kNumSpecials)
      throw Error("make_batch: example " + str(static_cast<int64_t>(index)) + ": " + what +
                  " holds the special id " + str(id) + " (PAD/BOS/EOS are added by make_batch)");
}

}  // namespace

Batch make_batch(const std::vector<Example>& examples) {
  if (examples.empty()) throw Error("make_batch: no examples");
  Batch b;
  b.batch = static_cast<int64_t>(examples.size());
  for (size_t i = 0; i < examples.size(); ++i) {
    const Example& e = examples[i];
    if (e.src.empty())
      throw Error("make_batch: example " + str(static_cast<int64_t>(i)) + " has an empty source");
    check_ids(e.src, i, "source");
    check_ids(e.tgt, i, "target");
    if (e.context < 0 || e.context > static_cast<int64_t>(e.tgt.size()))
      throw Error("make_batch: example " + str(static_cast<int64_t>(i)) + ": context " + str(e.context) +
                  " is not within its " + str(static_cast<int64_t>(e.tgt.size())) + " target tokens");
    if (!e.eos && e.tgt.empty())
      throw Error("make_batch: example " + str(static_cast<int64_t>(i)) + ": a window without <eos> has no target");
    b.src_len = std::max(b.src_len, static_cast<int64_t>(e.src.size()));
    b.tgt_len = std::max(b.tgt_len, static_cast<int64_t>(e.tgt.size()) + (e.eos ? 1 : 0));
  }
  b.src.assign(b.batch * b.src_len, Vocab::kPad);
  b.tgt_in.assign(b.batch * b.tgt_len, Vocab::kPad);
  b.tgt_out.assign(b.batch * b.tgt_len, Vocab::kPad);
  for (int64_t i = 0; i < b.batch; ++i) {
    const Example& e = examples[i];
    int64_t S = static_cast<int64_t>(e.src.size()), L = static_cast<int64_t>(e.tgt.size());
    std::copy(e.src.begin(), e.src.end(), b.src.begin() + i * b.src_len);
    int64_t* in = b.tgt_in.data() + i * b.tgt_len;    // (T) BOS y1 .. yL
    int64_t* out = b.tgt_out.data() + i * b.tgt_len;  // (T) y1 .. yL EOS
    in[0] = Vocab::kBos;
    for (int64_t t = 0; t < L; ++t) {
      if (t + 1 < L || e.eos) in[t + 1] = e.tgt[t];     // without eos, y_L is predicted, not read
      out[t] = t < e.context ? Vocab::kPad : e.tgt[t];  // context is read, not predicted
    }
    if (e.eos) out[L] = Vocab::kEos;
    b.lengths.push_back(S);
    b.tgt_lengths.push_back(L + (e.eos ? 1 : 0));
    b.context.push_back(e.context);
  }
  return b;
}

SymbolTask::SymbolTask(std::string name, int64_t V, int64_t min_len, int64_t max_len)
    : name_(std::move(name)), V_(V), min_len_(min_len), max_len_(max_len) {
  check_range(name_, "--vocab", V, 1, kMaxVocab);
  check_range(name_, "--min-len", min_len, 1, kMaxLength);
  check_range(name_, "--max-len", max_len, 1, kMaxLength);
  if (min_len > max_len)
    throw Error(name_ + ": --min-len " + str(min_len) + " is greater than --max-len " + str(max_len));
  vocab_ = Vocab::symbols(V);
}

Example SymbolTask::sample(Generator& gen) const {
  return sample(gen, gen.randint(min_len_, max_len_));
}

Example SymbolTask::sample(Generator& gen, int64_t length) const {
  check_range(name_, "length", length, 1, kMaxLength);
  Example e;
  e.src.resize(length);
  for (int64_t& id : e.src) id = gen.randint(0, V_ - 1) + Vocab::kNumSpecials;
  e.tgt = transform(e.src);
  return e;
}

std::vector<int64_t> SymbolTask::target(const std::vector<int64_t>& src) const {
  if (src.empty()) throw Error(name_ + ": empty source");
  for (int64_t id : src)
    if (id < Vocab::kNumSpecials || id >= vocab_.size())
      throw Error(name_ + ": source id " + str(id) + " is not a symbol (ids " +
                  str(Vocab::kNumSpecials) + " .. " + str(vocab_.size() - 1) + ")");
  return transform(src);
}

CopyTask::CopyTask(int64_t V, int64_t min_len, int64_t max_len)
    : SymbolTask("copy", V, min_len, max_len) {}

std::vector<int64_t> CopyTask::transform(std::vector<int64_t> src) const { return src; }

ReverseTask::ReverseTask(int64_t V, int64_t min_len, int64_t max_len)
    : SymbolTask("reverse", V, min_len, max_len) {}

std::vector<int64_t> ReverseTask::transform(std::vector<int64_t> src) const {
  std::reverse(src.begin(), src.end());
  return src;
}

SortTask::SortTask(int64_t V, int64_t min_len, int64_t max_len)
    : SymbolTask("sort", V, min_len, max_len) {}

// Symbol k has id k + 3, so sorting ids sorts the symbols.
std::vector<int64_t> SortTask::transform(std::vector<int64_t> src) const {
  std::sort(src.begin(), src.end());
  return src;
}

RepeatTask::RepeatTask(int64_t V, int64_t min_len, int64_t max_len) : SymbolTask("repeat", V, min_len, max_len) {}

std::vector<int64_t> RepeatTask::transform(std::vector<int64_t> src) const {
  std::vector<int64_t> twice = src;
  twice.insert(twice.end(), src.begin(), src.end());
  return twice;
}

OneSequenceTask::OneSequenceTask(std::unique_ptr<Task> base) : base_(std::move(base)) {
  if (dynamic_cast<const OneSequenceTask*>(base_.get()))
    throw Error("one-sequence task: " + base_->name() + " is already one sequence");
  // The source words keep their ids; the target's words the source lacks follow; <sep> last.
  std::vector<std::string> words;
  const std::vector<std::string>& src = base_->src_vocab().tokens();
  words.assign(src.begin() + Vocab::kNumSpecials, src.end());
  for (const std::string& w : base_->tgt_vocab().tokens())
    if (!base_->src_vocab().contains(w)) words.push_back(w);
  words.push_back(kSep);
  vocab_ = Vocab(words);
  sep_ = vocab_.size() - 1;
  for (const std::string& w : base_->tgt_vocab().tokens()) tgt_ids_.push_back(vocab_.id(w));
}

Example OneSequenceTask::join(const Example& e) const {
  Example out;
  out.src = e.src;
  out.tgt = e.src;
  out.tgt.push_back(sep_);
  for (int64_t id : e.tgt) out.tgt.push_back(tgt_ids_.at(static_cast<size_t>(id)));
  out.context = static_cast<int64_t>(e.src.size()) + 1;  // s_1 .. s_n <sep>
  return out;
}

std::vector<int64_t> OneSequenceTask::target(const std::vector<int64_t>& src) const {
  for (int64_t id : src)
    if (id >= base_->src_vocab().size())
      throw Error(name() + ": source id " + str(id) + " (" + vocab_.token(id) + ") is not a word of the source");
  std::vector<int64_t> t = base_->target(src);
  for (int64_t& id : t) id = tgt_ids_.at(static_cast<size_t>(id));
  return t;
}

const std::vector<std::string>& task_names() {
  static const std::vector<std::string> names = {"copy", "reverse", "sort", "repeat", "translate", "german"};
  return names;
}

std::unique_ptr<Task> make_task(const std::string& name, int64_t vocab, int64_t min_len,
                                int64_t max_len) {
  if (name == "copy") return std::make_unique<CopyTask>(vocab, min_len, max_len);
  if (name == "reverse") return std::make_unique<ReverseTask>(vocab, min_len, max_len);
  if (name == "sort") return std::make_unique<SortTask>(vocab, min_len, max_len);
  if (name == "repeat") return std::make_unique<RepeatTask>(vocab, min_len, max_len);
  if (name == "translate") return std::make_unique<TranslateTask>();
  if (name == "german") return std::make_unique<GermanTask>();
  const std::string suffix = OneSequenceTask::kSuffix;
  if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
    const std::string base = name.substr(0, name.size() - suffix.size());
    if (base == "copy" || base == "reverse" || base == "sort" || base == "translate")
      return std::make_unique<OneSequenceTask>(make_task(base, vocab, min_len, max_len));
  }
  std::string valid;
  for (const std::string& n : task_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw Error("unknown task '" + name + "' (tasks: " + valid + ")");
}

Batch sample_batch(const Task& task, Generator& gen, int64_t batch) {
  if (batch < 1) throw Error("sample_batch: --batch " + str(batch) + " must be at least 1");
  std::vector<Example> examples;
  examples.reserve(batch);
  for (int64_t i = 0; i < batch; ++i) examples.push_back(task.sample(gen));
  return make_batch(examples);
}

}  // namespace heed
