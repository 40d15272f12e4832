// Numbers in prose against the numbers of the checked blocks (see prose_numbers.h).
#include "tests/support/prose_numbers.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

struct Number {
  std::string text;  // as written
  double value = 0;  // its absolute value
  double ulp = 1;    // the place of its last digit: 0.01 for "0.99", 1e-3 for "3e-3"
  bool decimal = false;  // has a fractional part or an exponent
};

// Reads a number at s[i] (a digit), advancing i past it. `dotted` is set for 1.2.3-like text.
Number read_number(const std::string& s, size_t& i, bool& dotted) {
  Number n;
  size_t b = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  int frac = 0;
  if (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++frac;
    n.decimal = true;
  }
  int exp = 0;
  if (i + 1 < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '-' || s[j] == '+')) ++j;
    if (j < s.size() && is_digit(s[j])) {
      exp = std::atoi(s.c_str() + i + 1);
      while (j < s.size() && is_digit(s[j])) ++j;
      i = j;
      n.decimal = true;
    }
  }
  dotted = i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1]);
  while (i < s.size() && (is_digit(s[i]) || s[i] == '.') && dotted) ++i;
  n.text = s.substr(b, i - b);
  n.value = std::fabs(std::strtod(n.text.c_str(), nullptr));
  n.ulp = std::pow(10.0, exp - frac);
  return n;
}

// Whether the number at s[i] follows a word that makes it a name, not a value: "section 3.3",
// "Eq. 4.1", "App. 2.2", "Figure 1.5", "§3.3".
bool names_a_part(const std::string& s, size_t i) {
  size_t e = i;
  while (e > 0 && s[e - 1] == ' ') --e;
  size_t b = e;
  while (b > 0 && (std::isalpha(static_cast<unsigned char>(s[b - 1])) || s[b - 1] == '.')) --b;
  std::string word;
  for (size_t k = b; k < e; ++k) word += static_cast<char>(std::tolower(static_cast<unsigned char>(s[k])));
  static const std::set<std::string> names = {"section", "sections", "sec.", "eq.", "eqs.", "equation",
                                              "equations", "app.", "appendix", "figure", "fig.", "table", "version"};
  return names.count(word) > 0 || (e >= 2 && s.compare(e - 2, 2, "\xc2\xa7") == 0);
}

// Every number of a line; with `prose`, only decimal ones that start a token (not "h_2", not the
// "2.2" of "A.2.2", not dotted ones).
std::vector<Number> numbers(const std::string& s, bool prose) {
  std::vector<Number> out;
  for (size_t i = 0; i < s.size();) {
    if (!is_digit(s[i])) {
      ++i;
      continue;
    }
    bool starts = (i == 0 || !(is_word(s[i - 1]) || s[i - 1] == '.')) && !names_a_part(s, i);
    bool dotted = false;
    Number n = read_number(s, i, dotted);
    // A leading zero before another digit makes a label, not a value: exercise 01.2.
    const bool label = n.text.size() > 1 && n.text[0] == '0' && is_digit(n.text[1]);
    if (!prose || (starts && n.decimal && !dotted && !label)) out.push_back(n);
  }
  return out;
}

bool is_fence(const std::string& line) {
  size_t k = line.find_first_not_of(" \t");
  return k != std::string::npos && line.compare(k, 3, "```") == 0;
}

bool starts_with(const std::string& line, const char* prefix) {
  size_t k = line.find_first_not_of(" \t");
  return k != std::string::npos && line.compare(k, std::string(prefix).size(), prefix) == 0;
}

}  // namespace

std::vector<std::string> unquoted_numbers(const std::vector<std::string>& lines) {
  std::vector<double> shown;       // every number of the marked blocks
  std::set<std::string> exempt;    // the numbers of the not-output comments, as written
  std::vector<std::pair<size_t, Number>> prose;
  bool in_block = false, marked = false, math = false;
  for (size_t k = 0; k < lines.size(); ++k) {
    const std::string& line = lines[k];
    if (is_fence(line)) {
      if (!in_block) {
        const std::string prev = k > 0 ? lines[k - 1] : "";
        marked = starts_with(prev, "<!-- output:") || starts_with(prev, "<!-- output-full:") ||
                 starts_with(prev, "<!-- code:");
        // A ```math block is a displayed equation: its numbers are the prose's.
        math = line.substr(line.find_first_not_of(" \t")) == "```math";
      }
      in_block = !in_block;
      continue;
    }
    if (in_block && !math) {
      if (marked)
        for (const Number& n : numbers(line, false)) shown.push_back(n.value);
      continue;
    }
    if (starts_with(line, "<!-- not-output:")) {
      for (const Number& n : numbers(line, true)) exempt.insert(n.text);
      continue;
    }
    if (starts_with(line, "<!--")) continue;
    for (const Number& n : numbers(line, true)) prose.push_back({k + 1, n});
  }
  std::vector<std::string> missing;
  for (const auto& [at, n] : prose) {
    if (exempt.count(n.text)) continue;
    bool found = false;
    for (double v : shown) found = found || std::fabs(v - n.value) <= 0.5 * n.ulp * (1 + 1e-9);
    if (!found)
      missing.push_back("line " + std::to_string(at) + ": the prose quotes " + n.text +
                        ", which no output or code block shows (if it is not output, name it in a "
                        "`<!-- not-output: " + n.text + ", and why -->` comment)");
  }
  return missing;
}
