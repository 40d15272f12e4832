// Chapter 01's checks: each kernel against the library's own (tensor/ops.h) on random inputs of
// several shapes, including sizes of 1 and larger ones drawn per seed (up to 99: past the widths a
// loop may be unrolled or blocked by), and softmax on logits large enough to overflow exp.
#include "exercises/01_tensors/exercises.h"
#include "exercises/check/check.h"
#include "exercises/check/01_check.h"

namespace heed::check {

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
const ForbiddenCalls kForbidden01 = {
    {"broadcast_add", {"heed::add", "heed::add_inplace", "heed::operator+"}},
    {"matmul_loops", {"heed::matmul", "heed::matmul_nt", "heed::matmul_tn"}},
    {"softmax_rows", {"heed::softmax", "heed::log_softmax", "heed::masked_softmax", "heed::softmax_row"}},
};

std::vector<Exercise> exercises_01(const Impl01& impl) {
  return {
      {"broadcast_add",
       [impl] {
         Generator gen(seed(101));
         const std::vector<std::pair<Shape, Shape>> cases = {
             {{3, 4}, {3, 4}}, {{3, 4}, {1, 4}}, {{3, 4}, {3, 1}}, {{3, 1}, {1, 4}}, {{1, 4}, {3, 1}}, {{1, 1}, {2, 5}}};
         auto check = [&](const Shape& sa, const Shape& sb) {
           Tensor a = random(sa, gen), b = random(sb, gen);
           expect_close(impl.broadcast_add(a, b), add(a, b), "broadcast_add(a, b)",
                        describe("a", a) + "\n  " + describe("b", b));
         };
         for (const auto& [sa, sb] : cases) check(sa, sb);
         // Larger ones, drawn per seed (check.h, odd_size).
         const int64_t R = odd_size(gen, 33, 99), C = odd_size(gen, 33, 99);
         check({R, C}, {R, C});
         check({R, C}, {1, C});
         check({R, 1}, {1, C});
       }},
      {"matmul_loops",
       [impl] {
         Generator gen(seed(102));
         const std::vector<std::array<int64_t, 3>> cases = {{2, 3, 4}, {1, 5, 1}, {4, 1, 3}, {3, 3, 3}, {7, 6, 5}};
         auto check = [&](int64_t M, int64_t K, int64_t N) {
           Tensor a = random({M, K}, gen), b = random({K, N}, gen);
           expect_close(impl.matmul_loops(a, b), matmul(a, b), "matmul_loops(a, b)",
                        describe("a", a) + "\n  " + describe("b", b), 1e-12, 1e-12);
         };
         for (auto [M, K, N] : cases) check(M, K, N);
         // Larger ones, drawn per seed: M, K and N past the widths a loop may be unrolled or
         // blocked by, up to 99 (heed's own products block by 6, 8, 16, 24, 32 and 96).
         check(odd_size(gen, 17, 63), odd_size(gen, 17, 63), odd_size(gen, 17, 63));
         check(odd_size(gen, 65, 99), odd_size(gen, 65, 99), odd_size(gen, 65, 99));
       }},
      {"softmax_rows",
       [impl] {
         Generator gen(seed(103));
         auto check = [&](const Shape& s) {
           Tensor x = random(s, gen, -3, 3);
           expect_close(impl.softmax_rows(x), softmax(x, 1), "softmax_rows(x)", describe("x", x), 1e-12, 1e-15);
         };
         for (Shape s : {Shape{2, 3}, Shape{1, 5}, Shape{4, 1}, Shape{3, 7}}) check(s);
         check({odd_size(gen, 17, 63), odd_size(gen, 65, 99)});  // a larger one, drawn per seed
         // Logits far beyond exp's range (exp(710) is inf): the max shift keeps them finite.
         Tensor big({2, 3}, {1000, 999, 998, -1000, -1001, -1005});
         expect_close(impl.softmax_rows(big), softmax(big, 1), "softmax_rows(x) on large logits", describe("x", big),
                      1e-12, 1e-15);
       }},
  };
}

static Register reg({"01", "exercises/01_tensors", "student",
                         [] { return exercises_01(HEED_IMPL_01(heed::student)); }, kForbidden01});

}  // namespace heed::check
