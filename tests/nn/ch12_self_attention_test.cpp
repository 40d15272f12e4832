// Chapter 12 (attention zoo): self-attention and multi-head attention as layers, and positions.
// The tagger built from them is tested in ch12_self_attention_model_test.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "nn/positions.h"
#include "nn/self_attention.h"
#include "tensor/random.h"
#include "tests/support/chapter_check.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

// The formula of tests/golden/self_attention.py: 0.5 sin(0.7 i + k) in row-major order.
Tensor fill(const Shape& shape, int k) {
  Tensor t = Tensor::zeros(shape);
  for (int64_t i = 0; i < t.numel(); ++i) t[i] = 0.5 * std::sin(0.7 * static_cast<real>(i) + k);
  return t;
}

// q_proj.weight gets fill(.., 1), q_proj.bias fill(.., 2), ... out_proj.bias fill(.., 8): the
// registration order, which the golden script follows.
void set_golden_weights(Module& layer) {
  int k = 1;
  for (auto& [name, p] : layer.named_parameters()) p.value() = fill(p.shape(), k++);
}

// Every parameter from N(0, 0.5^2): biases start at zero, which would hide a bias left at a
// padded position.
void randomize(Module& layer, Generator& gen) {
  for (auto& [name, p] : layer.named_parameters()) p.value() = Tensor::normal(p.shape(), 0, 0.5, gen);
}

void check_close(const Tensor& got, const Tensor& want, real tol) {
  REQUIRE(got.shape() == want.shape());
  for (int64_t i = 0; i < want.numel(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    CHECK(std::fabs(got[i] - want[i]) <= tol);
  }
}

// The rows of real query positions of t, flattened: t is (B, S, n) or (B, h, S, n) (every head's
// rows follow the same mask), padding (B, S).
Tensor real_query_rows(const Tensor& t, const Tensor& padding, int64_t n) {
  const int64_t B = padding.shape()[0], S = padding.shape()[1], h = t.numel() / (B * S * n);
  std::vector<real> v;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t head = 0; head < h; ++head)
      for (int64_t i = 0; i < S; ++i)
        if (padding[b * S + i] != 0) {
          const real* row = t.data() + ((b * h + head) * S + i) * n;
          v.insert(v.end(), row, row + n);
        }
  return Tensor({static_cast<int64_t>(v.size())}, v);
}

std::vector<Var> with(std::vector<Var> params, std::initializer_list<Var> more) {
  params.insert(params.end(), more);
  return params;
}

// Rows [from, to) of sequence b of a (B, S, D) tensor, as a (to - from, D) tensor.
Tensor rows(const Tensor& t, int64_t b, int64_t from, int64_t to) {
  const int64_t S = t.shape()[1], D = t.shape()[2];
  std::vector<real> v(t.data() + (b * S + from) * D, t.data() + (b * S + to) * D);
  return Tensor({to - from, D}, v);
}

// The first L of S rows of sequence b set to those of `src` (1, L, D); the rest keep their values.
void put_rows(Tensor& dst, int64_t b, const Tensor& src) {
  const int64_t S = dst.shape()[1], D = dst.shape()[2], L = src.shape()[1];
  std::copy(src.data(), src.data() + L * D, dst.data() + b * S * D);
}

// Gradcheck of a self-attention layer w.r.t. x and every parameter, without and with the causal
// mask; the output and the weights together, so both paths are checked.
template <class Layer>
void check_layer_gradients(const Layer& layer, const Var& x, const Tensor& padding, const std::string& name) {
  for (bool causal : {false, true}) {
    GradcheckOptions opt;
    opt.name = causal ? name + " causal" : name;
    GradcheckReport r = gradcheck(
        [&] {
          AttentionOutput a = layer.forward(x, padding, causal);
          return concat({reshape(a.output, {-1}), reshape(a.weights, {-1})}, 0);
        },
        with(layer.parameters(), {x}), opt);
    INFO(r.str());
    CHECK(r.ok);
  }
}


