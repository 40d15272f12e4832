// An attention matrix as the command line prints it in --json (rows of weights), for the tests
// that compare what heed predict, the film and the model's own per-head weights show: read one
// from JSON, and the largest difference between two.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "io/json.h"
#include "tensor/real.h"

namespace heed::test {

using Matrix = std::vector<std::vector<real>>;

// [[w, ...], ...] as rows.
inline Matrix matrix(const Json& j) {
  Matrix m;
  for (const Json& row : j.as_array()) {
    m.emplace_back();
    for (const Json& w : row.as_array()) m.back().push_back(w.as_real());
  }
  return m;
}

// The largest difference between two matrices of the same shape (infinity if the shapes differ).
inline real max_diff(const Matrix& a, const Matrix& b) {
  if (a.size() != b.size()) return INFINITY;
  real d = 0;
  for (size_t r = 0; r < a.size(); ++r) {
    if (a[r].size() != b[r].size()) return INFINITY;
    for (size_t c = 0; c < a[r].size(); ++c) d = std::max(d, std::abs(a[r][c] - b[r][c]));
  }
  return d;
}

}  // namespace heed::test
