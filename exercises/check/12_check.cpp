// Chapter 12's checks: cosine_scores against the library's CosineScore (beta 1.7) with a zero key
// (a padded state: score 0, not NaN) and a batch of 1, and a gradient check; causal_attention
// against the library's scaled_dot_product_attention with a causal mask (nn/self_attention.h),
// on N 2 and N 1, and a gradient check; split_heads against the reshape-and-transpose the
// library's MultiHeadAttention uses, written out as loops, for 1, 2 and 4 heads. Each also on
// larger inputs drawn per seed (sequences past 12 positions, sizes past 32).
#include <array>
#include <cmath>
#include <string>
#include <utility>

#include "exercises/12_attention_zoo/exercises.h"
#include "exercises/check/12_check.h"
#include "nn/attention.h"
#include "nn/self_attention.h"

namespace heed::check {

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
const ForbiddenCalls kForbidden12 = {
    {"cosine_scores", {"heed::CosineScore"}},
    {"causal_attention", {"heed::scaled_dot_product_attention", "heed::multi_head_attention", "heed::SelfAttention", "heed::MultiHeadAttention", "heed::TransformerAttention"}},
    {"split_heads", {"heed::split_heads", "heed::multi_head_attention", "heed::scaled_dot_product_attention", "heed::MultiHeadAttention", "heed::TransformerAttention"}},
};

std::vector<Exercise> exercises_12(const Impl12& impl) {
  return {
      {"cosine_scores",
       [impl] {
         Generator gen(seed(1201));
         CosineScore ref;
         ref.beta.value()[0] = 1.7;
         for (auto [B, S, D] : {std::array<int64_t, 3>{2, 4, 3}, {1, 1, 2}}) {
           Tensor s = random({B, D}, gen, -2, 2), h = random({B, S, D}, gen, -2, 2);
           if (S > 1)
             for (int64_t f = 0; f < D; ++f) h[(S - 1) * D + f] = 0;  // a padded (zero) state at row 0's last position
           const std::string in = describe("s", s) + "\n  " + describe("h", h) + "\n  beta 1.7";
           expect_close(impl.cosine_scores(Var(s), Var(h), ref.beta).value(), ref.score(Var(s), ref.prepare(Var(h))).value(),
                        "cosine_scores", in, 1e-10, 1e-12);
         }
         Tensor s = random({2, 3}, gen, -2, 2), h = random({2, 3, 3}, gen, -2, 2);
         expect_gradcheck("cosine_scores", [&](const std::vector<Var>& v) { return impl.cosine_scores(v[0], v[1], v[2]); },
                          {s, h, Tensor({1}, {1.7})}, describe("s", s) + "\n  " + describe("h", h) + "\n  beta 1.7");
         // A larger batch, drawn per seed (check.h, odd_size): sources past 12 positions, D past 32,
         // values and gradients against the library's CosineScore.
         {
           const int64_t B = odd_size(gen, 3, 9), S = odd_size(gen, 13, 49), D = odd_size(gen, 33, 99);
           Tensor sl = random({B, D}, gen, -2, 2), hl = random({B, S, D}, gen, -2, 2);
           CosineScore large;
           expect_same_as("cosine_scores", [&](const std::vector<Var>& v) { return impl.cosine_scores(v[0], v[1], v[2]); },
                          [&](const std::vector<Var>& v) {
                            large.beta = v[2];
                            return large.score(v[0], large.prepare(v[1]));
                          },
                          {sl, hl, Tensor({1}, {1.7})}, describe("s", sl) + ", " + describe("h", hl) + ", beta 1.7", gen);
         }
         // In a model the zero state is padding: the softmax masks it out and nothing should flow
         // back to it, but 0 times an infinite derivative is NaN, and a NaN anywhere in a gradient
         // spoils every weight Adam updates with it. The derivative of sqrt at 0 is infinite: the
         // floor belongs inside the square root.
         Tensor hz = random({2, 3, 3}, gen, -2, 2), sz = random({2, 3}, gen, -2, 2);
         for (int64_t f = 0; f < 3; ++f) hz[2 * 3 + f] = 0;  // row 0's last position: padding
         Tensor mask = Tensor::ones({2, 3});
         mask[2] = 0;
         Var sv(sz, true), hv(hz, true), bv(Tensor({1}, {1.7}), true);
         Var weights = masked_softmax(impl.cosine_scores(sv, hv, bv), mask);
         sum(weights * Var(random({2, 3}, gen, -1, 1))).backward();
         const std::string in = describe("s", sz) + "\n  " + describe("h", hz) + "\n  beta 1.7, position 2 of row 0 masked";
         for (auto [name, v] : {std::pair<const char*, Var*>{"s", &sv}, {"h", &hv}, {"beta", &bv}})
           for (int64_t i = 0; i < v->grad().numel(); ++i)
             if (!std::isfinite(v->grad()[i]))
               wrong("the gradient with respect to " + std::string(name) + " through masked_softmax(cosine_scores(s, h, beta)) is " +
                     std::to_string(v->grad()[i]) + " at element " + std::to_string(i) +
                     ", not finite: is the floor 1e-16 inside the square root?\n  " + in);
       }},
      {"causal_attention",
       [impl] {
         Generator gen(seed(1202));
         for (auto [N, S, dk, dv] : {std::array<int64_t, 4>{2, 4, 3, 2}, {1, 3, 2, 2}, {1, 1, 2, 3}}) {
           Tensor q = random({N, S, dk}, gen, -2, 2), k = random({N, S, dk}, gen, -2, 2), v = random({N, S, dv}, gen, -2, 2);
           const std::string in = describe("q", q) + "\n  " + describe("k", k) + "\n  " + describe("v", v);
           Tensor mask = self_attention_mask(Tensor::ones({N, S}), true);
           expect_close(impl.causal_attention(Var(q), Var(k), Var(v)).value(),
                        scaled_dot_product_attention(Var(q), Var(k), Var(v), mask).output.value(), "causal_attention", in,
                        1e-10, 1e-12);
         }
         Tensor q = random({2, 3, 2}, gen), k = random({2, 3, 2}, gen), v = random({2, 3, 2}, gen);
         expect_gradcheck("causal_attention", [&](const std::vector<Var>& x) { return impl.causal_attention(x[0], x[1], x[2]); },
                          {q, k, v}, "inputs 0..2: q, k, v, each (2, 3, 2)");
         // A larger one, drawn per seed (check.h, odd_size): sequences past 12 positions, d_k past 32.
         const int64_t N = odd_size(gen, 3, 9), S = odd_size(gen, 13, 49), dk = odd_size(gen, 33, 71), dv = odd_size(gen, 17, 63);
         Tensor ql = random({N, S, dk}, gen, -2, 2), kl = random({N, S, dk}, gen, -2, 2), vl = random({N, S, dv}, gen, -2, 2);
         const Tensor mask = self_attention_mask(Tensor::ones({N, S}), true);
         expect_same_as("causal_attention", [&](const std::vector<Var>& x) { return impl.causal_attention(x[0], x[1], x[2]); },
                        [&](const std::vector<Var>& x) { return scaled_dot_product_attention(x[0], x[1], x[2], mask).output; },
                        {ql, kl, vl}, describe("q", ql) + ", " + describe("k", kl) + ", " + describe("v", vl), gen);
       }},
      {"split_heads",
       [impl] {
         Generator gen(seed(1203));
         std::vector<std::array<int64_t, 4>> cases = {{2, 3, 4, 2}, {1, 2, 4, 4}, {2, 2, 3, 1}, {1, 3, 8, 2}};
         // and a larger one, drawn per seed (check.h, odd_size): past 12 positions, heads of an odd width
         const int64_t heads = gen.randint(2, 8);
         cases.push_back({odd_size(gen, 3, 9), odd_size(gen, 13, 49), heads * odd_size(gen, 5, 17), heads});
         for (auto [B, S, D, h] : cases) {
           Tensor x = random({B, S, D}, gen);
           // (B, S, D) -> (B, S, h, d) -> (B, h, S, d): what MultiHeadAttention does by reshape and transpose.
           const int64_t d = D / h;
           Tensor expected = Tensor::zeros({B, h, S, d});
           for (int64_t b = 0; b < B; ++b)
             for (int64_t t = 0; t < S; ++t)
               for (int64_t j = 0; j < h; ++j)
                 for (int64_t f = 0; f < d; ++f) expected.at({b, j, t, f}) = x.at({b, t, j * d + f});
           expect_close(impl.split_heads(x, h), expected, "split_heads(x, " + std::to_string(h) + ")", describe("x", x), 0, 0);
         }
       }},
  };
}

static Register reg({"12", "exercises/12_attention_zoo", "student", [] { return exercises_12(HEED_IMPL_12(heed::student)); }, kForbidden12});

}  // namespace heed::check
