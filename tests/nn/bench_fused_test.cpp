// Timings of the fused ops against the composed ones, at configurations S and M (docs/models.md).
// Skipped by default; run with: build/tests -ts=bench_fused --no-skip
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>

#include "autograd/functions.h"
#include "nn/attention.h"
#include "nn/rnn_cell.h"
#include "tensor/gemm.h"
#include "tensor/random.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

struct Config {
  const char* name;
  int64_t B, E, H, S;
};
constexpr Config kConfigs[] = {{"S", 32, 32, 64, 10}, {"M", 64, 64, 256, 30}};

struct Timing {
  real a, b;  // median milliseconds of each
};

// Runs a and b alternately `reps` times after one warm-up each, and returns each one's median
// wall time: alternating keeps the ratio honest on a machine whose load drifts.
Timing compare_ms(int reps, const std::function<void()>& a, const std::function<void()>& b) {
  auto time = [](const std::function<void()>& f) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<real, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  a();
  b();
  std::vector<real> ta, tb;
  for (int i = 0; i < reps; ++i) {
    ta.push_back(time(a));
    tb.push_back(time(b));
  }
  std::sort(ta.begin(), ta.end());
  std::sort(tb.begin(), tb.end());
  return {ta[ta.size() / 2], tb[tb.size() / 2]};
}

// The encoder's loop (nn/encoder.cpp) over full-length sequences, the step fused (gru_step, as
// GRUCell::step runs it) or composed, each on the same copied slice of the projection, then
// backward from a fixed projection of the states.
void encode(const GRUCell& cell, const Var& inputs, const Tensor& mask, const Tensor& seed, bool fused) {
  const int64_t B = inputs.shape()[0], S = inputs.shape()[1];
  Var projected = cell.input_projection(inputs);  // (B, S, 3H)
  const int64_t G = projected.shape()[2];
  State s = cell.zero_state(B);
  Var zero(Tensor::zeros({B, cell.hidden_size()}));
  std::vector<Var> out(S);
  for (int64_t t = 0; t < S; ++t) {
    Tensor m = slice(mask, 1, t, t + 1);
    Var xp = reshape(slice(projected, 1, t, t + 1), {B, G});
    State next = fused ? State{gru_step(xp, s.h, cell.weight_hh, cell.bias_hh), Var()} : cell.step_composed(xp, s);
    s.h = where(m, next.h, s.h);
    out[t] = where(m, s.h, zero);
  }
  sum(stack(out, 1) * Var(seed)).backward();
}

}  // namespace

TEST_SUITE("bench_fused") {
  TEST_CASE("fused vs composed: GRU encoder unroll + backward, additive attention step" * doctest::skip()) {
    for (const Config& c : kConfigs) {
      Generator gen(1);
      const int reps = c.name[0] == 'S' ? 41 : 9;
      GRUCell cell(c.E, c.H, gen);
      Var inputs(Tensor::normal({c.B, c.S, c.E}, 0, 1, gen), true);
      Tensor mask = Tensor::ones({c.B, c.S}), seed = Tensor::normal({c.B, c.S, c.H}, 0, 1, gen);
      // At these sizes too, both give the same gradient (normwise to 1e-12).
      encode(cell, inputs, mask, seed, false);
      Tensor want = inputs.grad();
      inputs.zero_grad();
      encode(cell, inputs, mask, seed, true);
      real diff = 0, scale = 0;
      for (int64_t k = 0; k < want.numel(); ++k)
        diff = std::max(diff, std::fabs(inputs.grad()[k] - want[k])), scale = std::max(scale, std::fabs(want[k]));
      CHECK(diff <= test::tol(1e-12) * scale);
      Timing enc = compare_ms(reps, [&] { encode(cell, inputs, mask, seed, false); },
                              [&] { encode(cell, inputs, mask, seed, true); });
      // The matrix products alone: h W_hh^T forward, dh and dW_hh backward, per step.
      const int64_t B = c.B, H = c.H;
      Tensor h = Tensor::normal({B, H}, 0, 1, gen), dh = h, w = cell.weight_hh.value(), dw = w;
      Tensor hp = Tensor::zeros({B, 3 * H});
      Timing products = compare_ms(reps, [] {}, [&] {
        for (int64_t t = 0; t < c.S; ++t) {
          gemm(false, true, B, 3 * H, H, h.data(), w.data(), hp.data(), false);
          gemm(false, false, B, H, 3 * H, hp.data(), w.data(), dh.data(), false);
          gemm(true, false, 3 * H, H, B, hp.data(), h.data(), dw.data(), true);
        }
      });
      std::printf("config %s  GRU encoder (B %lld, E %lld, H %lld, S %lld), forward + backward:\n", c.name,
                  static_cast<long long>(c.B), static_cast<long long>(c.E), static_cast<long long>(c.H),
                  static_cast<long long>(c.S));
      std::printf("  composed %8.3f ms   fused %8.3f ms   speedup %.2fx   (W_hh products alone %.3f ms)\n",
                  enc.a, enc.b, enc.a / enc.b, products.b);

      AdditiveScore att(c.H, c.H, c.H, gen);
      Var keys(Tensor::normal({c.B, c.S, c.H}, 0, 1, gen), true), query(Tensor::normal({c.B, c.H}, 0, 1, gen), true);
      // W1 h_i is computed once per batch, outside the decoder's steps: here a leaf.
      Var prepared(att.prepare(keys).value(), true);
      Var scores(Tensor::normal({c.B, c.S}, 0, 1, gen), true);
      Tensor seed_e = Tensor::normal({c.B, c.S}, 0, 1, gen), seed_c = Tensor::normal({c.B, c.H}, 0, 1, gen);
      auto score = [&](bool fused) {
        Var q = att.W2.forward(query);
        return fused ? additive_score(prepared, q, att.v.weight) : additive_score_composed(prepared, q, att.v.weight);
      };
      // attend as it was composed: the masked softmax, then a batched (1, S) x (S, H) product.
      auto context = [&](const Var& e, bool fused) {
        if (fused) return attend(e, keys, mask).context;
        Var w = masked_softmax(e, mask);
        return reshape(matmul(reshape(w, {c.B, 1, c.S}), keys), {c.B, c.H});
      };
      Timing sc = compare_ms(reps * 5, [&] { sum(score(false) * Var(seed_e)).backward(); },
                             [&] { sum(score(true) * Var(seed_e)).backward(); });
      Timing at = compare_ms(reps * 5, [&] { sum(context(scores, false) * Var(seed_c)).backward(); },
                             [&] { sum(context(scores, true) * Var(seed_c)).backward(); });
      Timing both = compare_ms(reps * 5, [&] { sum(context(score(false), false) * Var(seed_c)).backward(); },
                               [&] { sum(context(score(true), true) * Var(seed_c)).backward(); });
      std::printf("config %s  additive attention, one decoder step (B %lld, S %lld, A = H %lld), forward + backward:\n",
                  c.name, static_cast<long long>(c.B), static_cast<long long>(c.S), static_cast<long long>(c.H));
      std::printf("  score:          composed %7.3f ms   fused %7.3f ms   speedup %.2fx\n", sc.a, sc.b, sc.a / sc.b);
      std::printf("  attend:         composed %7.3f ms   fused %7.3f ms   speedup %.2fx\n", at.a, at.b, at.a / at.b);
      std::printf("  score + attend: composed %7.3f ms   fused %7.3f ms   speedup %.2fx\n", both.a, both.b,
                  both.a / both.b);
    }
  }
}
