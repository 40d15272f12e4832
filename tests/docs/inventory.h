// What tests/docs/inventory_test.cpp reads: heed's inventories from the sources (the chapters from
// tutorials/NN_topic/main.cpp, each chapter's exercises from exercises/NN_topic/exercises.h,
// numbered as its README numbers them, the pieces from exercises/yours/pieces), and the parts of a
// Markdown document that list or count them (sections, table rows, `code` names, counts written
// as "25" or "nine"). Paths are relative to the repository's root, where make test runs.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace inventory {

using Names = std::vector<std::string>;
using NameSet = std::set<std::string>;

// ---- text
Names split(const std::string& s, const std::string& sep);
std::string join(const Names& v);  // "a, b, c"
// A count as the documents write it, "25" or "nine" (to twenty); -1 for anything else.
int count_of(std::string word);
// A regex group that matches such a count.
std::string count_group();
// Every match of the ECMAScript regex `pattern` in text, each as its groups (0: the whole match).
std::vector<std::vector<std::string>> matches(const std::string& text, const std::string& pattern);
bool has_word(const std::string& text, const std::string& word);  // `word` with a word boundary each side

// ---- Markdown
Names backticked(const std::string& text);  // the names written `so`, in order
// The section under the heading line that starts with `heading` ("## `heed train`"), up to the
// next heading of its level or above; "" if there is none.
std::string section(const std::string& md, const std::string& heading);
Names lines_starting(const std::string& text, const std::string& prefix);
Names cells(const std::string& row);  // "| a | b |" -> {"a", "b"}
// A folder's entry in a tree drawn as "folder/   what it holds", continued on indented lines
// (docs/architecture.md's): its line and those continuing it; "" if there is none.
std::string tree_entry(const std::string& md, const std::string& folder);
// README.md, exercises/README.md, docs/*.md, tutorials/*.md and the chapters' and the exercises'
// README.md files: the documents a reader reads.
Names documents();

// ---- the inventories
Names chapters();  // tutorials/NN_topic folders with a main.cpp (the Makefile's test), in order
// The column-0 function declarations inside `namespace heed::student {` of
// exercises/DIR/exercises.h: the functions the student writes, in the header's order.
Names declared_exercises(const std::string& dir);
// "NN.M `name(" in exercises/DIR/README.md: exercise M's name, by M.
std::map<int, std::string> numbered_in_readme(const std::string& dir);

struct Exercises {
  std::map<std::string, Names> by_chapter;  // "07" -> its exercises, exercise M at index M - 1
  int total = 0;
  int count(const std::string& nn) const;
  // "07.2" for ("07", "masked_softmax_rows"); "" if the chapter has no such exercise.
  std::string number(const std::string& nn, const std::string& name) const;
};
// Every exercises/NN_topic's exercises: its header's functions in its README's order (a function
// the README does not number comes last; the test reports it).
Exercises exercises();

struct Piece {
  std::string name;
  Names exercises;  // "04:cross_entropy_value", ...
};
std::vector<Piece> pieces();  // exercises/yours/pieces, one a line: name, exercises, what it replaces
NameSet piece_chapters(const Piece& p);  // the chapters ("05") of its exercises

}  // namespace inventory
