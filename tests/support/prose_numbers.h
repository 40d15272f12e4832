// Numbers in a chapter's prose must be numbers its checked blocks show.
// unquoted_numbers(lines) reads a README (one string per line) and returns one message per
// decimal number of the prose (outside fenced blocks, or in a ```math block, which is prose: "0.990", "8.7e-2", "3e-3"; integers, dotted
// section numbers like 3.3.1 or A.2.2, labels with a leading zero like exercise 01.2, and numbers
// after "section", "Eq.", "App.", "Figure", "Table" or "§" are not read) that no marked block shows, where a
// block shows a number if one of its numbers rounds to it: prose "15.8" stands for any value in
// [15.75, 15.85], so it is shown by "15.79" and not by "16.0". Marked blocks are those under
// `<!-- output: -->`, `<!-- output-full: -->` and `<!-- code: -->`, which the chapter check holds
// to the program and the sources. A number that is not output (arithmetic done in the text, a
// paper's figure, a timing) is named, spelt as in the prose, in a comment
// `<!-- not-output: NUMBERS, and why -->`; that is the only way past the check.
#pragma once

#include <string>
#include <vector>

std::vector<std::string> unquoted_numbers(const std::vector<std::string>& lines);
