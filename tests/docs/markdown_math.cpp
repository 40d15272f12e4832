// Math markup against GitHub's rules (see markdown_math.h).
#include "tests/docs/markdown_math.h"

#include <cctype>
#include <cstring>

namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n'; }
bool is_ascii_punct(char c) { return c > 32 && c < 127 && !is_alnum(c); }

size_t indent(const std::string& line) {
  size_t k = 0;
  while (k < line.size() && line[k] == ' ') ++k;
  return k < line.size() && line[k] == '\t' ? 4 : k;
}

bool blank(const std::string& line) { return line.find_first_not_of(" \t\r") == std::string::npos; }

// "- x", "* x", "+ x", "12. x" after up to three spaces.
bool list_item(const std::string& line) {
  size_t k = line.find_first_not_of(' ');
  if (k == std::string::npos || k > 3) return false;
  if ((line[k] == '-' || line[k] == '*' || line[k] == '+') && k + 1 < line.size() && line[k + 1] == ' ') return true;
  size_t d = k;
  while (d < line.size() && std::isdigit(static_cast<unsigned char>(line[d]))) ++d;
  return d > k && d + 1 < line.size() && (line[d] == '.' || line[d] == ')') && line[d + 1] == ' ';
}

// The fence a line opens or closes: its character and length (0 when the line is not one).
struct Fence {
  char ch = 0;
  size_t length = 0;
  std::string info;  // what follows an opening fence: "math", "cpp", ""
};

Fence fence_of(const std::string& line) {
  Fence f;
  size_t k = line.find_first_not_of(' ');
  if (k == std::string::npos || k > 3 || (line[k] != '`' && line[k] != '~')) return f;
  size_t e = k;
  while (e < line.size() && line[e] == line[k]) ++e;
  if (e - k < 3) return f;
  f.ch = line[k];
  f.length = e - k;
  size_t b = line.find_first_not_of(" \t", e);
  size_t t = line.find_last_not_of(" \t\r");
  if (b != std::string::npos && t != std::string::npos && t >= b) f.info = line.substr(b, t - b + 1);
  return f;
}

class Checker {
 public:
  std::vector<std::string> problems;

  void fail(int line, const std::string& what) { problems.push_back("line " + std::to_string(line) + ": " + what); }

  // The TeX of one formula, wherever it came from. `plain` is true for `$...$`, where Markdown
  // reads the text before MathJax does; `table` when it sits on a table row.
  void formula(const std::string& tex, int line, bool plain, bool block, bool table) {
    std::string shown = tex.size() > 60 ? tex.substr(0, 57) + "..." : tex;
    for (char& ch : shown)
      if (ch == '\n') ch = ' ';
    while (!shown.empty() && shown.back() == ' ') shown.pop_back();
    if (tex.find_first_not_of(" \t\n") == std::string::npos) {
      fail(line, "an empty formula");
      return;
    }
    int depth = 0, lefts = 0;
    std::vector<std::string> envs;
    bool said_depth = false;
    for (size_t i = 0; i < tex.size(); ++i) {
      const char c = tex[i];
      if (c == '\\' && i + 1 < tex.size()) {
        const char n = tex[i + 1];
        if (plain && is_ascii_punct(n)) {
          fail(line, std::string("`\\") + n + "` in `$" + shown + "$`: Markdown removes the backslash before MathJax reads it (write \\lbrace, \\rbrace, or the $`...`$ form)");
        }
        if (!plain && (n == '(' || n == ')' || n == '[' || n == ']')) {
          // \left( and \right] are fine; a bare \( or \[ is a LaTeX delimiter inside math.
          fail(line, std::string("`\\") + n + "` in the formula `" + shown + "`: a LaTeX delimiter inside math");
        }
        if (is_alpha(n)) {
          size_t e = i + 1;
          while (e < tex.size() && is_alpha(tex[e])) ++e;
          const std::string name = tex.substr(i + 1, e - i - 1);
          if (name == "left") ++lefts;
          if (name == "right" && --lefts < 0) {
            fail(line, "`\\right` without its `\\left` in `" + shown + "`");
            lefts = 0;
          }
          if (name == "begin" || name == "end") {
            size_t b = tex.find('{', e), q = tex.find('}', e);
            std::string env = b == e && q != std::string::npos ? tex.substr(b + 1, q - b - 1) : "";
            if (name == "begin") envs.push_back(env);
            else if (envs.empty() || envs.back() != env)
              fail(line, "`\\end{" + env + "}` does not close the environment open in `" + shown + "`");
            else envs.pop_back();
          }
          i = e - 1;
        } else {
          ++i;  // an escaped character: \{ \} \\ \, are not braces or delimiters
        }
        continue;
      }
      if (c == '{') ++depth;
      if (c == '}' && --depth < 0 && !said_depth) {
        fail(line, "a `}` closes no `{` in `" + shown + "`");
        said_depth = true;
      }
      if (c == '$' && block) fail(line, "a `$` inside a ```math block (the block is math already; MathJax shows the `$`)");
      if (c == '|' && table) fail(line, "`|` in `" + shown + "` on a table row: a cell boundary (write \\vert or \\mid)");
      if (!plain) continue;
      if (c == '*') fail(line, "`*` in `$" + shown + "$`: Markdown may read it as emphasis (write \\ast, or the $`...`$ form)");
      if (c == '_' && (i == 0 || !is_alnum(tex[i - 1])))
        fail(line, "`_` after `" + std::string(1, i ? tex[i - 1] : ' ') + "` in `$" + shown +
                       "$`: GitHub's Markdown can pair it with another `_` as emphasis (use the $`...`$ form)");
      if (c == '<' && i + 1 < tex.size() && (is_alpha(tex[i + 1]) || tex[i + 1] == '/' || tex[i + 1] == '!'))
        fail(line, "`<` before a letter in `$" + shown + "$`: Markdown reads an HTML tag (write \\lt)");
    }
    if (depth > 0) fail(line, "a `{` is never closed in `" + shown + "`");
    if (lefts > 0) fail(line, "`\\left` without its `\\right` in `" + shown + "`");
    if (!envs.empty()) fail(line, "`\\begin{" + envs.back() + "}` is never ended in `" + shown + "`");
  }

