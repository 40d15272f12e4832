// The decoder-only model (--model decoder, models/decoder_model.h): gradients of the whole loss,
// padding, the causal mask, decoding step by step against the teacher-forced pass, the state's
// rows, the config and its checks, checkpoint names and a round trip. Its equality with PyTorch
// is tests/models/ch14_decoder_torch_test.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "models/decoder_model.h"
#include "models/seq2seq.h"
#include "models/transformer.h"
#include "nn/checkpoint.h"
#include "nn/encoder.h"
#include "nn/positions.h"
#include "nn/loss.h"
#include "tests/support/heed_cli.h"
#include "tests/support/model_checks.h"
#include "tests/support/model_fixtures.h"
#include "tests/support/precision.h"

using namespace heed;
using heed::test::tiny_decoder;

namespace {

// The three kinds of layer the model has, with both kinds of position between them.
struct Variant {
  bool attention_only, norm_first;
  const char* positions;
};
constexpr Variant kVariants[] = {
    {true, false, "sinusoidal"}, {true, false, "learned"}, {false, false, "learned"}, {false, true, "sinusoidal"}};

std::string describe(const Variant& v) {
  return std::string(v.attention_only ? "attention-only" : v.norm_first ? "pre-norm" : "post-norm") + ", " +
         v.positions;
}

}  // namespace

