#include "tests/support/model_checks.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "autograd/functions.h"
#include "models/tasks/vocab.h"
#include "nn/loss.h"
#include "tests/support/precision.h"

namespace heed::test {

void check_padding_invariance(Model& model, const Example& ex, const Example& longer) {
  model.zero_grad();
  Batch alone = make_batch({ex});
  Var la = model.loss(alone);
  la.backward();
  std::vector<Tensor> ga;
  for (Var& p : model.parameters()) ga.push_back(p.grad());
  model.zero_grad();
  // The same sequence padded next to a longer one: compare its own rows of the logits, and the
  // gradient of the loss restricted to its tokens.
  Batch both = make_batch({longer, ex});
  REQUIRE(both.tgt_len > alone.tgt_len);  // ex's row holds padding
  Var logits = model.forward(both);       // (2, T, V)
  const int64_t V = logits.shape()[2];
  Var mine = slice(slice(logits, 0, 1, 2), 1, 0, alone.tgt_len);
  CHECK(equal(mine.value(), model.forward(alone).value()));
  std::vector<int64_t> targets(both.tgt_out.begin() + both.tgt_len, both.tgt_out.begin() + both.tgt_len + alone.tgt_len);
  Var lb = cross_entropy(reshape(mine, {-1, V}), targets, Vocab::kPad);
  lb.backward();
  CHECK(lb.item() == la.item());
  auto params = model.parameters();
  auto named = model.named_parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor diff = sub(params[i].grad(), ga[i]);
    INFO(named[i].first << ": max difference " << max(sqrt(mul(diff, diff))).item());
    CHECK(equal(params[i].grad(), ga[i]));
  }
  model.zero_grad();
}

std::unique_ptr<StepState> check_steps_match_forward(const Model& model, const Batch& batch,
                                                     const std::function<void(int64_t, const StepOutput&)>& each) {
  NoGradGuard no_grad;
  Tensor full = model.forward(batch).value();  // (B, T, V)
  const int64_t B = batch.batch, T = batch.tgt_len, V = full.shape()[2];
  std::unique_ptr<StepState> st = model.start_decoding(batch);
  for (int64_t t = 0; t < T; ++t) {
    std::vector<int64_t> prev(static_cast<size_t>(B));
    for (int64_t b = 0; b < B; ++b) prev[b] = batch.tgt_in[b * T + t];
    StepOutput o = model.decode_step(prev, *st);
    Tensor logits = model.logits(o.out).value();  // (B, V)
    for (int64_t b = 0; b < B; ++b) {
      if (t >= batch.tgt_lengths[b]) continue;  // the padding steps of a shorter sequence
      for (int64_t k = 0; k < V; ++k) CHECK(std::fabs(logits[b * V + k] - full[(b * T + t) * V + k]) < tol(1e-12));
    }
    if (each) each(t, o);
  }
  return st;
}

}  // namespace heed::test