  // One paragraph of prose (its lines joined with '\n'), starting at line `first`.
  void prose(const std::string& p, int first) {
    auto line_at = [&](size_t i) {
      int n = first;
      for (size_t k = 0; k < i && k < p.size(); ++k) n += p[k] == '\n';
      return n;
    };
    auto table_row = [&](size_t i) {
      size_t b = p.rfind('\n', i);
      b = b == std::string::npos ? 0 : b + 1;
      size_t k = p.find_first_not_of(' ', b);
      return k != std::string::npos && p[k] == '|';
    };
    // A run of n backticks at i ends at the next run of exactly n; npos when none does.
    auto code_end = [&](size_t i, size_t n) {
      for (size_t j = i + n; j < p.size();) {
        if (p[j] != '`') {
          ++j;
          continue;
        }
        size_t e = j;
        while (e < p.size() && p[e] == '`') ++e;
        if (e - j == n) return j;
        j = e;
      }
      return std::string::npos;
    };
    for (size_t i = 0; i < p.size();) {
      const char c = p[i];
      if (p.compare(i, 4, "<!--") == 0) {
        size_t e = p.find("-->", i + 4);
        i = e == std::string::npos ? p.size() : e + 3;
        continue;
      }
      if (c == '\\' && i + 1 < p.size()) {
        if (p[i + 1] == '(' || p[i + 1] == '[')
          fail(line_at(i), std::string("`\\") + p[i + 1] + "` in prose: GitHub shows LaTeX's delimiters as text (use $...$ or a ```math block)");
        i += 2;
        continue;
      }
      if (c == '`') {
        size_t n = 0;
        while (i + n < p.size() && p[i + n] == '`') ++n;
        size_t e = code_end(i, n);
        i = e == std::string::npos ? i + n : e + n;
        continue;
      }
      if (c != '$') {
        ++i;
        continue;
      }
      const int at = line_at(i);
      if (i + 1 < p.size() && p[i + 1] == '$') {
        fail(at, "`$$`: display math is a ```math block here, not `$$...$$`");
        size_t e = p.find("$$", i + 2);
        i = e == std::string::npos ? p.size() : e + 2;
        continue;
      }
      if (i + 1 < p.size() && p[i + 1] == '`') {  // $`...`$
        size_t n = 0;
        while (i + 1 + n < p.size() && p[i + 1 + n] == '`') ++n;
        size_t e = code_end(i + 1, n);
        if (e == std::string::npos || e + n >= p.size() || p[e + n] != '$') {
          fail(at, "a $` opens a formula that no `$ closes");
          i += 1 + n;
          continue;
        }
        formula(p.substr(i + 1 + n, e - i - 1 - n), at, false, false, table_row(i));
        i = e + n + 1;
        continue;
      }
      if (i + 1 >= p.size() || is_space(p[i + 1])) {
        fail(at, "a `$` followed by a space opens no formula on GitHub (a dollar sign in prose is `\\$`)");
        size_t e = p.find('$', i + 1);  // its partner is not an opener either
        i = e == std::string::npos ? p.size() : e + 1;
        continue;
      }
      size_t j = i + 1;
      while (j < p.size() && !(p[j] == '$' && p[j - 1] != '\\')) ++j;
      if (j >= p.size()) {
        fail(at, "a `$` that nothing closes: unbalanced `$` in this paragraph");
        break;
      }
      const std::string tex = p.substr(i + 1, j - i - 1);
      if (is_space(p[j - 1])) fail(at, "the `$` closing `$" + tex + "$` follows a space: GitHub does not close math there");
      if (j + 1 < p.size() && std::isdigit(static_cast<unsigned char>(p[j + 1])))
        fail(at, "the `$` closing `$" + tex + "$` is followed by a digit: GitHub does not close math there");
      if (tex.find('\n') != std::string::npos) fail(at, "`$" + tex + "$` runs over a line break: keep a formula on one line");
      formula(tex, at, true, false, table_row(i));
      i = j + 1;
    }
  }
};