TEST_SUITE("ch14_decoder_model") {
  TEST_CASE("gradcheck: the whole loss of a 2-layer decoder-only model w.r.t. every parameter, padded" *
            DOUBLE_ONLY(kGradcheckReason)) {
    for (const Variant& v : kVariants) {
      Generator gen(1);
      DecoderModel model(tiny_decoder(v.attention_only, v.norm_first, v.positions), gen);
      Batch batch = test::two_sequences();
      GradcheckReport r =
          gradcheck([&] { return model.loss(batch); }, model.parameters(), {.name = "decoder loss, " + describe(v)});
      INFO(r.str());
      CHECK(r.ok);
    }
  }

  TEST_CASE("causal: the logits at position t do not change when a later token does") {
    for (const Variant& v : kVariants) {
      CAPTURE(describe(v));
      Generator gen(2);
      DecoderModel model(tiny_decoder(v.attention_only, v.norm_first, v.positions), gen);
      Tensor a = model.forward(make_batch({{{3}, {3, 4, 5, 6}}})).value();  // (1, 5, 7)
      Tensor b = model.forward(make_batch({{{3}, {3, 4, 6, 6}}})).value();  // the third token differs
      // BOS 3 4 read the same; the logits at positions 0..2 are bit-identical, at 3 they differ.
      CHECK(equal(slice(a, 1, 0, 3), slice(b, 1, 0, 3)));
      CHECK(!equal(slice(a, 1, 3, 4), slice(b, 1, 3, 4)));
    }
  }

  TEST_CASE("padding: a sequence's logits, loss and gradients are bit-identical alone or padded in a batch") {
    for (const Variant& v : kVariants) {
      CAPTURE(describe(v));
      Generator gen(3);
      DecoderModel model(tiny_decoder(v.attention_only, v.norm_first, v.positions), gen);
      test::check_padding_invariance(model, {{3}, {6, 3}}, {{3}, {3, 6, 5, 4}});
    }
  }

  TEST_CASE("decoding step by step with each layer's cache gives the full forward's logits (1e-12)") {
    for (const Variant& v : kVariants) {
      CAPTURE(describe(v));
      Generator gen(4);
      ModelConfig c = tiny_decoder(v.attention_only, v.norm_first, v.positions);
      c.embed = 8;
      DecoderModel model(c, gen);
      Batch batch = test::two_sequences();  // targets of 4 and 2 tokens: T = 5
      auto no_source = [](int64_t, const StepOutput& o) { CHECK(!o.weights.defined()); };  // no attention over one
      std::unique_ptr<StepState> st = test::check_steps_match_forward(model, batch, no_source);
      const int64_t T = batch.tgt_len;
      auto& own = dynamic_cast<DecoderModelState&>(*st);
      CHECK(own.position == T);
      REQUIRE(own.cache.size() == 2);
      CHECK(own.cache[1].self.keys.shape() == Shape{4, T, 4});  // (B h, t, d_k)
      CHECK(own.cache[1].self.values.shape() == Shape{4, T, 4});
      CHECK(!own.cache[1].cross.keys.defined());  // no memory to attend to
      // Greedy decoding runs on the cache; a row decodes alike alone or beside another.
      Decoded both = model.greedy(batch, 6);
      Decoded alone = model.greedy(make_batch({{{5, 3}, {3, 5}}}), 6);
      CHECK(both.tokens[1] == alone.tokens[0]);
      CHECK(both.attention.empty());
    }
  }

  TEST_CASE("the cache is K and V: each layer's keys and values of the full forward (1e-12); a step projects one row") {
    for (const Variant& v : kVariants) {
      CAPTURE(describe(v));
      Generator gen(11);
      ModelConfig c = tiny_decoder(v.attention_only, v.norm_first, v.positions);
      c.embed = 8;
      const int64_t D = 8, h = 2, dk = 4, B = 2;
      DecoderModel model(c, gen);
      Batch batch = test::two_sequences();  // lengths 5 and 3: T = 5
      const int64_t T = batch.tgt_len;
      // The full forward's layer inputs, rebuilt from the public parts: x_0 = embed + P, then
      // each layer over all T positions with the causal mask of the real keys.
      std::map<std::string, Var> named;
      for (auto& [n, p] : model.named_parameters()) named[n] = p;
      Tensor P = v.positions == std::string("learned") ? slice(named.at("pos.weight").value(), 0, 0, T)
                                                       : sinusoidal_positions(T, D);
      Var x = reshape(index_select(named.at("embed.weight"), batch.tgt_in), {B, T, D}) + Var(P);
      const Tensor mask = key_mask(length_mask(batch.tgt_lengths, T, "test"), T, true);
      std::vector<Var> kv_in;  // what layer l's attention projects into keys and values (B, T, D)
      for (size_t l = 0; l < 2; ++l) {
        kv_in.push_back(v.norm_first ? model.block(l).norm1.forward(x) : x);
        x = v.attention_only ? x + model.self_attention(l).forward(x, x, mask).output : model.block(l).forward(x, mask);
      }
      if (v.attention_only) CHECK(equal(x.value(), model.hidden(batch.tgt_in, B, T, batch.tgt_lengths).value()));
      // Decode every position; after each step the cache holds K and V of all positions so far.
      std::unique_ptr<StepState> st = model.start_decoding(batch);
      auto& own = dynamic_cast<DecoderModelState&>(*st);
      for (int64_t t = 0; t < T; ++t) {
        model.decode_step({batch.tgt_in[t], batch.tgt_in[T + t]}, *st);
        // Whatever t, the step sent B rows through W_q, W_k, W_v (D x D each) in both layers.
        CHECK(own.projection_multiply_adds == 2 * B * 3 * D * D);
      }
      for (size_t l = 0; l < 2; ++l) {
        const TransformerAttention& sa = model.self_attention(l);
        // K = kv W_k^T + b_k and V = kv W_v^T + b_v, the packed in_proj's rows D..2D-1 and 2D..3D-1.
        Tensor K = linear(kv_in[l], slice(sa.in_proj_weight, 0, D, 2 * D), slice(sa.in_proj_bias, 0, D, 2 * D)).value();
        Tensor V = linear(kv_in[l], slice(sa.in_proj_weight, 0, 2 * D, 3 * D), slice(sa.in_proj_bias, 0, 2 * D, 3 * D)).value();
        const Tensor &ck = own.cache[l].self.keys.value(), &cv = own.cache[l].self.values.value();  // (B h, T, d_k)
        REQUIRE(ck.shape() == Shape{B * h, T, dk});
        REQUIRE(cv.shape() == Shape{B * h, T, dk});
        for (int64_t b = 0; b < B; ++b)
          for (int64_t s = 0; s < batch.tgt_lengths[b]; ++s)  // the real positions
            for (int64_t i = 0; i < h; ++i)
              for (int64_t j = 0; j < dk; ++j) {  // head i's feature j is the projection's i d_k + j
                const int64_t at = ((b * h + i) * T + s) * dk + j, full = (b * T + s) * D + i * dk + j;
                CHECK(std::fabs(ck[at] - K[full]) < test::tol(1e-12));
                CHECK(std::fabs(cv[at] - V[full]) < test::tol(1e-12));
              }
      }
    }
  }

  TEST_CASE("TransformerAttention::attend over keys_values is forward, bit for bit, with every key allowed or a mask") {
    Generator gen(12);
    TransformerAttention sa(8, 2, gen);
    Generator data(13);
    Var q(Tensor::normal({2, 3, 8}, 0, 1, data)), kv(Tensor::normal({2, 5, 8}, 0, 1, data));
    AttentionOutput a = sa.attend(q, sa.keys_values(kv)), f = sa.forward(q, kv, Tensor::ones({2, 3, 5}));
    CHECK(equal(a.output.value(), f.output.value()));
    CHECK(equal(a.weights.value(), f.weights.value()));
    // The cross-attention's case: the second source has 2 real positions of 5.
    const Tensor mask = key_mask(length_mask({5, 2}, 5, "test"), 3, false);  // (2, 3, 5)
    AttentionOutput am = sa.attend(q, sa.keys_values(kv), mask), fm = sa.forward(q, kv, mask);
    CHECK(equal(am.output.value(), fm.output.value()));
    CHECK(equal(am.weights.value(), fm.weights.value()));
    CHECK(am.weights.value()[((1 * 2 + 0) * 3 + 0) * 5 + 3] == 0);  // sequence 1, head 0, query 0, key 3: masked
    CHECK_THROWS_WITH_AS(sa.keys_values(Var(Tensor::zeros({2, 5, 6}))),
                         doctest::Contains("keys_values of [2, 5, 6], must be (B, S, 8)"), Error);
    CHECK_THROWS_WITH_AS(sa.attend(Var(Tensor::zeros({3, 1, 8})), sa.keys_values(kv)),
                         doctest::Contains("attend's query [3, 1, 8], keys [4, 5, 4]"), Error);
    Generator g2(14);
    DecoderModel attention_only(tiny_decoder(true), g2);
    CHECK_THROWS_WITH_AS(attention_only.block(0), doctest::Contains("an attention-only model has no full layers"), Error);
  }

  TEST_CASE("learned positions: a sequence longer than the table is a clear error, in the forward and in steps") {
    Generator gen(5);
    DecoderModel model(tiny_decoder(true, false, "learned"), gen);  // 6 positions
    CHECK_THROWS_WITH_AS(model.forward(make_batch({{{3}, {3, 4, 5, 6, 3, 4}}})),
                         doctest::Contains("decoder: position 6 is beyond the 6 learned positions"), Error);
    std::unique_ptr<StepState> st = model.start_decoding(test::two_sequences());
    for (int i = 0; i < 6; ++i) model.decode_step({3}, *st);
    CHECK_THROWS_WITH_AS(model.decode_step({3}, *st), doctest::Contains("position 6 is beyond the 6 learned positions"),
                         Error);
    std::unique_ptr<StepState> two = model.start_decoding(test::two_sequences());
    model.decode_step({3, 4}, *two);
    CHECK_THROWS_WITH_AS(model.decode_step({3}, *two), doctest::Contains("decode_step got 1 tokens for a state of 2 rows"),
                         Error);
  }

  TEST_CASE("DecoderModelState::select_rows copies the chosen rows of every layer's cache, which decode on alike") {
    Generator gen(6);
    DecoderModel model(tiny_decoder(false, true), gen);
    std::unique_ptr<StepState> st = model.start_decoding(test::two_sequences());
    model.decode_step({Vocab::kBos, Vocab::kBos}, *st);
    model.decode_step({3, 5}, *st);
    const std::vector<int64_t> rows = {1, 0, 1};
    std::unique_ptr<StepState> picked = st->select_rows(rows);
    auto& sel = dynamic_cast<DecoderModelState&>(*picked);
    auto& own = dynamic_cast<DecoderModelState&>(*st);
    REQUIRE(sel.cache.size() == 2);
    const std::vector<int64_t> head_rows = {2, 3, 0, 1, 2, 3};  // (B h, t, d_k): sequence r is rows 2r, 2r + 1
    for (size_t i = 0; i < 2; ++i) {
      CHECK(equal(sel.cache[i].self.keys.value(), index_select(own.cache[i].self.keys.value(), head_rows)));
      CHECK(equal(sel.cache[i].self.values.value(), index_select(own.cache[i].self.values.value(), head_rows)));
    }
    CHECK(sel.position == 2);
    Tensor next = model.logits(model.decode_step({4, 4}, *st).out).value();      // (2, V)
    Tensor chosen = model.logits(model.decode_step({4, 4, 4}, sel).out).value();  // (3, V)
    CHECK(equal(index_select(chosen, {0}), index_select(next, {1})));
    CHECK(equal(index_select(chosen, {1}), index_select(next, {0})));
  }

  TEST_CASE("make_model builds it; the other models refuse its config and it refuses theirs and their state") {
    for (const Variant& v : kVariants) {
      CAPTURE(describe(v));
      ModelConfig c = tiny_decoder(v.attention_only, v.norm_first, v.positions);
      Generator g1(7), g2(7);
      std::unique_ptr<Model> m = make_model(c, g1);
      REQUIRE(dynamic_cast<DecoderModel*>(m.get()) != nullptr);
      CHECK(m->num_parameters() == c.parameter_count());
      DecoderModel direct(c, g2);  // the same weights from the same seed
      const std::vector<Var> a = m->parameters(), b = direct.parameters();
      REQUIRE(a.size() == b.size());
      for (size_t i = 0; i < a.size(); ++i) CHECK(equal(a[i].value(), b[i].value()));
    }
    Generator g;
    CHECK_THROWS_WITH_AS(Seq2Seq(tiny_decoder(true), g), doctest::Contains("seq2seq: the decoder-only model is DecoderModel"),
                         Error);
    CHECK_THROWS_WITH_AS(TransformerSeq2Seq(tiny_decoder(true), g),
                         doctest::Contains("transformer: model 'decoder' is the decoder-only DecoderModel"), Error);
    CHECK_THROWS_WITH_AS(DecoderModel(test::tiny_transformer(), g),
                         doctest::Contains("decoder: model 'transformer' is not the decoder-only model"), Error);
    Generator g3(8);
    DecoderModel d(tiny_decoder(true), g3);
    TransformerSeq2Seq t(test::tiny_transformer(), g3);
    std::unique_ptr<StepState> ts = t.start_decoding(test::two_sequences());
    CHECK_THROWS_WITH_AS(d.decode_step({1, 1}, *ts), doctest::Contains("decoder: decode_step was given another model's"),
                         Error);
    CHECK(d.dropout_state().empty());
    CHECK_THROWS_WITH_AS(d.set_dropout_state("1 2"), doctest::Contains("for a model without dropout"), Error);
  }

  TEST_CASE("config: attention_only is the decoder's; its sizes are checked; its metadata round-trips") {
    ModelConfig c = tiny_decoder(true);
    c.heads = 3;
    CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("heads 3 must divide embed 4"), Error);
    c = tiny_decoder(false);
    c.layers = 0;
    CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("layers is 0"), Error);
    ModelConfig t = test::tiny_transformer();
    t.attention_only = true;
    CHECK_THROWS_WITH_AS(t.validate(), doctest::Contains("attention_only is for the decoder-only model, not transformer"),
                         Error);
    CHECK(tiny_decoder(true, false, "learned").source_limit() == 6);
    CHECK(tiny_decoder(true).source_limit() == INT64_MAX);
    CHECK(tiny_decoder(true).describe() == "decoder-only (D 4, 2 layers, 2 heads, attention only)");
    CHECK(tiny_decoder(false).describe() == "decoder-only (D 4, 2 layers, 2 heads)");
    for (bool attention_only : {true, false}) {
      c = tiny_decoder(attention_only, true, "learned");
      c.dropout = 0.25;
      std::map<std::string, std::string> meta = c.to_metadata();
      CHECK(meta.at("attention_only") == (attention_only ? "1" : "0"));
      ModelConfig back = ModelConfig::from_metadata(meta);
      CHECK(back.model == "decoder");
      CHECK(back.attention_only == attention_only);
      CHECK(back.layers == 2);
      CHECK(back.norm_first);
      CHECK(back.positions == "learned");
      CHECK(back.dropout == 0.25);
      meta.erase("attention_only");
      CHECK_THROWS_WITH_AS(ModelConfig::from_metadata(meta), doctest::Contains("no 'attention_only'"), Error);
    }
    // The other models' metadata has no attention_only key (their files keep their bytes).
    CHECK(test::tiny_transformer().to_metadata().count("attention_only") == 0);
    CHECK(test::tiny_rnn("additive").to_metadata().count("attention_only") == 0);
  }

  TEST_CASE("checkpoint: the PyTorch module's names, and a faithful round trip") {
    std::set<std::string> want_attention = {"embed.weight", "pos.weight", "out.weight", "out.bias"};
    for (int l = 0; l < 2; ++l)
      for (const char* n : {"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"})
        want_attention.insert("layers." + std::to_string(l) + "." + n);
    std::set<std::string> want_full = {"embed.weight", "norm.weight", "norm.bias", "out.weight", "out.bias"};
    for (int l = 0; l < 2; ++l)
      for (const char* n : {"self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
                            "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias",
                            "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"})
        want_full.insert("layers." + std::to_string(l) + "." + n);
    for (bool attention_only : {true, false}) {
      ModelConfig c = tiny_decoder(attention_only, false, attention_only ? "learned" : "sinusoidal");
      Generator gen(9);
      DecoderModel model(c, gen);
      std::set<std::string> names;
      for (auto& [n, p] : model.named_parameters()) names.insert(n);
      CHECK(names == (attention_only ? want_attention : want_full));
      Scratch s("decoder-ckpt");
      save_checkpoint(model, s.path("d.safetensors"), c.to_metadata());
      Generator other(99);
      DecoderModel loaded(ModelConfig::from_metadata(read_checkpoint_metadata(s.path("d.safetensors"))), other);
      load_checkpoint(loaded, s.path("d.safetensors"));
      Batch batch = test::two_sequences();
      CHECK(equal(loaded.forward(batch).value(), model.forward(batch).value()));
    }
  }

  TEST_CASE("gradcheck: shared embeddings, the one table's gradient from the embedding and from the output summed" *
            DOUBLE_ONLY(kGradcheckReason)) {
    for (bool attention_only : {true, false}) {
      ModelConfig c = tiny_decoder(attention_only, !attention_only, "learned");
      c.share_embeddings = true;
      Generator gen(15);
      DecoderModel model(c, gen);
      Batch batch = test::two_sequences();
      GradcheckReport r = gradcheck([&] { return model.loss(batch); }, model.parameters(),
                                    {.name = std::string("tied decoder loss, ") + (attention_only ? "attention-only" : "pre-norm")});
      INFO(r.str());
      CHECK(r.ok);
    }
  }

  TEST_CASE("shared embeddings: out reads the embedding's table (one Var), keeps its bias; the checkpoint loads tied") {
    ModelConfig c = tiny_decoder(true, false, "learned");
    c.share_embeddings = true;
    Generator gen(16);
    DecoderModel model(c, gen);
    std::map<std::string, Var> named;
    for (auto& [n, p] : model.named_parameters()) named[n] = p;
    CHECK(named.count("out.weight") == 0);  // listed once, as embed.weight (the transformer's tied table too)
    REQUIRE(named.count("out.bias") == 1);
    CHECK(model.num_parameters() == c.parameter_count());
    ModelConfig untied = c;
    untied.share_embeddings = false;
    CHECK(c.parameter_count() == untied.parameter_count() - 7 * 4);  // one (V, D) table fewer
    CHECK(c.describe() == "decoder-only (D 4, 2 layers, 2 heads, attention only, shared embeddings)");
    // logits = x E^T + b_out, E the embedding's table: change E and the output layer changes with it.
    Var x(Tensor::ones({1, 4}));
    CHECK(equal(model.logits(x).value(), linear(x, named.at("embed.weight"), named.at("out.bias")).value()));
    named.at("embed.weight").value()[4 * 4] += 1;  // row 4, a symbol's
    CHECK(equal(model.logits(x).value(), linear(x, named.at("embed.weight"), named.at("out.bias")).value()));
    // The file holds the table once; the flag is in its metadata, and a model loads tied.
    Scratch s("decoder-tied");
    save_checkpoint(model, s.path("t.safetensors"), c.to_metadata());
    const std::map<std::string, std::string> meta = read_checkpoint_metadata(s.path("t.safetensors"));
    CHECK(meta.at("share_embeddings") == "1");
    Generator other(98);
    std::unique_ptr<Model> loaded = make_model(ModelConfig::from_metadata(meta), other);
    load_checkpoint(*loaded, s.path("t.safetensors"));
    CHECK(loaded->config().share_embeddings);
    Batch batch = test::two_sequences();
    CHECK(equal(loaded->forward(batch).value(), model.forward(batch).value()));
    std::map<std::string, Var> back;
    for (auto& [n, p] : loaded->named_parameters()) back[n] = p;
    back.at("embed.weight").value()[4 * 4] += 1;
    CHECK(equal(loaded->logits(x).value(), linear(x, back.at("embed.weight"), back.at("out.bias")).value()));
  }

  TEST_CASE("dropout: a seed fixes the masks, training changes them, evaluation has none, the stream's state restores") {
    ModelConfig c = tiny_decoder(true);
    c.dropout = 0.3;
    Generator gen(10);
    DecoderModel model(c, gen);
    Batch batch = test::two_sequences();
    CHECK(equal(model.forward(batch).value(), model.forward(batch).value()));  // evaluation: no dropout
    model.set_training(true, 1);
    const std::string state = model.dropout_state();
    Tensor t1 = model.forward(batch).value(), t2 = model.forward(batch).value();
    CHECK(!equal(t1, t2));
    model.set_dropout_state(state);
    CHECK(equal(model.forward(batch).value(), t1));
    model.set_training(false);
    CHECK_THROWS_WITH_AS(model.set_dropout_state(""), doctest::Contains("missing for a model with dropout"), Error);
  }
}
