// Chapter 09's checks: mirror_offsets on matrices whose answers are known by construction (a
// perfect anti-diagonal: all 0; the peak one position right; ties; padding columns and rows
// past L); row_entropy against values computed
// by hand (a one-hot row: 0; a uniform row over n: log n), rows holding zeros, and random rows.
#include <cmath>

#include "exercises/09_attention_matrices/exercises.h"
#include "exercises/check/09_check.h"

namespace heed::check {

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
// No library function computes these; only kAlwaysForbidden applies (the checker, the solutions).
const ForbiddenCalls kForbidden09 = {
    {"mirror_offsets", {}},
    {"row_entropy", {}},
};

namespace {

std::string ids_str(const std::vector<int64_t>& ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? " " : "") + std::to_string(ids[i]);
  return s + "]";
}

}  // namespace

std::vector<Exercise> exercises_09(const Impl09& impl) {
  return {
      {"mirror_offsets",
       [impl] {
         struct Case {
           Tensor w;
           int64_t L;
           std::vector<int64_t> expected;
         };
         const std::vector<Case> cases = {
             // The anti-diagonal of a perfect reversal (L 3, S 3), then an EOS row.
             {Tensor({4, 3}, {0.1, 0.1, 0.8, 0.1, 0.8, 0.1, 0.8, 0.1, 0.1, 0.6, 0.3, 0.1}), 3, {0, 0, 0}},
             // Peaks one to the right where they can be; a padded column (S 4, L 3) never wins.
             {Tensor({3, 4}, {0.2, 0.3, 0.5, 0, 0.1, 0.2, 0.7, 0, 0.2, 0.7, 0.1, 0}), 3, {0, 1, 1}},
             // A tie between positions 0 and 1: the first counts.
             {Tensor({2, 2}, {0.5, 0.5, 0.5, 0.5}), 2, {-1, 0}},
             // One symbol.
             {Tensor({2, 1}, {1, 1}), 1, {0}},
         };
         for (const Case& c : cases) {
           auto got = impl.mirror_offsets(c.w, c.L);
           if (got != c.expected)
             wrong("mirror_offsets: expected " + ids_str(c.expected) + ", got " + ids_str(got) + "\n  input: " +
                   describe("weights", c.w) + ", L " + std::to_string(c.L));
         }
       }},
      {"row_entropy",
       [impl] {
         Tensor w({4, 4}, {1, 0, 0, 0, 0.25, 0.25, 0.25, 0.25, 0.5, 0.5, 0, 0, 0.7, 0.2, 0.1, 0});
         Tensor expected({4}, {0, std::log(4.0), std::log(2.0),
                               -(0.7 * std::log(0.7) + 0.2 * std::log(0.2) + 0.1 * std::log(0.1))});
         expect_close(impl.row_entropy(w), expected, "row_entropy (nats)", describe("weights", w), 1e-12, 1e-15);
         Generator gen(seed(901));
         Tensor r = softmax(random({3, 5}, gen, -2, 2), 1);
         Tensor e = Tensor::zeros({3});
         for (int64_t t = 0; t < 3; ++t)
           for (int64_t i = 0; i < 5; ++i) e[t] -= r[t * 5 + i] * std::log(r[t * 5 + i]);
         expect_close(impl.row_entropy(r), e, "row_entropy (nats)", describe("weights", r), 1e-12, 1e-15);
       }},
  };
}

static Register reg({"09", "exercises/09_attention_matrices", "student",
                     [] { return exercises_09(HEED_IMPL_09(heed::student)); }, kForbidden09});

}  // namespace heed::check
