// What the chapters' programs share, written once: reading their arguments ([--quick] [--out DIR]
// [SECTION ...]), and the small vector helpers of a step worked out by hand (chapters 07, 08).
// Header-only: a chapter is still one main.cpp, built alone (make tutorial-NN).
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace heed::chapter {

// A chapter program's arguments: --quick, --out DIR, and the sections asked for (all when none is).
struct Args {
  bool quick = false;
  std::string dir;  // --out's value; empty when not given
  std::vector<std::string> sections;
  bool wants(const std::string& section) const {
    return sections.empty() || std::find(sections.begin(), sections.end(), section) != sections.end();
  }
};

// Reads argv against the chapter's `sections`. An argument that is none of them: one line on
// stderr, "PROGRAM: unknown argument 'X' (USAGE)", and false (the program exits with status 2).
inline bool read_args(int argc, char** argv, const std::vector<std::string>& sections, const char* program,
                      const char* usage, Args& out) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      out.quick = true;
    } else if (a == "--out" && i + 1 < argc) {
      out.dir = argv[++i];
    } else if (std::find(sections.begin(), sections.end(), a) != sections.end()) {
      out.sections.push_back(a);
    } else {
      std::fprintf(stderr, "%s: unknown argument '%s' (%s)\n", program, a.c_str(), usage);
      return false;
    }
  }
  return true;
}

using Vec = std::vector<real>;

// "label                          ( 0.123, -0.456)": a vector as the worked steps print it.
inline void print_vec(const char* label, const Vec& x) {
  std::printf("%-30s (", label);
  for (size_t i = 0; i < x.size(); ++i) std::printf("%s%6.3f", i ? ", " : "", x[i]);
  std::printf(")\n");
}

// Row r of a tensor viewed as (rows, n).
inline Vec row(const Tensor& t, int64_t r, int64_t n) { return Vec(t.data() + r * n, t.data() + (r + 1) * n); }

// W x for W (out, in), row-major: what Linear computes without a bias.
inline Vec matvec(const Tensor& W, const Vec& x) {
  const int64_t out = W.shape()[0], in = W.shape()[1];
  Vec y(out, 0);
  for (int64_t o = 0; o < out; ++o)
    for (int64_t k = 0; k < in; ++k) y[o] += W[o * in + k] * x[k];
  return y;
}

}  // namespace heed::chapter
