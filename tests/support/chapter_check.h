// The chapter check: a chapter's README.md may only show code and output that are real.
// Inside doctest assertions, check_chapter(dir) verifies, for dir like "tutorials/01_tensors":
//   - a fenced block right after a line `<!-- output: ARGS -->` equals, byte for byte, the stdout of
//     `BUILD/tutorial-NN ARGS` (NN from the dir name; ARGS may be empty), and the program exits 0;
//     several blocks under the same marker are one output shown in pieces: joined in order, they
//     must equal it;
//   - a fenced block right after `<!-- code: PATH -->` appears as contiguous lines of PATH;
//   - every decimal number of the prose is one a marked block shows (tests/support/prose_numbers.h).
// Blocks marked `<!-- output-full: ARGS -->` (long runs) are left to check_chapter_full(dir), which
// the skipped suite "chapters_full" runs: build/tests -ts=chapters_full --no-skip.
// REQUIRES: the working directory is the repository root (where make test runs).
#pragma once

#include <string>
#include <vector>

// The folder holding the programs under test: $HEED_BUILD if set (make sanitize sets it to
// build/sanitize), else "build".
std::string build_dir();

// Whether a make that the tests run (with BUILD=build_dir()) builds as that folder was built:
// in build/ (make test's), or where HEED_MAKES is set and the compiler is in the environment's CXX
// (make test-libcxx, test-gcc11). The tests of your own heed run make yours; elsewhere (make
// sanitize's flags, make test-clang) they are skipped.
bool make_builds_here();

// What runs those programs: "" (they run directly), or $HEED_RUN and a space when set, e.g.
// HEED_RUN=qemu-aarch64 for programs of another architecture (make test-aarch64 sets it).
std::string runner();

void check_chapter(const std::string& dir);
void check_chapter_full(const std::string& dir);

// Whether chapter nn ("07") is this process's to check: make check-chapters runs two processes at
// once, HEED_CHAPTERS=11,13 taking only those chapters and HEED_CHAPTERS_EXCEPT=11,13 all the others,
// so that the two together take every chapter once. Neither set: every chapter is.
bool chapter_chosen(const std::string& nn);

// Figures: `BUILD/tutorial-NN figures DIR` (for chapter 09, `untrained --out DIR`) draws a
// chapter's quick figures into DIR, printing
// "wrote DIR/NAME.svg" for each; draw_figures returns the names. check_figures checks that each is
// committed next to the chapter, byte for byte (figures drawn by a long run are checked by the
// suite "chapters_full" against build/chNN/ instead). chapters_with_quick_figures lists the
// chapters whose programs draw figures so.
std::vector<std::string> draw_figures(const std::string& dir, const std::string& into);
void check_figures(const std::string& dir);
const std::vector<std::string>& chapters_with_quick_figures();
