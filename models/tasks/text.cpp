#include "models/tasks/text.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <unordered_map>

#include "autograd/functions.h"
#include "io/parse.h"
#include "io/paths.h"
#include "io/utf8.h"
#include "tensor/tensor.h"

namespace heed {

namespace {

std::string str(int64_t x) { return std::to_string(x); }

// The vocabulary's names of the ASCII whitespace characters (--chars).
const std::pair<char, const char*> kSpaceNames[] = {{' ', "<space>"}, {'\n', "<newline>"}, {'\t', "<tab>"},
                                                    {'\r', "<cr>"},   {'\v', "<vt>"},      {'\f', "<ff>"}};

std::string char_token(std::string_view c) {
  if (c.size() == 1)
    for (const auto& [ch, name] : kSpaceNames)
      if (c[0] == ch) return name;
  return std::string(c);
}

// Checks every byte of `text` (UTF-8, no NUL) and splits it into tokens by opt's rule.
// `where` prefixes the errors ("text PATH"); offsets are bytes of `text` plus `base`.
std::vector<std::string> split_text(std::string_view text, const TextOptions& opt, const std::string& where,
                                    int64_t base) {
  std::vector<std::string> tokens;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '\0')
      throw Error(where + ": byte " + str(base + static_cast<int64_t>(i)) +
                  ": a NUL byte: this is not a text file (expected plain UTF-8 text)");
    const size_t n = utf8_length(text, i);
    if (n == 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(text[i]));
      throw Error(where + ": byte " + str(base + static_cast<int64_t>(i)) + ": invalid UTF-8 (" + hex +
                  "); save the file as UTF-8");
    }
    if (opt.chars && !(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n'))  // \r\n is one \n
      tokens.push_back(char_token(text.substr(i, n)));
    i += n;
  }
  return opt.chars ? tokens : opt.tok.split(text);
}

}  // namespace

std::vector<std::string> text_tokens(std::string_view text, const TextOptions& opt, const std::string& where) {
  return split_text(text, opt, where, 0);
}

