// Answers that hand the exercise to the library: each calls its exercise's reference (or another
// function on its forbidden list, exercises/check/NN_check.cpp). Compiled with the exercises' flags
// and never linked: the self-test reads this object and requires every function here refused.
// They are in namespace heed::student, as a student's answers are.
// Chapter 09's exercises have no library function that does them: these answers call the
// solutions' (a copy from an earlier class, say), which every exercise may not call.
#include "exercises/09_attention_matrices/exercises.h"

namespace heed::solution {
std::vector<int64_t> mirror_offsets(const Tensor& weights, int64_t L);
Tensor row_entropy(const Tensor& weights);
}  // namespace heed::solution

namespace heed::student {

std::vector<int64_t> mirror_offsets(const Tensor& weights, int64_t L) { return solution::mirror_offsets(weights, L); }
Tensor row_entropy(const Tensor& weights) { return solution::row_entropy(weights); }

}  // namespace heed::student
