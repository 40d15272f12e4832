// Every equation of the repository's Markdown is markup GitHub renders (tests/docs/markdown_math.h),
// and the chapters whose equations have been converted show none in monospace any more.
// Runs from the repository root, as make test does.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "tests/support/heed_cli.h"
#include "tests/docs/markdown_math.h"

namespace fs = std::filesystem;

namespace {

// The Markdown files of the repository (heed::repository_files of tests/support/heed_cli.h, the .md ones).
std::vector<std::string> markdown_files() {
  std::vector<std::string> files;
  for (const std::string& f : heed::repository_files())
    if (fs::path(f).extension() == ".md") files.push_back(f);
  return files;
}

// The number of problems whose message contains `what`.
int count(const std::vector<std::string>& problems, const std::string& what) {
  int n = 0;
  for (const std::string& p : problems) n += p.find(what) != std::string::npos;
  return n;
}

}  // namespace

TEST_SUITE("docs") {
  TEST_CASE("math check: well-formed inline and block math passes") {
    const std::string md =
        "The score is $e_i = v^\\top \\tanh(W_1 h_i + W_2 s)$, and\n"
        "the weights $`\\alpha_{ti} = \\exp(e_{ti}) / \\sum_{j} \\exp(e_{tj})`$ sum to one.\n"
        "A price of \\$5 is not math, nor is `$HOME` in code.\n"
        "\n"
        "```math\n"
        "c_t = \\sum_{i=1}^{S} \\alpha_{ti} h_i, \\qquad \\left( \\frac{1}{\\sqrt{d_k}} \\right)\n"
        "```\n"
        "\n"
        "| model | score |\n"
        "|---|---|\n"
        "| `dot` | $s_t^\\top h_i$ |\n"
        "\n"
        "    indented code: $ is literal here\n"
        "\n"
        "```cpp\n"
        "auto cost = 5$;  // not prose\n"
        "```\n";
    const std::vector<std::string> p = math_problems(md);
    for (const std::string& s : p) MESSAGE(s);
    CHECK(p.empty());
  }

  TEST_CASE("math check: each fault of a broken sample is caught, on its line") {
    const std::vector<std::string> p = math_problems(
        "# broken\n"                                            // 1
        "An open $x_i + 1 and nothing closes it.\n"             // 2
        "\n"
        "A space: $ x$ and a digit after: $a$5.\n"              // 4
        "Display by dollars: $$x^2$$ here.\n"                   // 5
        "LaTeX delimiters \\(x\\) in prose.\n"                  // 6
        "Braces $\\frac{1}{2$ and $\\{a\\}$ and $a * b$.\n"     // 7
        "Subscripts $\\tilde{h}_t + (W s)_i$ and $a<b$.\n"      // 8
        "\n"
        "| a | $\\vert x | y$ |\n"                              // 10
        "\n"
        "```math\n"                                             // 12
        "\\left( x $y$\n"                                       // 13
        "```\n"
        "\n"
        "```math\n"                                             // 16
        "x = 1\n");
    for (const std::string& s : p) MESSAGE(s);
    CHECK(count(p, "line 2: a `$` that nothing closes") == 1);
    CHECK(count(p, "line 4: a `$` followed by a space") == 1);
    CHECK(count(p, "line 4: the `$` closing `$a$` is followed by a digit") == 1);
    CHECK(count(p, "line 5: `$$`") == 1);
    CHECK(count(p, "line 6: `\\(` in prose") == 1);
    CHECK(count(p, "line 7: a `{` is never closed") == 1);
    CHECK(count(p, "line 7: `\\{` in") == 1);
    CHECK(count(p, "line 7: `\\}` in") == 1);
    CHECK(count(p, "line 7: `*` in") == 1);
    CHECK(count(p, "line 8: `_` after `}`") == 1);
    CHECK(count(p, "line 8: `_` after `)`") == 1);
    CHECK(count(p, "line 8: `<` before a letter") == 1);
    CHECK(count(p, "line 10: `|` in") == 1);
    CHECK(count(p, "line 12: a `$` inside a ```math block") == 2);
    CHECK(count(p, "line 12: `\\left` without its `\\right`") == 1);
    CHECK(count(p, "line 16: the fenced block opened here never closes") == 1);
    CHECK(p.size() == 17);
  }

  TEST_CASE("math check: an indented block counts as a displayed ASCII equation; list continuations do not") {
    const std::string md =
        "The derivative:\n"
        "\n"
        "    f'(x) = lim (f(x + eps) - f(x)) / eps\n"
        "\n"
        "1. an item\n"
        "\n"
        "    its second paragraph, indented\n"
        "\n"
        "```math\n"
        "f'(x) = \\lim_{\\epsilon \\to 0} \\frac{f(x + \\epsilon) - f(x)}{\\epsilon}\n"
        "```\n";
    const std::vector<std::string> d = displayed_ascii_math(md);
    REQUIRE(d.size() == 1);
    CHECK(d[0].find("line 3: an indented block, `    f'(x)") == 0);
    CHECK(math_problems(md).empty());
  }

  TEST_CASE("every math formula in every Markdown file is markup GitHub renders") {
    int files = 0;
    for (const std::string& file : markdown_files()) {
      ++files;
      for (const std::string& problem : math_problems(heed::slurp(file))) FAIL_CHECK(file << ":" << problem);
    }
    CHECK(files > 30);
  }

  TEST_CASE("the chapters whose equations are math markup show none as indented monospace") {
    // Converted from ASCII equations to GitHub math; a chapter joins the list when its own are.
    const std::vector<std::string> converted = {"tutorials/01_tensors/README.md", "tutorials/02_autograd/README.md",
                                                "tutorials/03_gradient_checking/README.md",
                                                "tutorials/04_classifiers/README.md", "tutorials/05_recurrent_cells/README.md",
                                                "tutorials/06_seq2seq/README.md", "tutorials/07_additive_attention/README.md",
                                                "tutorials/08_multiplicative_attention/README.md",
                                                "tutorials/11_translation/README.md", "tutorials/12_attention_zoo/README.md",
                                                "tutorials/13_transformer/README.md", "tutorials/14_induction_heads/README.md",
                                                "docs/models.md"};
    for (const std::string& file : converted) {
      REQUIRE(fs::is_regular_file(file));
      for (const std::string& left : displayed_ascii_math(heed::slurp(file))) FAIL_CHECK(file << ":" << left);
    }
  }
}