std::vector<std::string> read_text_tokens(const std::string& path, const TextOptions& opt, uint64_t* fingerprint) {
  check_regular_input(path, "text");  // a FIFO would block the reader forever
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("text " + path + ": cannot open");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error("text " + path + ": read error");
  uint64_t fnv = 14695981039346656037ull;  // FNV-1a, 64 bits, as read_pair_file
  for (char c : bytes) fnv = (fnv ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  if (fingerprint) *fingerprint = fnv;
  std::string_view text = bytes;
  int64_t base = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {  // a byte-order mark
    text.remove_prefix(3);
    base = 3;
  }
  std::vector<std::string> tokens = split_text(text, opt, "text " + path, base);
  if (tokens.empty())
    throw Error("text " + path + ": no tokens (the file is " + (bytes.empty() ? "empty" : "whitespace alone") +
                "); expected plain UTF-8 text");
  return tokens;
}

TextTask::TextTask(const std::string& train_path, const TextOptions& opt) : opt_(opt), train_path_(train_path) {
  if (opt.min_count < 1) throw Error("text: --min-count " + str(opt.min_count) + " must be at least 1");
  if (opt.context < TextOptions::kMinContext || opt.context > TextOptions::kMaxContext)
    throw Error("text: --context " + str(opt.context) + " is out of range (" + str(TextOptions::kMinContext) + " .. " +
                str(TextOptions::kMaxContext) + ")");
  if (!(opt.valid_fraction >= 0 && opt.valid_fraction < 1))
    throw Error("text: --valid-fraction must be in [0, 1)");
  std::vector<std::string> all = read_text_tokens(train_path, opt, &fingerprint_);
  // The training tokens: all of them, or all but the validation tail.
  const int64_t n_all = static_cast<int64_t>(all.size());
  const int64_t n_valid = opt.valid_path.empty() ? static_cast<int64_t>(static_cast<real>(n_all) * opt.valid_fraction) : 0;
  const int64_t n_train = n_all - n_valid;
  const int64_t N = opt.context;
  if (n_train < N)
    throw Error("text " + train_path + ": " + str(n_train) + " training tokens" +
                (n_valid ? " (of " + str(n_all) + "; the last " + str(n_valid) + " are validation)" : "") +
                " are shorter than a window of --context " + str(N) + " tokens");
  std::unordered_map<std::string, int64_t> count;
  for (int64_t i = 0; i < n_train; ++i) ++count[all[static_cast<size_t>(i)]];
  std::vector<std::string> words = {DataTask::kUnk};
  std::unordered_map<std::string, bool> taken;
  for (int64_t i = 0; i < n_train; ++i) {
    const std::string& t = all[static_cast<size_t>(i)];
    if (count[t] >= opt.min_count && !taken[t]) {
      taken[t] = true;
      words.push_back(t);
    }
  }
  const int64_t V = static_cast<int64_t>(words.size()) + Vocab::kNumSpecials;
  if (V > TextOptions::kMaxVocab)
    throw Error("text " + train_path + ": a vocabulary of " + str(V) + " tokens is above the limit of " +
                str(TextOptions::kMaxVocab) + "; raise --min-count (now " + str(opt.min_count) +
                ") or read characters with --chars");
  vocab_ = Vocab(words);
  const int64_t unk = vocab_.id(DataTask::kUnk);
  auto ids = [&](int64_t from, int64_t to, int64_t* unknown) {
    std::vector<int64_t> out;
    out.reserve(static_cast<size_t>(to - from));
    for (int64_t i = from; i < to; ++i) {
      const std::string& t = all[static_cast<size_t>(i)];
      const bool known = vocab_.contains(t);
      out.push_back(known ? vocab_.id(t) : unk);
      *unknown += !known;
    }
    return out;
  };
  train_ = ids(0, n_train, &train_unknown_);
  if (!opt.valid_path.empty()) {
    valid_ = read_eval_file(opt.valid_path, &valid_unknown_);
  } else {
    valid_ = ids(n_train, n_all, &valid_unknown_);
    if (n_valid > 0 && n_valid < N)
      throw Error("text " + train_path + ": its validation tail of " + str(n_valid) +
                  " tokens is shorter than a window of --context " + str(N) +
                  " (give --valid FILE, a larger --valid-fraction, or --valid-fraction 0)");
  }
}

TextTask::TextTask(Vocab vocab, const TextOptions& opt) : vocab_(std::move(vocab)), opt_(opt) {
  if (!vocab_.contains(DataTask::kUnk)) throw Error("text: a text task's vocabulary holds <unk>");
}

std::vector<int64_t> TextTask::encode(std::string_view text, int64_t* unknown, const std::string& where) const {
  const int64_t unk = vocab_.id(DataTask::kUnk);
  std::vector<int64_t> out;
  for (const std::string& t : text_tokens(text, opt_, where)) {
    const bool known = vocab_.contains(t);
    out.push_back(known ? vocab_.id(t) : unk);
    *unknown += !known;
  }
  return out;
}

std::vector<int64_t> TextTask::read_eval_file(const std::string& path, int64_t* unknown) const {
  const int64_t unk = vocab_.id(DataTask::kUnk);
  std::vector<int64_t> out;
  for (const std::string& t : read_text_tokens(path, opt_)) {
    const bool known = vocab_.contains(t);
    out.push_back(known ? vocab_.id(t) : unk);
    *unknown += !known;
  }
  if (static_cast<int64_t>(out.size()) < opt_.context)
    throw Error("text " + path + ": its " + str(static_cast<int64_t>(out.size())) +
                " tokens are shorter than a window of the model's context, " + str(opt_.context) + " tokens");
  return out;
}

std::string TextTask::decode(const std::vector<int64_t>& ids) const {
  std::string out;
  for (int64_t id : ids) {
    std::string t = vocab_.token(id);
    if (opt_.chars) {
      for (const auto& [ch, name] : kSpaceNames)
        if (t == name) t = std::string(1, ch);
    } else if (!out.empty()) {
      out += ' ';
    }
    out += t;
  }
  return out;
}

Example TextTask::window(const std::vector<int64_t>& tokens, int64_t start) const {
  const int64_t N = opt_.context;
  if (start < 0 || start + N > static_cast<int64_t>(tokens.size()))
    throw Error("text: a window of " + str(N) + " tokens at " + str(start) + " is outside the " +
                str(static_cast<int64_t>(tokens.size())) + " tokens");
  Example e;
  e.tgt.assign(tokens.begin() + start, tokens.begin() + start + N);
  e.src = e.tgt;  // read by no decoder-only model; make_batch wants a source
  e.eos = false;
  return e;
}

Example TextTask::sample(Generator& gen) const {
  if (train_.empty())
    throw Error("text: this model was trained on a text file, which a checkpoint does not hold; give the file "
                "again (heed eval --data FILE.txt)");
  return window(train_, gen.randint(0, static_cast<int64_t>(train_.size()) - opt_.context));
}

Example TextTask::sample(Generator&, int64_t length) const {
  throw Error("text: every window has the model's context of " + str(opt_.context) + " tokens, not " + str(length) +
              "; heed eval scores a text model by its loss at each position");
}

Example TextTask::sample_held_out(Generator& gen) const {
  if (static_cast<int64_t>(valid_.size()) < opt_.context)
    throw Error("text: no validation text (give --valid FILE or a --valid-fraction above 0)");
  return window(valid_, gen.randint(0, static_cast<int64_t>(valid_.size()) - opt_.context));
}

std::vector<int64_t> TextTask::target(const std::vector<int64_t>&) const {
  throw Error("text: a text has no target to compute: a model of it predicts the next token");
}

std::map<std::string, std::string> TextTask::metadata() const {
  char buf[40];
  std::map<std::string, std::string> m = {{"text.tokenizer", opt_.chars ? TextOptions::kCharsTokenizer : kDataTokenizer},
                                          {"text.lower", opt_.tok.lower ? "1" : "0"},
                                          {"text.min_count", str(opt_.min_count)},
                                          {"text.context", str(opt_.context)}};
  if (!train_path_.empty()) {  // where the text is, for --resume
    m["text.path"] = train_path_;
    m["text.valid"] = opt_.valid_path;
    std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(opt_.valid_fraction));
    m["text.valid_fraction"] = buf;
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fingerprint_));
    m["text.fingerprint"] = buf;
  }
  return m;
}

