// The library as a user writes with it (docs/library.md): everything through the one include,
// heed.h (this file compiles only if it holds the whole API), Tensor's operators, argmax as
// integers, Embedding over (B, S) ids, Sequential, and self-attention with nothing padded.
// Each test sits in the suite of the chapter that introduces what it tests.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "heed.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

bool same_tensor(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), static_cast<size_t>(a.numel()) * sizeof(real)) == 0;
}

}  // namespace

TEST_SUITE("ch01_tensor") {
  TEST_CASE("Tensor operators: + - * / on tensors and scalars, broadcasting, the bits of the named functions and of Var's") {
    Generator gen(5);
    const Tensor a = Tensor::uniform({2, 3}, -1, 1, gen), b = Tensor::uniform({3}, 0.5, 1, gen);
    const Tensor sum_ab = a + b;  // b (3) broadcast over a's rows
    CHECK(sum_ab.shape() == Shape{2, 3});
    CHECK(sum_ab.at({1, 2}) == a.at({1, 2}) + b.at({2}));
    CHECK((a / b).at({1, 0}) == a.at({1, 0}) / b.at({0}));
    CHECK((2 - a).at({0, 1}) == 2 - a.at({0, 1}));
    CHECK(same_tensor(a + b, add(a, b)));
    CHECK(same_tensor(a - b, sub(a, b)));
    CHECK(same_tensor(a * b, mul(a, b)));
    CHECK(same_tensor(a / b, div(a, b)));
    CHECK(same_tensor(-a, neg(a)));
    CHECK(same_tensor(a + 0.25, add(a, 0.25)));
    CHECK(same_tensor(0.25 + a, add(a, 0.25)));
    CHECK(same_tensor(a * 3, mul(a, 3)));
    CHECK(same_tensor(3 * a, mul(a, 3)));
    // Each operator gives exactly what the same operator on Vars gives.
    const Var va(a), vb(b);
    CHECK(same_tensor(a + b, (va + vb).value()));
    CHECK(same_tensor(a - b, (va - vb).value()));
    CHECK(same_tensor(a * b, (va * vb).value()));
    CHECK(same_tensor(a / b, (va / vb).value()));
    CHECK(same_tensor(-a, (-va).value()));
    CHECK(same_tensor(a - 0.3, (va - 0.3).value()));
    CHECK(same_tensor(0.3 - a, (0.3 - va).value()));
    CHECK(same_tensor(a / 3, (va / 3).value()));
    CHECK(same_tensor(3 * a + 1, (3 * va + 1).value()));
    CHECK_THROWS_WITH_AS(a + Tensor::ones({2}), doctest::Contains("add"), Error);
  }

  TEST_CASE("argmax_index, argmax_indices: the first maximum as integers, argmax's indices") {
    const Tensor x({2, 3}, {1, 5, 5, 7, 0, 7});
    CHECK(argmax_index(x) == 3);  // flat index; ties keep the first
    CHECK(argmax_indices(x, 1) == std::vector<int64_t>{1, 0});
    CHECK(argmax_indices(x, 0) == std::vector<int64_t>{1, 0, 1});
    CHECK(argmax_indices(x, -1) == std::vector<int64_t>{1, 0});
    const Tensor as_reals = argmax(x, 1);
    CHECK(as_reals.shape() == Shape{2});
    CHECK(as_reals[0] == 1);
    CHECK(as_reals[1] == 0);
    CHECK(argmax(x, 0, true).shape() == Shape{1, 3});
    CHECK(argmax(x).item() == 3);
    CHECK_THROWS_WITH_AS(argmax_index(Tensor::zeros({0})), doctest::Contains("empty"), Error);
    CHECK_THROWS_WITH_AS(argmax_indices(Tensor::zeros({2, 0}), 1), doctest::Contains("empty axis"), Error);
  }
}

