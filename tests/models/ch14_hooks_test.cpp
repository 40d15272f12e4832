// Hooks (nn/hooks.h): every model's forward through its named hook points. A cached run computes
// the logits of forward() bit for bit; its names are TransformerLens's; a hook that replaces an
// activation changes what follows exactly as the same change made another way (zeroing a head's
// z against zeroing its columns of W_O, patching the residual stream against the run patched
// from); a recurrent model's attention, replaced, mixes the states it is given. The cache's
// equality with PyTorch is tests/models/ch14_trace_torch_test.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "models/decoder_model.h"
#include "models/seq2seq.h"
#include "models/transformer.h"
#include "nn/hooks.h"
#include "tests/support/model_fixtures.h"
#include "tests/support/precision.h"  // tol: the same units in the last place in float

using namespace heed;
using heed::test::tiny_decoder;

namespace {

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::equal(a.data(), a.data() + a.numel(), b.data());
}

real largest_difference(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  real d = 0;
  for (int64_t i = 0; i < a.numel(); ++i) d = std::max<real>(d, std::fabs(a[i] - b[i]));
  return d;
}

}  // namespace

TEST_SUITE("ch14_hooks") {
  TEST_CASE("a cached run of every model kind gives forward()'s logits bit for bit, and caches them as 'logits'") {
    const std::vector<ModelConfig> configs = {tiny_decoder(true), tiny_decoder(false), tiny_decoder(false, true),
                                              test::tiny_transformer(), test::tiny_transformer(true, "learned"),
                                              test::tiny_rnn("additive"), test::tiny_rnn("general", "lstm"),
                                              test::tiny_rnn("plain")};
    for (const ModelConfig& c : configs) {
      CAPTURE(c.model);
      CAPTURE(c.norm_first);
      Generator gen(3);
      std::unique_ptr<Model> model = make_model(c, gen);
      Batch batch = test::two_sequences();
      const Tensor plain = model->forward(batch).value();
      Hooks hooks;
      hooks.cache_all();
      const Tensor hooked = model->run_with_hooks(batch, hooks).value();
      CHECK(same_bits(plain, hooked));
      CHECK(same_bits(hooks["logits"], plain));
      CHECK(hooks.names().back() == "logits");
      CHECK(hooks.names().size() == hooks.cached().size());
    }
  }

  TEST_CASE("names: TransformerLens's, in the order the model computes them, with heed's shapes") {
    Generator gen(3);
    DecoderModel model(tiny_decoder(false, true), gen);  // pre-norm: the norms have names too
    Hooks hooks;
    hooks.cache_all();
    Batch batch = test::two_sequences();  // B 2, T 5 (<bos> and up to 4 tokens)
    model.run_with_hooks(batch, hooks);
    const std::vector<std::string> block = {"hook_resid_pre", "ln1.hook_normalized", "attn.hook_q", "attn.hook_k",
                                            "attn.hook_v", "attn.hook_pattern", "attn.hook_z", "attn.hook_result", "hook_attn_out",
                                            "hook_resid_mid", "ln2.hook_normalized", "mlp.hook_pre", "mlp.hook_post",
                                            "hook_mlp_out", "hook_resid_post"};
    std::vector<std::string> want = {"hook_embed", "hook_pos_embed"};
    for (const char* layer : {"blocks.0.", "blocks.1."})
      for (const std::string& n : block) want.push_back(layer + n);
    want.push_back("ln_final.hook_normalized");
    want.push_back("logits");
    INFO("names: " << [&] { std::string all; for (const std::string& n : hooks.names()) all += n + " "; return all; }());
    CHECK(hooks.names() == want);
    const int64_t T = batch.tgt_len;
    CHECK(hooks["hook_pos_embed"].shape() == Shape{T, 4});
    CHECK(hooks["blocks.1.attn.hook_q"].shape() == Shape{2, 2, T, 2});
    CHECK(hooks["blocks.1.attn.hook_pattern"].shape() == Shape{2, 2, T, T});
    CHECK(hooks["blocks.0.mlp.hook_post"].shape() == Shape{2, T, 6});
    CHECK(hooks["logits"].shape() == Shape{2, T, 7});
    // Each head's pattern is a distribution over the positions it may read (causal: up to itself).
    const Tensor& p = hooks["blocks.0.attn.hook_pattern"];
    for (int64_t row = 0; row < 2 * 2 * T; ++row) {
      real total = 0;
      for (int64_t s = 0; s < T; ++s) total += p[row * T + s];
      CHECK(std::fabs(total - 1) < heed::test::tol(1e-12));
      for (int64_t s = row % T + 1; s < T; ++s) CHECK(p[row * T + s] == 0);  // no key after the query
    }
    CHECK_THROWS_WITH_AS(hooks["blocks.2.hook_resid_pre"], "hooks: no activation 'blocks.2.hook_resid_pre' was cached",
                         Error);
  }

  TEST_CASE("each head's results add up, with b_o, to the attention's output; replacing them by themselves keeps the logits") {
    Generator gen(5);
    DecoderModel model(tiny_decoder(true), gen);
    Batch batch = test::two_sequences();
    Hooks read;
    read.cache({"blocks.0.attn.hook_result", "blocks.0.hook_attn_out"});
    const Tensor plain = model.run_with_hooks(batch, read).value();
    Tensor sum = heed::sum(read["blocks.0.attn.hook_result"], 1) + model.self_attention(0).out_proj.bias.value();
    CHECK(largest_difference(sum, read["blocks.0.hook_attn_out"]) < heed::test::tol(1e-12));
    Hooks same;
    same.add("blocks.0.attn.hook_result", [](const Var& r) { return r; });
    CHECK(largest_difference(model.run_with_hooks(batch, same).value(), plain) < heed::test::tol(1e-12));
  }

  TEST_CASE("zero-ablating a head through hook_z equals zeroing its columns of W_O") {
    for (bool attention_only : {true, false}) {
      CAPTURE(attention_only);
      Generator gen(7);
      DecoderModel model(tiny_decoder(attention_only), gen);
      Batch batch = test::two_sequences();
      const Tensor before = model.forward(batch).value();
      Hooks ablate;
      ablate.add("blocks.1.attn.hook_z", [](const Var& z) {  // (B, h, T, d_k): head 0 of 2 to zero
        Tensor keep = Tensor::ones(z.shape());
        const int64_t B = z.shape()[0], per_head = z.shape()[2] * z.shape()[3];
        for (int64_t b = 0; b < B; ++b) std::fill_n(keep.data() + b * 2 * per_head, per_head, real(0));
        return z * Var(keep);
      });
      const Tensor hooked = model.run_with_hooks(batch, ablate).value();
      CHECK(largest_difference(hooked, before) > 1e-3);  // the head mattered
      Tensor& w = model.self_attention(1).out_proj.weight.value();  // (D, D): head 0's columns 0, 1
      for (int64_t r = 0; r < 4; ++r) w[r * 4] = w[r * 4 + 1] = 0;
      CHECK(largest_difference(hooked, model.forward(batch).value()) < heed::test::tol(1e-12));
    }
  }

  TEST_CASE("patching the residual stream after layer 0 with another run's makes the logits that run's, bit for bit") {
    for (const ModelConfig& c : {tiny_decoder(true), tiny_decoder(false), test::tiny_transformer()}) {
      CAPTURE(c.model);
      Generator gen(11);
      std::unique_ptr<Model> model = make_model(c, gen);
      Batch clean = make_batch({{{3, 4, 5}, {3, 4, 5, 6}}}), corrupt = make_batch({{{3, 4, 5}, {6, 5, 4, 3}}});
      Hooks cache;
      cache.cache({"blocks.0.hook_resid_post"});
      const Tensor corrupt_logits = model->run_with_hooks(corrupt, cache).value();
      const Tensor patch = cache["blocks.0.hook_resid_post"];
      Hooks patched;
      patched.add("blocks.0.hook_resid_post", [&](const Var&) { return Var(patch); });
      const Tensor got = model->run_with_hooks(clean, patched).value();
      CHECK(same_bits(got, corrupt_logits));
      CHECK(!same_bits(model->forward(clean).value(), corrupt_logits));
    }
  }

  TEST_CASE("a replaced attention pattern mixes the values again: uniform attention averages hook_v") {
    Generator gen(13);
    DecoderModel model(tiny_decoder(true), gen);
    Batch batch = make_batch({{{3}, {3, 4, 5}}});  // one row, T 4
    Hooks hooks;
    hooks.cache({"blocks.0.attn.hook_v", "blocks.0.attn.hook_z"});
    hooks.add("blocks.0.attn.hook_pattern", [](const Var& p) { return Var(Tensor::full(p.shape(), 0.25)); });
    model.run_with_hooks(batch, hooks);
    const Tensor& v = hooks["blocks.0.attn.hook_v"];  // (1, h, T, d_k)
    const Tensor& z = hooks["blocks.0.attn.hook_z"];
    for (int64_t head = 0; head < 2; ++head)
      for (int64_t t = 0; t < 4; ++t)
        for (int64_t j = 0; j < 2; ++j) {
          real mean = 0;
          for (int64_t s = 0; s < 4; ++s) mean += 0.25 * v[(head * 4 + s) * 2 + j];
          CHECK(std::fabs(z[(head * 4 + t) * 2 + j] - mean) < heed::test::tol(1e-12));
        }
  }

  TEST_CASE("recurrent: one-hot attention weights at step t make its context that source position's encoder state") {
    for (const char* kind : {"additive", "general"}) {
      CAPTURE(kind);
      Generator gen(17);
      std::unique_ptr<Model> model = make_model(test::tiny_rnn(kind), gen);
      Batch batch = make_batch({{{3, 4, 5, 6}, {6, 5, 4, 3}}});
      Hooks hooks;
      hooks.cache({"encoder.hook_states", "decoder.2.hook_context", "decoder.2.hook_scores"});
      hooks.add("decoder.2.hook_weights", [](const Var& w) {
        Tensor one = Tensor::zeros(w.shape());  // (1, S): all on source position 1
        one[1] = 1;
        return Var(one);
      });
      model->run_with_hooks(batch, hooks);
      const Tensor& states = hooks["encoder.hook_states"];  // (1, S, H)
      const Tensor& context = hooks["decoder.2.hook_context"];
      const int64_t H = context.numel();
      for (int64_t j = 0; j < H; ++j) CHECK(context[j] == states[H + j]);
      CHECK(hooks["decoder.2.hook_scores"].shape() == Shape{1, 4});
    }
  }

  TEST_CASE("a hook that changes an activation's shape is refused, naming the hook point and both shapes") {
    Generator gen(3);
    DecoderModel model(tiny_decoder(true), gen);
    Hooks hooks;
    hooks.add("blocks.0.hook_resid_pre", [](const Var& x) { return reshape(x, {x.shape()[0] * x.shape()[1], 4}); });
    CHECK_THROWS_WITH_AS(model.run_with_hooks(test::two_sequences(), hooks),
                         "hook blocks.0.hook_resid_pre: returned [10, 4] for an activation of [2, 5, 4]", Error);
  }
}