TextOptions TextTask::options_from_metadata(const std::map<std::string, std::string>& meta, const std::string& where) {
  auto get = [&](const std::string& key) {
    auto it = meta.find(key);
    if (it == meta.end()) throw Error(where + ": its metadata has no '" + key + "'");
    return it->second;
  };
  TextOptions opt;
  const std::string tokenizer = get("text.tokenizer");
  if (tokenizer != TextOptions::kCharsTokenizer && tokenizer != kDataTokenizer)
    throw Error(where + ": metadata 'text.tokenizer' is '" + tokenizer + "', not " + kDataTokenizer + " or " +
                TextOptions::kCharsTokenizer);
  opt.chars = tokenizer == TextOptions::kCharsTokenizer;
  opt.tok.lower = parse_int64(get("text.lower"), where + ": metadata 'text.lower'", 0, 1) == 1;
  opt.min_count = parse_int64(get("text.min_count"), where + ": metadata 'text.min_count'", 1, INT64_MAX);
  opt.context = parse_int64(get("text.context"), where + ": metadata 'text.context'", TextOptions::kMinContext,
                            TextOptions::kMaxContext);
  if (meta.count("text.path")) {
    opt.valid_path = get("text.valid");
    const std::string f = get("text.valid_fraction");
    char* end = nullptr;
    const double v = std::strtod(f.c_str(), &end);
    if (f.empty() || *end != '\0' || !(v >= 0 && v < 1))
      throw Error(where + ": metadata 'text.valid_fraction' is '" + f + "', not a number in [0, 1)");
    opt.valid_fraction = static_cast<real>(v);
  }
  return opt;
}

PositionLoss position_loss(const Model& model, const TextTask& task, const std::vector<int64_t>& tokens,
                           int64_t max_windows) {
  const int64_t N = task.options().context;
  const int64_t windows = std::min<int64_t>(max_windows, static_cast<int64_t>(tokens.size()) / N);
  if (windows < 1)
    throw Error("text: " + str(static_cast<int64_t>(tokens.size())) + " tokens hold no window of " + str(N));
  NoGradGuard no_grad;
  std::vector<double> sum(static_cast<size_t>(N), 0.0);  // by position, over the windows
  for (int64_t first = 0; first < windows; first += 100) {
    const int64_t B = std::min<int64_t>(100, windows - first);
    std::vector<Example> examples;
    for (int64_t b = 0; b < B; ++b) examples.push_back(task.window(tokens, (first + b) * N));
    const Batch batch = make_batch(examples);
    const Tensor logp = log_softmax(model.forward(batch).value(), 2);  // (B, N, V)
    const int64_t V = logp.shape()[2];
    for (int64_t b = 0; b < B; ++b)
      for (int64_t t = 0; t < N; ++t)  // position t + 1 predicts t_{t+1}
        sum[static_cast<size_t>(t)] -= static_cast<double>(logp[(b * N + t) * V + batch.tgt_out[b * N + t]]);
  }
  PositionLoss out;
  out.windows = windows;
  double total = 0;
  for (double s : sum) {
    out.by_position.push_back(static_cast<real>(s / static_cast<double>(windows)));
    total += s;
  }
  out.mean = static_cast<real>(total / static_cast<double>(windows * N));
  return out;
}

IclPositions icl_positions(int64_t N) {
  if (N < TextOptions::kMinContext) throw Error("icl_positions: a context of " + str(N) + " tokens has no two positions");
  auto scaled = [&](int64_t p) { return std::clamp<int64_t>((p * N + 256) / 512, 1, N); };  // round(p N / 512), halves up
  return {scaled(50), scaled(500)};
}

real icl_score(const std::vector<real>& by_position) {
  const IclPositions p = icl_positions(static_cast<int64_t>(by_position.size()));
  return by_position[static_cast<size_t>(p.late - 1)] - by_position[static_cast<size_t>(p.early - 1)];
}

}  // namespace heed