TEST_SUITE("ch04_layers") {
  TEST_CASE("Embedding over (B, S) ids: (B, S, E), forward() of the ids reshaped; gradcheck with a repeated id; the padded one gets no gradient" *
            DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(3);
    Embedding emb(6, 4, gen, /*padding_idx=*/0);
    const std::vector<int64_t> ids{2, 5, 0,  // (B 2, S 3) row-major: 5 twice, one padded
                                   5, 1, 3};
    const Var y = emb.forward(ids, {2, 3});
    CHECK(y.shape() == Shape{2, 3, 4});
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t s = 0; s < 3; ++s)
        for (int64_t e = 0; e < 4; ++e) CHECK(y.value().at({b, s, e}) == emb.weight.value().at({ids[b * 3 + s], e}));
    CHECK(same_tensor(y.value(), reshape(emb.forward(ids).value(), {2, 3, 4})));
    CHECK(emb.forward(ids, {3, 2}).shape() == Shape{3, 2, 4});
    CHECK(emb.forward(ids, {6}).shape() == Shape{6, 4});
    // (The padding row's gradient is 0 by design, not the derivative: gradcheck a table without one.)
    Embedding plain(6, 4, gen);
    GradcheckReport rep = gradcheck([&] { return plain.forward(ids, {2, 3}); }, {plain.weight}, {.name = "Embedding (B, S)"});
    INFO(rep.str());
    CHECK(rep.ok);
    // The padding row gets no gradient, as with (N) ids; a repeated id gets both.
    emb.zero_grad();
    sum(emb.forward(ids, {2, 3})).backward();
    CHECK(same_tensor(slice(emb.weight.grad(), 0, 0, 1), Tensor::zeros({1, 4})));
    CHECK(emb.weight.grad().at({5, 0}) == 2);
    CHECK_THROWS_WITH_AS(emb.forward(ids, {4, 2}), doctest::Contains("Embedding: 6 ids cannot be laid out as [4, 2]"),
                         Error);
  }

  TEST_CASE("Sequential: forward is its steps in order, parameters named as PyTorch's; gradcheck" *
            DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(7);
    Sequential net;
    Linear& first = net.add<Linear>(3, 5, true, gen);
    net.add(tanh);
    Sequential& inner = net.add<Sequential>();  // a Sequential is a step too
    Linear& second = inner.add<Linear>(5, 2, true, gen);
    inner.add(relu);
    CHECK(net.size() == 3);

    std::vector<std::string> names;
    for (const auto& [name, p] : net.named_parameters()) names.push_back(name);
    CHECK(names == std::vector<std::string>{"0.weight", "0.bias", "2.0.weight", "2.0.bias"});

    const Var x(Tensor::uniform({4, 3}, -1, 1, gen), true);
    const Var by_hand = relu(second.forward(tanh(first.forward(x))));
    CHECK(same_tensor(net.forward(x).value(), by_hand.value()));
    CHECK(same_tensor(Sequential().forward(x).value(), x.value()));  // no steps: x itself

    // tanh rather than relu inside, so that no difference straddles relu's kink.
    Sequential smooth;
    smooth.add<Linear>(3, 4, true, gen);
    smooth.add(tanh);
    smooth.add<LayerNorm>(4);
    smooth.add<Linear>(4, 2, false, gen);
    std::vector<Var> inputs{x};
    for (const Var& p : smooth.parameters()) inputs.push_back(p);
    GradcheckReport rep = gradcheck([&] { return smooth.forward(x); }, inputs, {.name = "Sequential"});
    INFO(rep.str());
    CHECK(rep.ok);
  }
}

TEST_SUITE("ch12_self_attention") {
  TEST_CASE("MultiHeadAttention and SelfAttention without a padding argument: the bits of padding of ones") {
    Generator gen(9);
    MultiHeadAttention mha(8, 2, gen);
    SelfAttention sa(8, gen);
    const Var x(Tensor::uniform({3, 5, 8}, -1, 1, gen));
    const Tensor ones = Tensor::ones({3, 5});
    for (bool causal : {false, true}) {
      CAPTURE(causal);
      AttentionOutput a = mha.forward(x, causal), b = mha.forward(x, ones, causal);
      CHECK(same_tensor(a.output.value(), b.output.value()));
      CHECK(same_tensor(a.weights.value(), b.weights.value()));
      AttentionOutput c = sa.forward(x, causal), d = sa.forward(x, ones, causal);
      CHECK(same_tensor(c.output.value(), d.output.value()));
      CHECK(same_tensor(c.weights.value(), d.weights.value()));
    }
    CHECK(mha.forward(x).weights.value().at({0, 0, 0, 4}) > 0);  // not causal: the last key is seen
    CHECK(mha.forward(x, true).weights.value().at({0, 0, 0, 4}) == 0);
    CHECK_THROWS_WITH_AS(mha.forward(Var(Tensor::zeros({5, 8}))), doctest::Contains("MultiHeadAttention: input [5, 8]"),
                         Error);
  }
}
