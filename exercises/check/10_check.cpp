// Chapter 10's checks: clip_by_global_norm against the library's clip_grad_norm (nn/optim.h) on
// three gradients whose joint norm is above the limit, below it, and far above it; the returned
// norm too. gradient_to_source against the library's encoder_gradient_norms (models/
// gradient_path.h) for a plain and an additive model, at the first and the last output step.
#include "exercises/10_long_sequences/exercises.h"
#include "exercises/check/10_check.h"
#include "models/analysis/gradient_path.h"
#include "nn/optim.h"

namespace heed::check {

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
const ForbiddenCalls kForbidden10 = {
    {"clip_by_global_norm", {"heed::clip_grad_norm"}},
    {"gradient_to_source", {"heed::encoder_gradient_norms"}},
};

std::vector<Exercise> exercises_10(const Impl10& impl) {
  return {
      {"clip_by_global_norm",
       [impl] {
         Generator gen(seed(1001));
         for (real scale : {1.0, 0.1, 50.0}) {
           std::vector<Tensor> grads = {mul(random({2, 3}, gen), scale), mul(random({4}, gen), scale),
                                        mul(random({1, 1}, gen), scale)};
           std::vector<Var> params;
           for (const Tensor& g : grads) {
             Var p(Tensor::zeros(g.shape()), true);
             sum(p * Var(g)).backward();  // p's gradient is g
             params.push_back(p);
           }
           std::string in = "max_norm 1, gradients";
           for (const Tensor& g : grads) in += "\n  " + describe("g", g);
           const real expected_norm = clip_grad_norm(params, 1.0);
           const real norm = impl.clip_by_global_norm(grads, 1.0);
           expect_close(Tensor::scalar(norm), Tensor::scalar(expected_norm), "the returned norm", in, 1e-12, 1e-15);
           for (size_t i = 0; i < grads.size(); ++i)
             expect_close(grads[i], params[i].grad(), "gradient " + std::to_string(i) + " after clipping", in, 1e-12, 1e-15);
         }
       }},
      {"gradient_to_source",
       [impl] {
         ReverseTask task(10, 6, 6);
         for (const char* kind : {"plain", "additive"}) {
           ModelConfig c;
           c.model = kind;
           c.embed = 8;
           c.hidden = 12;
           Generator gen(seed(1002));
           Seq2Seq model(c, gen);
           Generator data(seed(1003));
           Batch batch = sample_batch(task, data, 1);
           for (int64_t t : {int64_t(0), batch.tgt_len - 1}) {
             std::vector<real> expected = encoder_gradient_norms(model, batch, t);
             model.zero_grad();
             std::vector<real> got = impl.gradient_to_source(model, batch, t);
             model.zero_grad();
             const std::string in = std::string("an untrained ") + kind + " model (E 8, H 12, seed " + std::to_string(seed(1002)) + "), a reverse source of 6, step t = " +
                                    std::to_string(t);
             expect_close(Tensor({static_cast<int64_t>(got.size())}, got),
                          Tensor({static_cast<int64_t>(expected.size())}, expected), "||d loss_t / d h_i|| by position i", in,
                          1e-9, 1e-14);
           }
         }
       }},
  };
}

static Register reg({"10", "exercises/10_long_sequences", "student",
                     [] { return exercises_10(HEED_IMPL_10(heed::student)); }, kForbidden10});

}  // namespace heed::check
