// Vocab: token strings <-> integer ids. Ids 0, 1, 2 are always the specials <pad>, <bos>,
// <eos>; the words follow from id 3 in the order given. The toy tasks use symbols(V), whose
// words are the decimals "0" .. "V-1" (symbol k has id k + 3); translate builds one vocabulary
// per language from its grammar. A Vocab is an immutable value: copy it freely.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace heed {

class Vocab {
 public:
  static constexpr int64_t kPad = 0;
  static constexpr int64_t kBos = 1;
  static constexpr int64_t kEos = 2;
  static constexpr int64_t kNumSpecials = 3;

  Vocab();  // the three specials only
  // REQUIRES: the words are distinct, non-empty, free of whitespace and not a special's name.
  explicit Vocab(const std::vector<std::string>& words);
  static Vocab symbols(int64_t V);  // "0" .. "V-1"; REQUIRES 1 <= V

  int64_t size() const { return static_cast<int64_t>(tokens_.size()); }  // specials included
  bool contains(const std::string& token) const { return ids_.count(token) != 0; }
  int64_t id(const std::string& token) const;  // heed::Error "unknown token ..." if absent
  const std::string& token(int64_t id) const;  // heed::Error if id is out of range
  const std::vector<std::string>& tokens() const { return tokens_; }

  // Whitespace-separated words -> ids. Empty text, unknown words and the specials are
  // errors: text is what a person types, and a <pad> inside a source would break its mask.
  std::vector<int64_t> encode(const std::string& text) const;
  // Ids -> tokens joined by single spaces, every id as it is (specials as "<eos>" etc.).
  std::string decode(const std::vector<int64_t>& ids) const;

 private:
  std::string describe() const;  // "0 .. 9" or the first few words, for error messages

  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int64_t> ids_;
  bool symbols_ = false;  // made by symbols(): describe() shows the range
};

}  // namespace heed
