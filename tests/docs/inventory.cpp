// Reading the inventories and the documents' lists of them (see inventory.h).
#include "tests/docs/inventory.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>

#include "tests/support/heed_cli.h"

namespace fs = std::filesystem;

namespace inventory {

namespace {

const char* const kNumberWords[] = {"zero",     "one",     "two",     "three",     "four",     "five",     "six",
                                    "seven",    "eight",   "nine",    "ten",       "eleven",   "twelve",   "thirteen",
                                    "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"};

bool is_digits(const std::string& w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

// ---- text

Names split(const std::string& s, const std::string& sep) {
  Names out;
  for (size_t at = 0;;) {
    size_t next = s.find(sep, at);
    out.push_back(s.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) return out;
    at = next + sep.size();
  }
}

std::string join(const Names& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

int count_of(std::string w) {
  for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (is_digits(w)) return std::stoi(w);
  for (int i = 0; i <= 20; ++i)
    if (w == kNumberWords[i]) return i;
  return -1;
}

std::string count_group() {
  std::string g = "([0-9]+";
  for (const char* w : kNumberWords) g += std::string("|") + w;
  return g + ")";
}

std::vector<std::vector<std::string>> matches(const std::string& text, const std::string& pattern) {
  std::vector<std::vector<std::string>> out;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
    std::vector<std::string> groups;
    for (size_t i = 0; i < it->size(); ++i) groups.push_back((*it)[i].str());
    out.push_back(groups);
  }
  return out;
}

bool has_word(const std::string& text, const std::string& word) { return !matches(text, "\\b" + word + "\\b").empty(); }

// ---- Markdown

Names backticked(const std::string& text) {
  Names out;
  for (size_t at = text.find('`'); at != std::string::npos; at = text.find('`', at + 1)) {
    size_t end = text.find('`', at + 1);
    if (end == std::string::npos) break;
    out.push_back(text.substr(at + 1, end - at - 1));
    at = end;
  }
  return out;
}

std::string section(const std::string& md, const std::string& heading) {
  size_t at = 0;
  if (md.compare(0, heading.size(), heading) != 0) {
    at = md.find('\n' + heading);
    if (at == std::string::npos) return "";
    ++at;
  }
  const size_t level = heading.find_first_not_of('#');
  for (size_t line = md.find('\n', at); line != std::string::npos; line = md.find('\n', line + 1)) {
    size_t hashes = 0;
    while (line + 1 + hashes < md.size() && md[line + 1 + hashes] == '#') ++hashes;
    if (hashes > 0 && hashes <= level && line + 1 + hashes < md.size() && md[line + 1 + hashes] == ' ')
      return md.substr(at, line - at);
  }
  return md.substr(at);
}

Names lines_starting(const std::string& text, const std::string& prefix) {
  Names out;
  for (const std::string& line : split(text, "\n"))
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  return out;
}

Names cells(const std::string& row) {
  Names out;
  for (const std::string& c : split(row, " | ")) {
    std::string t = c;
    while (!t.empty() && (t.front() == '|' || t.front() == ' ')) t.erase(t.begin());
    while (!t.empty() && (t.back() == '|' || t.back() == ' ')) t.pop_back();
    out.push_back(t);
  }
  return out;
}

std::string tree_entry(const std::string& md, const std::string& folder) {
  std::string out;
  bool inside = false;
  for (const std::string& line : split(md, "\n")) {
    if (inside && !line.empty() && line[0] == ' ') out += "\n" + line;
    else if (inside) break;
    else if (line.rfind(folder + " ", 0) == 0) inside = true, out = line;
  }
  return out;
}

Names documents() {
  Names out = {"README.md", "exercises/README.md"};
  for (const char* dir : {"docs", "tutorials", "exercises"})
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.is_regular_file() && e.path().extension() == ".md" && e.path() != "exercises/README.md")
        out.push_back(e.path().string());
      if (e.is_directory() && fs::exists(e.path() / "README.md") && std::isdigit(static_cast<unsigned char>(e.path().filename().string()[0])))
        out.push_back((e.path() / "README.md").string());
    }
  std::sort(out.begin(), out.end());
  return out;
}

// ---- the inventories

Names chapters() {
  Names out;
  for (const auto& e : fs::directory_iterator("tutorials"))
    if (e.is_directory() && fs::exists(e.path() / "main.cpp")) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

Names declared_exercises(const std::string& dir) {
  Names out;
  bool inside = false;
  for (const std::string& line : split(heed::slurp("exercises/" + dir + "/exercises.h"), "\n")) {
    if (line.rfind("namespace heed::student {", 0) == 0) inside = true;
    else if (line.rfind("}  // namespace", 0) == 0) inside = false;
    else if (inside && !line.empty() && std::isalpha(static_cast<unsigned char>(line[0])) &&
             line.find('(') != std::string::npos && line.rfind("struct", 0) != 0 && line.rfind("class", 0) != 0 &&
             line.rfind("using", 0) != 0) {
      const std::string head = line.substr(0, line.find('('));
      size_t b = head.size();
      while (b > 0 && (std::isalnum(static_cast<unsigned char>(head[b - 1])) || head[b - 1] == '_')) --b;
      out.push_back(head.substr(b));
    }
  }
  return out;
}

std::map<int, std::string> numbered_in_readme(const std::string& dir) {
  std::map<int, std::string> out;
  const std::string nn = dir.substr(0, 2);
  for (const auto& m : matches(heed::slurp("exercises/" + dir + "/README.md"), "\\b" + nn + "\\.([0-9]+) `([a-z_0-9]+)\\("))
    out.emplace(std::stoi(m[1]), m[2]);
  return out;
}

int Exercises::count(const std::string& nn) const {
  auto it = by_chapter.find(nn);
  return it == by_chapter.end() ? 0 : static_cast<int>(it->second.size());
}

std::string Exercises::number(const std::string& nn, const std::string& name) const {
  auto it = by_chapter.find(nn);
  if (it == by_chapter.end()) return "";
  auto at = std::find(it->second.begin(), it->second.end(), name);
  return at == it->second.end() ? "" : nn + "." + std::to_string(at - it->second.begin() + 1);
}

Exercises exercises() {
  Exercises ex;
  for (const auto& e : fs::directory_iterator("exercises")) {
    const std::string dir = e.path().filename().string();
    if (!e.is_directory() || !fs::exists(e.path() / "exercises.h")) continue;
    Names names = declared_exercises(dir);
    const auto numbered = numbered_in_readme(dir);
    auto position = [&](const std::string& name) {
      for (const auto& mn : numbered)
        if (mn.second == name) return mn.first;
      return 1000;
    };
    std::stable_sort(names.begin(), names.end(),
                     [&](const std::string& a, const std::string& b) { return position(a) < position(b); });
    ex.total += static_cast<int>(names.size());
    ex.by_chapter[dir.substr(0, 2)] = names;
  }
  return ex;
}

std::vector<Piece> pieces() {
  std::vector<Piece> out;
  for (const std::string& line : split(heed::slurp("exercises/yours/pieces"), "\n")) {
    if (line.empty() || line[0] == '#') continue;
    Names words;
    for (const auto& m : matches(line, "[^ ]+")) words.push_back(m[0]);
    if (words.size() >= 2) out.push_back({words[0], split(words[1], ",")});
  }
  return out;
}

NameSet piece_chapters(const Piece& p) {
  NameSet out;
  for (const std::string& e : p.exercises) out.insert(e.substr(0, 2));
  return out;
}

}  // namespace inventory