// Multi-head attention written as plain loops, the formulas of nn/self_attention.h read literally:
// the reference multi_head_attention is held to. query (B, T, D), kv (B, S, D), mask (B, T, S) ->
// output (B, T, D), a query allowed no key giving a zero row.
Tensor attention_by_loops(const Tensor& query, const Tensor& kv, const Tensor& mask, const AttentionProjections& in,
                          const Linear& out_proj, int64_t heads) {
  const int64_t B = query.shape()[0], T = query.shape()[1], S = kv.shape()[1], D = query.shape()[2];
  const int64_t dk = D / heads;
  auto project = [&](const Tensor& x, const Var& w, const Var& bias) {  // x (B, L, D) -> x W^T + b
    const int64_t L = x.shape()[1];
    Tensor y = Tensor::zeros({B, L, D});
    for (int64_t r = 0; r < B * L; ++r)
      for (int64_t o = 0; o < D; ++o) {
        real acc = bias.defined() ? bias.value()[o] : 0;
        for (int64_t c = 0; c < D; ++c) acc += x[r * D + c] * w.value()[o * D + c];
        y[r * D + o] = acc;
      }
    return y;
  };
  Tensor Q = project(query, in.w_q, in.b_q), K = project(kv, in.w_k, in.b_k), V = project(kv, in.w_v, in.b_v);
  Tensor concat = Tensor::zeros({B, T, D}), out = Tensor::zeros({B, T, D});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      bool any = false;
      for (int64_t j = 0; j < S; ++j) any = any || mask[(b * T + t) * S + j] != 0;
      if (!any) continue;  // attends to nothing: its output row stays 0
      for (int64_t h = 0; h < heads; ++h) {
        std::vector<real> e(S, 0);
        real top = -std::numeric_limits<real>::infinity(), total = 0;
        for (int64_t j = 0; j < S; ++j) {
          if (mask[(b * T + t) * S + j] == 0) continue;
          for (int64_t c = h * dk; c < (h + 1) * dk; ++c) e[j] += Q[(b * T + t) * D + c] * K[(b * S + j) * D + c];
          e[j] /= std::sqrt(static_cast<real>(dk));
          top = std::max(top, e[j]);
        }
        for (int64_t j = 0; j < S; ++j) {
          e[j] = mask[(b * T + t) * S + j] != 0 ? std::exp(e[j] - top) : 0;
          total += e[j];
        }
        for (int64_t j = 0; j < S; ++j)
          for (int64_t c = h * dk; c < (h + 1) * dk; ++c) concat[(b * T + t) * D + c] += e[j] / total * V[(b * S + j) * D + c];
      }
      for (int64_t o = 0; o < D; ++o) {
        real acc = out_proj.bias.value()[o];
        for (int64_t c = 0; c < D; ++c) acc += concat[(b * T + t) * D + c] * out_proj.weight.value()[o * D + c];
        out[(b * T + t) * D + o] = acc;
      }
    }
  return out;
}
}  // namespace

