// The check that every equation of the repository's Markdown renders on GitHub.
//
// GitHub draws math with MathJax in two forms: inline, between dollar signs (`$x_i$`, or the
// code-span form $`x_i`$ when the formula holds characters Markdown would read), and displayed,
// in a fenced block whose info string is `math`. Markdown is applied to a plain `$...$` before
// MathJax sees it, so some TeX does not survive there; a ```math block and the $`...`$ form are
// read verbatim. math_problems(markdown) reads a file and returns one message per fault, each
// starting "line N: ":
//   - a `$` with no closing `$` in its paragraph; an opening `$` followed by a space, or a closing
//     one preceded by a space or followed by a digit (GitHub does not take those as delimiters:
//     a dollar sign in prose is written `\$`); `$$` anywhere (display math is a ```math block);
//     `\(` or `\[` in prose (LaTeX's delimiters, which GitHub shows as text);
//   - a fenced block that never closes (it would swallow the rest of the file);
//   - in any formula: braces `{` `}` that do not balance, `\left` without its `\right`,
//     `\begin{X}` without `\end{X}`, an empty formula; in a ```math block, a `$` (the block is
//     already math; a `$` there is shown raw);
//   - in a plain `$...$` only: a backslash before ASCII punctuation (`\{`, `\}`, `\\`, `\,`, `\|`,
//     which Markdown unescapes, so MathJax gets `{` and loses the brace), a `*` (emphasis), a `_`
//     after a character that is not a letter or digit (`}_t`, `)_i`, `'_t`: GitHub's Markdown can
//     pair two of those into emphasis and eat them), a `<` before a letter, `/` or `!` (an HTML
//     tag), and on a table row a `|` (a cell boundary). Each names the way out: the $`...`$ form,
//     or `\lbrace`, `\ast`, `\lt`, `\vert`.
// Code spans, fenced code, indented code blocks and HTML comments are not prose and are skipped.
//
// displayed_ascii_math(markdown) lists (as "line N: ...") the indented code blocks of a file:
// before GitHub rendered math, they were how heed's chapters displayed equations in monospace,
// and a chapter whose equations have been converted keeps none.
#pragma once

#include <string>
#include <vector>

std::vector<std::string> math_problems(const std::string& markdown);
std::vector<std::string> displayed_ascii_math(const std::string& markdown);
