// The repository stands alone: every relative link in every Markdown file resolves to a file
// of the repository (and, with #anchor, to one of its headings, as GitHub names them), and
// no file points at the engineers' folder beside the repository. Runs from the repository
// root, as make test does; the file list is git's when this is a clone, else the tree.
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "tests/support/heed_cli.h"

namespace fs = std::filesystem;

namespace {

// Markdown without fenced blocks and inline code spans, where [x](y) is not a link.
std::string prose_only(const std::string& md) {
  std::string out;
  bool fenced = false;
  size_t pos = 0;
  while (pos < md.size()) {
    size_t end = md.find('\n', pos);
    if (end == std::string::npos) end = md.size();
    std::string line = md.substr(pos, end - pos);
    pos = end + 1;
    size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, 3, "```") == 0) {
      fenced = !fenced;
      out += '\n';
      continue;
    }
    if (fenced) {
      out += '\n';
      continue;
    }
    bool code = false;
    for (char c : line) {
      if (c == '`') code = !code;
      else if (!code) out += c;
    }
    out += '\n';
  }
  return out;
}

// GitHub's anchor of a heading: lower case, punctuation dropped (not - and _), spaces to -.
std::string slug(const std::string& heading) {
  std::string s;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_' || c >= 0x80) s += static_cast<char>(std::tolower(c));
    else if (c == ' ') s += '-';
  }
  return s;
}

// The anchors of a Markdown file's headings (duplicates numbered -1, -2, ... as GitHub does).
std::set<std::string> anchors(const std::string& md) {
  std::set<std::string> out;
  bool fenced = false;
  size_t pos = 0;
  while (pos < md.size()) {
    size_t end = md.find('\n', pos);
    if (end == std::string::npos) end = md.size();
    std::string line = md.substr(pos, end - pos);
    pos = end + 1;
    if (line.rfind("```", 0) == 0) fenced = !fenced;
    if (fenced || line.empty() || line[0] != '#') continue;
    size_t text = line.find_first_not_of('#');
    if (text == std::string::npos || line[text] != ' ') continue;
    std::string a = slug(line.substr(text + 1));
    std::string unique = a;
    for (int n = 1; out.count(unique); ++n) unique = a + "-" + std::to_string(n);
    out.insert(unique);
  }
  return out;
}

struct Link {
  std::string target;
  int line;
};

// Inline links and images: [text](target) and ![alt](target), target up to a space or ')'.
std::vector<Link> links(const std::string& prose) {
  std::vector<Link> out;
  int line = 1;
  for (size_t i = 0; i + 1 < prose.size(); ++i) {
    if (prose[i] == '\n') ++line;
    if (prose[i] != ']' || prose[i + 1] != '(') continue;
    size_t end = prose.find_first_of(") \n", i + 2);
    if (end == std::string::npos) continue;
    out.push_back({prose.substr(i + 2, end - i - 2), line});
  }
  return out;
}

// The bare Markdown file names a text mentions (a name alone, not "docs/models.md"), with their
// line numbers. A name is letters, digits, '_', '-' and '.' before ".md", ending at a character
// that cannot continue it. A name with a folder is skipped: in code it is often built from
// pieces (dir + "/README.md") or a pattern (NN_topic/README.md), and links are checked above.
std::vector<Link> markdown_names(const std::string& text) {
  std::vector<Link> out;
  auto part = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.' || c == '/';
  };
  int line = 1;
  size_t counted = 0;  // text[0, counted) has been counted into `line`
  for (size_t at = text.find(".md"); at != std::string::npos; at = text.find(".md", at + 3)) {
    const size_t end = at + 3;
    if (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_')) continue;
    size_t begin = at;
    while (begin > 0 && part(text[begin - 1])) --begin;
    if (begin == at || std::isalnum(static_cast<unsigned char>(text[at - 1])) == 0) continue;  // ".md" alone, "x/.md"
    for (; counted < begin; ++counted)
      if (text[counted] == '\n') ++line;
    std::string name = text.substr(begin, end - begin);
    if (name.find('/') != std::string::npos) continue;  // with a folder, or in a web address
    out.push_back({name, line});
  }
  return out;
}

}  // namespace