TEST_SUITE("ch12_attention_zoo") {
  TEST_CASE("self-attention equals PyTorch's nn.MultiheadAttention (golden: tests/golden/self_attention.py)" * DOUBLE_ONLY(kPytorchFp64Reason)) {
    const int64_t B = 2, S = 3, D = 4;
    Var x(fill({B, S, D}, 9));
    Tensor padding({B, S}, {1, 1, 1, 1, 1, 0});
    // Printed by tests/golden/self_attention.py (heads 1 and 2): outputs (B, S, D), weights (B, h, S, S).
    std::vector<real> out1{
      0.81115596047283689, -0.098748342543733658, 0.50666108422227996, -0.81373319290316448,
      0.79503136340270375, -0.091915840345364652, 0.50991020886447125, -0.82668849075251294,
      0.79953810710177187, -0.093387381327419694, 0.50817650274240667, -0.82194987648973128,
      0.82277860636242184, -0.11090106064108246, 0.51793956331503554, -0.82283414474573302,
      0.8174564774485269, -0.11440577858837059, 0.52986613932428517, -0.84180439952564068,
      0.82790964751867246, -0.10752217743108822, 0.50644120366485135, -0.80454500526883399};
    std::vector<real> w1{
      0.29570591176282057, 0.41158807737550201, 0.29270601086167747,
      0.37712643994131917, 0.24330850585437244, 0.37956505420430836,
      0.36590868469252708, 0.28947619199423597, 0.34461512331323702,
      0.49409593856265405, 0.5059040614373459, 0,
      0.42785409747744779, 0.57214590252255215, 0,
      0.55795940718075054, 0.4420405928192494, 0};
    std::vector<real> out2{
      0.8123177035711493, -0.10380199223344561, 0.5150226644030873, -0.82443647851275048,
      0.79127446821529213, -0.083762582613968461, 0.49830274088438081, -0.81296811718503459,
      0.80291863801482011, -0.099373879506334306, 0.51607719648244954, -0.83085179860811542,
      0.80983216917137735, -0.09743336464731317, 0.50550687242075365, -0.81287312250906207,
      0.79882748014902227, -0.09247901225004701, 0.50717535841860983, -0.82097164447087412,
      0.8285188620023376, -0.11042499906721831, 0.51130219597426263, -0.81080245473619561};
    std::vector<real> w2{
      0.32063617603199063, 0.36195197354186281, 0.31741185042614661,
      0.3587279280651498, 0.30243646219019382, 0.33883560974465632,
      0.3823175039628946, 0.2729402416533897, 0.34474225438371575,
      0.29328208012066387, 0.41469814889493367, 0.29201977098440263,
      0.36946541025859481, 0.23579684890982583, 0.39473774083157942,
      0.33063440566802271, 0.33250216022756729, 0.33686343410440989,
      0.52496561559557642, 0.47503438440442353, 0,
      0.49451573390486236, 0.50548426609513752, 0,
      0.53669699451368524, 0.46330300548631481, 0,
      0.46671292257684749, 0.53328707742315251, 0,
      0.40394620982248247, 0.59605379017751758, 0,
      0.5454482122524642, 0.4545517877475358, 0};
    // heed zeroes the padded query (sequence 1, position 2); PyTorch lets it attend, so only the
    // real query rows are compared.
    Generator gen(0);
    SelfAttention single(D, gen);
    set_golden_weights(single);
    AttentionOutput a = single.forward(x, padding);
    check_close(real_query_rows(a.output.value(), padding, D),
                real_query_rows(Tensor({B, S, D}, out1), padding, D), 1e-14);
    check_close(real_query_rows(a.weights.value(), padding, S),
                real_query_rows(Tensor({B, S, S}, w1), padding, S), 1e-14);
    MultiHeadAttention multi(D, 2, gen);
    set_golden_weights(multi);
    AttentionOutput m = multi.forward(x, padding);
    check_close(real_query_rows(m.output.value(), padding, D),
                real_query_rows(Tensor({B, S, D}, out2), padding, D), 1e-14);
    check_close(real_query_rows(m.weights.value(), padding, S),
                real_query_rows(Tensor({B, 2, S, S}, w2), padding, S), 1e-14);
  }

  TEST_CASE("gradcheck: SelfAttention w.r.t. the input and every parameter, padded, with and without causal" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(21);
    SelfAttention layer(4, gen);
    randomize(layer, gen);
    Var x(Tensor::normal({2, 4, 4}, 0, 1, gen), true);
    Tensor padding({2, 4}, {1, 1, 1, 1, 1, 1, 0, 0});
    check_layer_gradients(layer, x, padding, "SelfAttention");
  }

  TEST_CASE("gradcheck: MultiHeadAttention (3 heads of 2) w.r.t. the input and every parameter, padded" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(22);
    MultiHeadAttention layer(6, 3, gen);
    randomize(layer, gen);
    Var x(Tensor::normal({2, 4, 6}, 0, 1, gen), true);
    Tensor padding({2, 4}, {1, 1, 1, 0, 1, 1, 1, 1});
    check_layer_gradients(layer, x, padding, "MultiHeadAttention");
  }

  TEST_CASE("masking: padded keys get exactly 0, padded queries give zero rows, causal hides the future") {
    Generator gen(3);
    MultiHeadAttention layer(4, 2, gen);
    randomize(layer, gen);
    Var x(Tensor::normal({2, 4, 4}, 0, 3, gen), true);
    // A wild value at a padded position changes nothing (float's is 1e30: its 1e300 is infinity).
    x.value().at({1, 3, 0}) = static_cast<real>(test::kFloatBuild ? 1e30 : 1e300);
    Tensor padding({2, 4}, {1, 1, 1, 1, 1, 1, 0, 0});
    for (bool causal : {false, true}) {
      AttentionOutput a = layer.forward(x, padding, causal);
      const Tensor& w = a.weights.value();  // (B, h, S, S)
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t h = 0; h < 2; ++h)
          for (int64_t i = 0; i < 4; ++i) {
            bool real_query = padding.at({b, i}) != 0;
            real total = 0;
            for (int64_t j = 0; j < 4; ++j) {
              bool allowed = real_query && padding.at({b, j}) != 0 && (!causal || j <= i);
              if (!allowed) CHECK(w.at({b, h, i, j}) == 0);
              if (allowed) CHECK(w.at({b, h, i, j}) > 0);
              total += w.at({b, h, i, j});
            }
            CHECK(total == doctest::Approx(real_query ? 1 : 0).epsilon(test::tol(1e-14)));
          }
      for (int64_t i = 2; i < 4; ++i)
        for (int64_t d = 0; d < 4; ++d) CHECK(a.output.value().at({1, i, d}) == 0);
      for (real v : a.output.value().values()) CHECK(std::isfinite(v));
      x.zero_grad();
      sum(a.output * a.output).backward();
      for (int64_t i = 2; i < 4; ++i)
        for (int64_t d = 0; d < 4; ++d) CHECK(x.grad().at({1, i, d}) == 0);
    }
    // Causal: the first query sees only itself.
    AttentionOutput c = layer.forward(x, padding, true);
    CHECK(c.weights.value().at({0, 0, 0, 0}) == 1);
    CHECK(c.weights.value().at({0, 1, 0, 0}) == 1);
  }

  TEST_CASE("padding never changes a result: outputs and gradients are bit-identical") {
    // Sequence A (3 positions) alone, and padded to 5 next to a longer sequence B, its padded
    // rows full of junk. Every sum is taken in the same order, padded terms only add exact zeros
    // at the end (weight 0 times a finite value), so the results are equal bit for bit.
    Generator gen(5);
    MultiHeadAttention layer(6, 2, gen);
    randomize(layer, gen);
    const int64_t D = 6;
    Tensor a = Tensor::normal({1, 3, D}, 0, 1, gen);
    Tensor ra = Tensor::normal({1, 3, D}, 0, 1, gen);  // projection of A's outputs for the loss
    Var alone(a, true);
    sum(layer.forward(alone, Tensor::ones({1, 3})).output * Var(ra)).backward();
    std::vector<Tensor> alone_grads;
    for (const Var& p : layer.parameters()) alone_grads.push_back(p.grad());

    Tensor xb = Tensor::normal({2, 5, D}, 0, 1, gen);  // junk in A's padding, B everywhere
    put_rows(xb, 0, a);
    Tensor r = Tensor::normal({2, 5, D}, 0, 1, gen);
    put_rows(r, 0, ra);
    Var batched(xb, true);
    Tensor padding({2, 5}, {1, 1, 1, 0, 0, 1, 1, 1, 1, 1});
    Var out = layer.forward(batched, padding).output;
    sum(out * Var(r)).backward();
    CHECK(equal(rows(out.value(), 0, 0, 3), rows(layer.forward(alone, Tensor::ones({1, 3})).output.value(), 0, 0, 3)));
    CHECK(equal(rows(out.value(), 0, 3, 5), Tensor::zeros({2, D})));
    CHECK(equal(rows(batched.grad(), 0, 0, 3), rows(alone.grad(), 0, 0, 3)));
    CHECK(equal(rows(batched.grad(), 0, 3, 5), Tensor::zeros({2, D})));

    // Parameter gradients: A padded alone (junk included) against A unpadded.
    layer.zero_grad();
    Tensor xp = Tensor::normal({1, 5, D}, 0, 1, gen);
    put_rows(xp, 0, a);
    Tensor rp = Tensor::normal({1, 5, D}, 0, 1, gen);
    put_rows(rp, 0, ra);
    sum(layer.forward(Var(xp), Tensor({1, 5}, {1, 1, 1, 0, 0})).output * Var(rp)).backward();
    std::vector<Var> params = layer.parameters();
    for (size_t i = 0; i < params.size(); ++i) CHECK(equal(params[i].grad(), alone_grads[i]));
  }

  TEST_CASE("multi-head with one head equals single-head self-attention, bit for bit") {
    Generator g1(7), g2(8);
    SelfAttention single(5, g1);
    randomize(single, g1);
    MultiHeadAttention multi(5, 1, g2);
    auto from = single.named_parameters(), to = multi.named_parameters();
    REQUIRE(from.size() == to.size());
    for (size_t i = 0; i < from.size(); ++i) {
      CHECK(from[i].first == to[i].first);  // q_proj.weight, q_proj.bias, ...
      to[i].second.value() = from[i].second.value();
    }
    Generator gen(9);
    Tensor x = Tensor::normal({3, 4, 5}, 0, 1, gen), r = Tensor::normal({3, 4, 5}, 0, 1, gen);
    Tensor padding({3, 4}, {1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0});
    for (bool causal : {false, true}) {
      Var xs(x, true), xm(x, true);
      AttentionOutput s = single.forward(xs, padding, causal), m = multi.forward(xm, padding, causal);
      CHECK(equal(s.output.value(), m.output.value()));
      CHECK(equal(reshape(s.weights, {3, 1, 4, 4}).value(), m.weights.value()));
      single.zero_grad();
      multi.zero_grad();
      sum(s.output * Var(r)).backward();
      sum(m.output * Var(r)).backward();
      CHECK(equal(xs.grad(), xm.grad()));
      for (size_t i = 0; i < from.size(); ++i) CHECK(equal(from[i].second.grad(), to[i].second.grad()));
    }
  }

  TEST_CASE("without positions, permuting the sequence permutes the outputs and the weights") {
    Generator gen(11);
    MultiHeadAttention layer(6, 2, gen);
    randomize(layer, gen);
    const int64_t S = 5, D = 6;
    Tensor x = Tensor::normal({1, S, D}, 0, 1, gen);
    Tensor padding({1, S}, {1, 1, 0, 1, 1});  // padding may sit anywhere
    std::vector<int64_t> perm{3, 0, 4, 2, 1};  // position p of the permuted sequence holds x[perm[p]]
    Tensor xp = Tensor::zeros({1, S, D}), pp = Tensor::zeros({1, S});
    for (int64_t p = 0; p < S; ++p) {
      for (int64_t d = 0; d < D; ++d) xp.at({0, p, d}) = x.at({0, perm[p], d});
      pp.at({0, p}) = padding.at({0, perm[p]});
    }
    AttentionOutput a = layer.forward(Var(x), padding), b = layer.forward(Var(xp), pp);
    Tensor want = Tensor::zeros({1, S, D}), want_w = Tensor::zeros({1, 2, S, S});
    for (int64_t p = 0; p < S; ++p) {
      for (int64_t d = 0; d < D; ++d) want.at({0, p, d}) = a.output.value().at({0, perm[p], d});
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t q = 0; q < S; ++q) want_w.at({0, h, p, q}) = a.weights.value().at({0, h, perm[p], perm[q]});
    }
    // Equal up to rounding: the softmax and the weighted sum add the same terms in another order.
    CHECK(allclose(b.output.value(), want, test::tol(1e-12), test::tol(1e-14)));
    CHECK(allclose(b.weights.value(), want_w, test::tol(1e-12), test::tol(1e-14)));
    // Sinusoidal positions break the symmetry: the same permutation now changes the answer.
    Var pos(sinusoidal_positions(S, D));
    AttentionOutput c = layer.forward(Var(x) + pos, padding), e = layer.forward(Var(xp) + pos, pp);
    Tensor want_c = Tensor::zeros({1, S, D});
    for (int64_t p = 0; p < S; ++p)
      for (int64_t d = 0; d < D; ++d) want_c.at({0, p, d}) = c.output.value().at({0, perm[p], d});
    CHECK_FALSE(allclose(e.output.value(), want_c, 1e-6, 1e-6));
  }

  TEST_CASE("sinusoidal positions: Vaswani's formula, unit clocks, a shift is a rotation") {
    Tensor P = sinusoidal_positions(6, 5);
    CHECK(P.shape() == Shape{6, 5});
    for (int64_t d = 0; d < 5; ++d) CHECK(P.at({0, d}) == (d % 2 ? 1 : 0));
    real f1 = std::pow(10000.0, -2.0 / 5), f2 = std::pow(10000.0, -4.0 / 5);
    CHECK(P.at({1, 0}) == doctest::Approx(std::sin(1.0)).epsilon(test::tol(1e-15)));
    CHECK(P.at({1, 1}) == doctest::Approx(std::cos(1.0)).epsilon(test::tol(1e-15)));
    CHECK(P.at({3, 2}) == doctest::Approx(std::sin(3 * f1)).epsilon(test::tol(1e-15)));
    CHECK(P.at({3, 3}) == doctest::Approx(std::cos(3 * f1)).epsilon(test::tol(1e-15)));
    CHECK(P.at({5, 4}) == doctest::Approx(std::sin(5 * f2)).epsilon(test::tol(1e-15)));  // odd D ends on a sine
    // P[p + k] rotates each (sin, cos) pair of P[p] by the angle k * frequency.
    for (int64_t i = 0; i < 2; ++i) {
      real f = std::pow(10000.0, -2.0 * i / 5), k = 2;
      real s = P.at({1, 2 * i}), c = P.at({1, 2 * i + 1});
      CHECK(P.at({3, 2 * i}) == doctest::Approx(s * std::cos(k * f) + c * std::sin(k * f)).epsilon(test::tol(1e-14)));
      CHECK(P.at({3, 2 * i + 1}) == doctest::Approx(c * std::cos(k * f) - s * std::sin(k * f)).epsilon(1e-14));
    }
    CHECK_THROWS_WITH_AS(sinusoidal_positions(3, 0), doctest::Contains("sinusoidal_positions: length 3 and dim 0"),
                         Error);
  }

  TEST_CASE("PositionEmbedding: the first S rows of a learned table, an error beyond max_len") {
    Generator gen(4);
    PositionEmbedding pos(8, 3, gen);
    CHECK(pos.named_parameters()[0].first == "weight");
    Var p = pos.forward(5);
    CHECK(p.shape() == Shape{5, 3});
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t d = 0; d < 3; ++d) CHECK(p.value().at({i, d}) == pos.weight.value().at({i, d}));
    sum(p).backward();
    CHECK(pos.weight.grad().at({4, 2}) == 1);
    CHECK(pos.weight.grad().at({5, 0}) == 0);
    CHECK_THROWS_WITH_AS(pos.forward(9), doctest::Contains("PositionEmbedding: length 9 is outside [1, 8]"), Error);
  }

  TEST_CASE("attention_mask: the key padding, causality and the explicit rule for padded queries") {
    // B 2, T 3 queries (sequence 1's last one padded), S 4 keys (sequence 1's last two padded).
    Tensor qpad({2, 3}, {1, 1, 1, 1, 1, 0}), kpad({2, 4}, {1, 1, 1, 1, 1, 1, 0, 0});
    Tensor nothing = attention_mask(qpad, kpad, false, PaddedQueries::attend_nothing);
    CHECK(equal(nothing, Tensor({2, 3, 4}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,     // sequence 0: all real
                                            1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0})));  // sequence 1: query 2 sees nothing
    Tensor keys = attention_mask(qpad, kpad, false, PaddedQueries::attend_keys);
    CHECK(equal(keys, Tensor({2, 3, 4}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,     //
                                         1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0})));  // query 2 sees the real keys
    Tensor causal = attention_mask(qpad, kpad, true, PaddedQueries::attend_keys);
    CHECK(equal(causal, Tensor({2, 3, 4}, {1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0,     // query i sees keys j <= i
                                           1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0})));
    // The two named masks are the builder with each rule.
    Tensor pad({2, 4}, {1, 1, 1, 0, 1, 1, 0, 0});
    for (bool c : {false, true}) {
      CHECK(equal(self_attention_mask(pad, c), attention_mask(pad, pad, c, PaddedQueries::attend_nothing)));
      CHECK(equal(key_mask(kpad, 3, c), attention_mask(Tensor::ones({2, 3}), kpad, c, PaddedQueries::attend_keys)));
      CHECK(equal(key_mask(kpad, 3, c), attention_mask(qpad, kpad, c, PaddedQueries::attend_keys)));
    }
    CHECK_THROWS_WITH_AS(attention_mask(Tensor::ones({2, 3}), Tensor::ones({3, 4}), false, PaddedQueries::attend_keys),
                         doctest::Contains("attention_mask: query padding [2, 3] and key padding [3, 4] must be (B, T) and (B, S)"),
                         Error);
  }

  TEST_CASE("split_heads and merge_heads: head i owns features i d_k .. (i+1) d_k - 1, merge undoes split") {
    Tensor x = fill({2, 3, 6}, 1);
    Tensor heads = split_heads(Var(x), 3).value();  // (B h, L, d_k) = (6, 3, 2)
    REQUIRE(heads.shape() == Shape{6, 3, 2});
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t h = 0; h < 3; ++h)
        for (int64_t l = 0; l < 3; ++l)
          for (int64_t c = 0; c < 2; ++c) CHECK(heads.at({b * 3 + h, l, c}) == x.at({b, l, h * 2 + c}));
    CHECK(equal(merge_heads(Var(heads), 3).value(), x));
    CHECK_THROWS_WITH_AS(split_heads(Var(x), 4), doctest::Contains("split_heads: input [2, 3, 6]"), Error);
    CHECK_THROWS_WITH_AS(merge_heads(Var(heads), 4), doctest::Contains("merge_heads: input [6, 3, 2]"), Error);
  }

  TEST_CASE("multi_head_attention: T queries over S keys equal the formulas written as loops, both rules") {
    Generator gen(21);
    MultiHeadAttention layer(6, 2, gen);  // its four Linears as the projections
    randomize(layer, gen);                // out_proj's bias is not 0: a padded query's zero row is earned
    const AttentionProjections in{layer.q_proj.weight, layer.q_proj.bias, layer.k_proj.weight,
                                  layer.k_proj.bias,   layer.v_proj.weight, layer.v_proj.bias};
    Tensor query = Tensor::normal({2, 3, 6}, 0, 1, gen), kv = Tensor::normal({2, 5, 6}, 0, 1, gen);
    Tensor qpad({2, 3}, {1, 1, 1, 1, 0, 0}), kpad({2, 5}, {1, 1, 1, 1, 1, 1, 1, 1, 0, 0});
    for (PaddedQueries rule : {PaddedQueries::attend_nothing, PaddedQueries::attend_keys})
      for (bool causal : {false, true}) {
        CAPTURE(causal);
        Tensor mask = attention_mask(qpad, kpad, causal, rule);
        AttentionOutput a = multi_head_attention("test", Var(query), Var(kv), mask, in, layer.out_proj, 2);
        CHECK(a.weights.shape() == Shape{2, 2, 3, 5});
        check_close(a.output.value(), attention_by_loops(query, kv, mask, in, layer.out_proj, 2), test::tol(1e-13));
        for (int64_t t = 1; t < 3; ++t)  // sequence 1's padded queries
          for (int64_t d = 0; d < 6; ++d) {
            real v = a.output.value().at({1, t, d});
            if (rule == PaddedQueries::attend_nothing) CHECK(v == 0);
            if (rule == PaddedQueries::attend_keys) CHECK(v != 0);
          }
      }
    CHECK_THROWS_WITH_AS(multi_head_attention("TheLayer", Var(query), Var(kv), Tensor::ones({2, 3, 4}), in, layer.out_proj, 2),
                         doctest::Contains("TheLayer: query [2, 3, 6], kv [2, 5, 6] and mask [2, 3, 4] must be "
                                           "(B, T, 6), (B, S, 6), (B, T, S)"),
                         Error);
    CHECK_THROWS_WITH_AS(multi_head_attention("TheLayer", Var(query), Var(kv), Tensor::ones({2, 3, 5}), in, layer.out_proj, 4),
                         doctest::Contains("TheLayer: embed 6 and heads 4 must be positive"), Error);
  }

  TEST_CASE("gradcheck: multi_head_attention, 3 queries over 4 keys, 2 heads, causal or not, both padded-query rules" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(22);
    Linear q(4, 4, true, gen), k(4, 4, true, gen), v(4, 4, true, gen), out(4, 4, true, gen);
    for (Linear* lin : {&q, &k, &v, &out}) randomize(*lin, gen);
    const AttentionProjections in{q.weight, q.bias, k.weight, k.bias, v.weight, v.bias};
    Var query(Tensor::normal({2, 3, 4}, 0, 1, gen), true), kv(Tensor::normal({2, 4, 4}, 0, 1, gen), true);
    Tensor qpad({2, 3}, {1, 1, 1, 1, 1, 0}), kpad({2, 4}, {1, 1, 1, 1, 1, 1, 1, 0});
    std::vector<Var> inputs = with(out.parameters(), {query, kv, q.weight, q.bias, k.weight, k.bias, v.weight, v.bias});
    for (PaddedQueries rule : {PaddedQueries::attend_nothing, PaddedQueries::attend_keys})
      for (bool causal : {false, true}) {
        Tensor mask = attention_mask(qpad, kpad, causal, rule);
        GradcheckOptions opt;
        opt.name = std::string("multi_head_attention") + (causal ? " causal" : "") +
                   (rule == PaddedQueries::attend_nothing ? ", padded queries attend to nothing" : ", only keys masked");
        GradcheckReport r = gradcheck(
            [&] {
              AttentionOutput a = multi_head_attention("test", query, kv, mask, in, out, 2);
              return concat({reshape(a.output, {-1}), reshape(a.weights, {-1})}, 0);
            },
            inputs, opt);
        INFO(r.str());
        CHECK(r.ok);
      }
  }

  TEST_CASE("shape mistakes name the layer and the shapes") {
    Generator gen(0);
    SelfAttention single(4, gen);
    MultiHeadAttention multi(4, 2, gen);
    CHECK_THROWS_WITH_AS(single.forward(Var(Tensor::zeros({2, 3, 5})), Tensor::ones({2, 3})),
                         doctest::Contains("SelfAttention: input [2, 3, 5] must be (B, S, 4)"), Error);
    CHECK_THROWS_WITH_AS(multi.forward(Var(Tensor::zeros({2, 3, 4})), Tensor::ones({2, 4})),
                         doctest::Contains("MultiHeadAttention: padding mask [2, 4] must be (B, S) = [2, 3] "
                                           "for input [2, 3, 4]"),
                         Error);
    CHECK_THROWS_WITH_AS(multi.forward(Var(Tensor::zeros({3, 4})), Tensor::ones({3, 4})),
                         doctest::Contains("MultiHeadAttention: input [3, 4] must be (B, S, 4)"), Error);
    CHECK_THROWS_WITH_AS(MultiHeadAttention(6, 4, gen),
                         doctest::Contains("MultiHeadAttention: embed 6 and heads 4 must be positive, "
                                           "with heads dividing embed"),
                         Error);
    CHECK_THROWS_WITH_AS(
        scaled_dot_product_attention(Var(Tensor::zeros({1, 3, 2})), Var(Tensor::zeros({1, 4, 2})),
                                     Var(Tensor::zeros({1, 3, 2})), Tensor::ones({1, 3, 3})),
        doctest::Contains("scaled_dot_product_attention: q [1, 3, 2], k [1, 4, 2], v [1, 3, 2] and mask [1, 3, 3]"),
        Error);
    CHECK_THROWS_WITH_AS(self_attention_mask(Tensor::ones({3}), false),
                         doctest::Contains("self_attention_mask: padding [3] must be (B, S)"), Error);
  }

  TEST_CASE("parameters: names and initialisation as nn.MultiheadAttention") {
    Generator gen(2);
    MultiHeadAttention layer(8, 2, gen);
    std::vector<std::string> names;
    for (auto& [name, p] : layer.named_parameters()) names.push_back(name);
    CHECK(names == std::vector<std::string>{"q_proj.weight", "q_proj.bias", "k_proj.weight", "k_proj.bias",
                                            "v_proj.weight", "v_proj.bias", "out_proj.weight", "out_proj.bias"});
    real xavier = std::sqrt(6.0 / 32), linear = 1 / std::sqrt(8.0);
    for (const Linear* lin : {&layer.q_proj, &layer.k_proj, &layer.v_proj}) {
      for (real w : lin->weight.value().values()) CHECK(std::fabs(w) <= xavier);
      CHECK(equal(lin->bias.value(), Tensor::zeros({8})));
    }
    for (real w : layer.out_proj.weight.value().values()) CHECK(std::fabs(w) <= linear);
    CHECK(equal(layer.out_proj.bias.value(), Tensor::zeros({8})));
    // SelfAttention and MultiHeadAttention(D, 1) draw the same parameters from the same seed.
    Generator g1(5), g2(5);
    SelfAttention single(8, g1);
    MultiHeadAttention one_head(8, 1, g2);
    for (size_t i = 0; i < 8; ++i)
      CHECK(equal(single.named_parameters()[i].second.value(), one_head.named_parameters()[i].second.value()));
    MultiHeadAttention no_bias(8, 2, gen, false);
    CHECK(no_bias.named_parameters().size() == 4);
    CHECK(no_bias.num_parameters() == 4 * 64);
  }
}  // TEST_SUITE

TEST_SUITE("ch12_attention_zoo") {
  TEST_CASE("chapter 12 shows what its program prints" * DOUBLE_ONLY(kChapterTextReason)) { check_chapter("tutorials/12_attention_zoo"); }
}