std::vector<std::string> split_lines(const std::string& md) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos <= md.size()) {
    size_t end = md.find('\n', pos);
    if (end == std::string::npos) end = md.size();
    std::string line = md.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    pos = end + 1;
  }
  return lines;
}

// Walks a file's blocks: fenced blocks, indented code blocks, paragraphs of prose.
struct Walk {
  struct Block {
    enum Kind { prose, fenced, indented } kind;
    int first;          // line number of its first line (of the opening fence for fenced)
    std::string text;   // the lines, joined with '\n' (a fenced block's contents)
    std::string info;   // a fenced block's info string
    bool closed = true;
  };
  std::vector<Block> blocks;

  explicit Walk(const std::string& md) {
    const std::vector<std::string> lines = split_lines(md);
    bool in_list = false;
    for (size_t k = 0; k < lines.size();) {
      const std::string& line = lines[k];
      if (blank(line)) {
        ++k;
        continue;
      }
      Fence open = fence_of(line);
      if (open.ch && (open.ch == '~' || open.info.find('`') == std::string::npos)) {
        Block b{Block::fenced, static_cast<int>(k + 1), "", open.info, false};
        size_t j = k + 1;
        for (; j < lines.size(); ++j) {
          Fence close = fence_of(lines[j]);
          if (close.ch == open.ch && close.length >= open.length && close.info.empty()) {
            b.closed = true;
            break;
          }
          b.text += lines[j] + "\n";
        }
        blocks.push_back(b);
        k = j + 1;
        continue;
      }
      if (indent(line) >= 4 && !in_list) {
        Block b{Block::indented, static_cast<int>(k + 1), "", "", true};
        while (k < lines.size() && (blank(lines[k]) || indent(lines[k]) >= 4)) b.text += lines[k++] + "\n";
        blocks.push_back(b);
        continue;
      }
      if (list_item(line)) in_list = true;
      else if (indent(line) == 0) in_list = false;
      // A paragraph: up to a blank line or a fence.
      Block b{Block::prose, static_cast<int>(k + 1), "", "", true};
      while (k < lines.size() && !blank(lines[k]) && (k == static_cast<size_t>(b.first - 1) || !fence_of(lines[k]).ch)) {
        if (!b.text.empty()) b.text += "\n";
        b.text += lines[k++];
      }
      blocks.push_back(b);
    }
  }
};

}  // namespace

std::vector<std::string> math_problems(const std::string& markdown) {
  Checker c;
  for (const Walk::Block& b : Walk(markdown).blocks) {
    if (b.kind == Walk::Block::prose) c.prose(b.text, b.first);
    if (b.kind != Walk::Block::fenced) continue;
    if (!b.closed) c.fail(b.first, "the fenced block opened here never closes");
    if (b.info == "math") c.formula(b.text, b.first, false, true, false);
  }
  return c.problems;
}

std::vector<std::string> displayed_ascii_math(const std::string& markdown) {
  std::vector<std::string> out;
  for (const Walk::Block& b : Walk(markdown).blocks)
    if (b.kind == Walk::Block::indented)
      out.push_back("line " + std::to_string(b.first) + ": an indented block, `" + b.text.substr(0, b.text.find('\n')) +
                    "`: an equation is a ```math block, code a fenced block with its language");
  return out;
}
