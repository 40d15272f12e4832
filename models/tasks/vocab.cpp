#include "models/tasks/vocab.h"

#include <cctype>
#include <sstream>

#include "tensor/tensor.h"

namespace heed {

namespace {

const char* const kSpecialNames[Vocab::kNumSpecials] = {"<pad>", "<bos>", "<eos>"};
constexpr int64_t kShownWords = 8;  // how many words an "unknown token" message lists

bool has_space(const std::string& s) {
  for (char c : s)
    if (std::isspace(static_cast<unsigned char>(c))) return true;
  return false;
}

}  // namespace

Vocab::Vocab() {
  for (int64_t i = 0; i < kNumSpecials; ++i) {
    tokens_.push_back(kSpecialNames[i]);
    ids_[kSpecialNames[i]] = i;
  }
}

Vocab::Vocab(const std::vector<std::string>& words) : Vocab() {
  for (const std::string& w : words) {
    if (w.empty() || has_space(w))
      throw Error("Vocab: word '" + w + "' is empty or contains whitespace");
    if (ids_.count(w)) {
      bool special = ids_.at(w) < kNumSpecials;
      throw Error("Vocab: word '" + w + "' " +
                  (special ? "is the name of a special token" : "appears twice"));
    }
    ids_[w] = size();
    tokens_.push_back(w);
  }
}

Vocab Vocab::symbols(int64_t V) {
  if (V < 1) throw Error("Vocab::symbols: V = " + std::to_string(V) + ": needs at least 1 symbol");
  std::vector<std::string> words;
  for (int64_t k = 0; k < V; ++k) words.push_back(std::to_string(k));
  Vocab vocab(words);
  vocab.symbols_ = true;
  return vocab;
}

int64_t Vocab::id(const std::string& token) const {
  auto it = ids_.find(token);
  if (it == ids_.end()) throw Error("unknown token '" + token + "' (vocabulary: " + describe() + ")");
  return it->second;
}

const std::string& Vocab::token(int64_t id) const {
  if (id < 0 || id >= size())
    throw Error("Vocab::token: id " + std::to_string(id) + " is out of range (0 .. " +
                std::to_string(size() - 1) + ")");
  return tokens_[id];
}

std::vector<int64_t> Vocab::encode(const std::string& text) const {
  std::istringstream in(text);
  std::vector<int64_t> ids;
  std::string word;
  while (in >> word) {
    int64_t i = id(word);
    if (i < kNumSpecials)
      throw Error("encode: '" + word + "' is a special token; write only words (" + describe() + ")");
    ids.push_back(i);
  }
  if (ids.empty()) throw Error("encode: empty text: expected whitespace-separated tokens");
  return ids;
}

std::string Vocab::decode(const std::vector<int64_t>& ids) const {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ' ';
    out += token(ids[i]);
  }
  return out;
}

std::string Vocab::describe() const {
  int64_t words = size() - kNumSpecials;
  if (words == 0) return "no words, only <pad> <bos> <eos>";
  if (symbols_) return tokens_[kNumSpecials] + " .. " + tokens_.back();
  std::string out = std::to_string(words) + " words: ";
  for (int64_t i = kNumSpecials; i < size() && i < kNumSpecials + kShownWords; ++i) {
    if (i > kNumSpecials) out += ' ';
    out += tokens_[i];
  }
  if (words > kShownWords) out += " ...";
  return out;
}

}  // namespace heed