TEST_SUITE("docs") {
  TEST_CASE("every relative link in every Markdown file resolves, anchors included") {
    std::vector<std::string> files = heed::repository_files();
    int checked = 0;
    for (const std::string& file : files) {
      if (fs::path(file).extension() != ".md") continue;
      const std::string md = heed::slurp(file);
      for (const Link& link : links(prose_only(md))) {
        const std::string& t = link.target;
        if (t.empty() || t.find("://") != std::string::npos || t.rfind("mailto:", 0) == 0) continue;
        size_t hash = t.find('#');
        std::string path = t.substr(0, hash), anchor = hash == std::string::npos ? "" : t.substr(hash + 1);
        fs::path resolved = path.empty() ? fs::path(file) : (fs::path(file).parent_path() / path).lexically_normal();
        INFO(file << ":" << link.line << ": link " << t);
        ++checked;
        const bool inside = !resolved.empty() && resolved.begin()->string() != "..";
        CHECK_MESSAGE(inside, "points outside the repository");
        if (!inside) continue;
        const bool exists = fs::exists(resolved);
        CHECK_MESSAGE(exists, resolved.string() << " does not exist");
        if (exists && !anchor.empty() && resolved.extension() == ".md")
          CHECK_MESSAGE(anchors(heed::slurp(resolved.string())).count(anchor) == 1,
                        resolved.string() << " has no heading #" << anchor);
      }
    }
    CHECK(checked > 20);  // the README and the chapters link to each other
  }

  TEST_CASE("every Markdown file a file names bare, outside a link, is in the repository") {
    // A link is checked above; a ".md" file named alone in running text or a comment is not a
    // link, but a reader looks for it all the same: it must be the name of a repository file.
    std::vector<std::string> files = heed::repository_files();
    std::set<std::string> names;
    for (const std::string& f : files) names.insert(fs::path(f).filename().string());
    int checked = 0;
    for (const std::string& file : files) {
      const std::string ext = fs::path(file).extension().string();
      if (ext == ".svg" || ext == ".safetensors" || ext == ".bin" || ext == ".png") continue;
      for (const Link& m : markdown_names(heed::slurp(file))) {
        ++checked;
        const bool found = names.count(m.target) == 1;
        CHECK_MESSAGE(found, file << ":" << m.line << " names " << m.target << ", which is not in the repository");
      }
    }
    CHECK(checked > 20);
  }

  TEST_CASE("bare Markdown file names are found, names with a folder are left to the link check") {
    auto targets = [](const std::string& text) {
      std::vector<std::string> out;
      for (const Link& m : markdown_names(text)) out.push_back(m.target);
      return out;
    };
    // The name is written in two parts so that the whole-repository check above does not meet it.
    const std::string missing = std::string("TASKS") + ".md";
    CHECK(targets("with " + missing + "'s recipe") == std::vector<std::string>{missing});
    CHECK(targets("see (docs/models.md#metrics), `README.md`.") == std::vector<std::string>{"README.md"});
    CHECK(targets("https://example.org/x/" + missing + " and .md files and x.mdx") == std::vector<std::string>{});
    CHECK(markdown_names("a\nb\nc " + missing).at(0).line == 3);
  }

  TEST_CASE("no file points at a folder beside the repository") {
    const std::string outside = std::string("../") + "shared";  // split, so this file does not match itself
    for (const std::string& file : heed::repository_files()) {
      const std::string text = heed::slurp(file);
      size_t at = text.find(outside);
      INFO(file);
      CHECK_MESSAGE(at == std::string::npos, file << " mentions " << outside << " at byte " << at);
    }
  }

  TEST_CASE("the anchor of a heading is GitHub's") {
    CHECK(slug("Tasks (`models/tasks/tasks.h`, `models/tasks/translate.h`)") == "tasks-modelstaskstasksh-modelstaskstranslateh");
    CHECK(slug("Metrics (`models/train.cpp`: `score_batch`)") == "metrics-modelstraincpp-score_batch");
    CHECK(anchors("# A\n## A\n```\n# not a heading\n```\n") == std::set<std::string>{"a", "a-1"});
    CHECK(links(prose_only("see [x](README.md#b) and `[y](z)`\n```\n[w](v)\n```\n")).size() == 1);
  }
}
