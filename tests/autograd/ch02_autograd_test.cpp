// Chapter 02: Var, the graph and backward(). Gradients here are worked out by hand with the
// chain rule; chapter 03's tests check every op numerically with gradcheck.
#include <doctest/doctest.h>

#include <pthread.h>

#include <cmath>

#include "autograd/dot.h"
#include "autograd/functions.h"
#include "tests/support/chapter_check.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

Tensor t1(std::vector<real> v) { return Tensor({static_cast<int64_t>(v.size())}, v); }
Tensor t2(int64_t r, int64_t c, std::vector<real> v) { return Tensor({r, c}, std::move(v)); }
Var leaf(Tensor t) { return Var(std::move(t), true); }

}  // namespace

TEST_SUITE("ch02_autograd") {
  TEST_CASE("a leaf holds its value; its gradient is zero until backward") {
    Var x(t1({1, 2}), true);
    CHECK(x.defined());
    CHECK(x.requires_grad());
    CHECK(std::string(x.op()) == "leaf");
    CHECK(equal(x.value(), t1({1, 2})));
    CHECK(equal(x.grad(), t1({0, 0})));
    Var c(Tensor::scalar(3));
    CHECK(!c.requires_grad());
    CHECK(c.item() == 3);
    Var empty;
    CHECK(!empty.defined());
    CHECK_THROWS_WITH_AS(empty.value(), "Var: use of an empty Var", Error);
  }

  TEST_CASE("a tiny neuron: backward() agrees with the chain rule done by hand") {
    // y = tanh(x1 w1 + x2 w2 + b). By hand: n = 1.5 * 0.8 + (-0.5) * 2 + 0.1 = 0.3,
    // dy/dn = 1 - tanh(n)^2, and dn/dw1 = x1, dn/dx1 = w1, dn/db = 1.
    Var x1 = leaf(Tensor::scalar(1.5)), x2 = leaf(Tensor::scalar(-0.5));
    Var w1 = leaf(Tensor::scalar(0.8)), w2 = leaf(Tensor::scalar(2.0)), b = leaf(Tensor::scalar(0.1));
    Var y = tanh(x1 * w1 + x2 * w2 + b);
    y.backward();
    real n = 1.5 * 0.8 + -0.5 * 2.0 + 0.1, dn = 1 - std::tanh(n) * std::tanh(n);
    CHECK(y.item() == doctest::Approx(std::tanh(0.3)).epsilon(test::tol(1e-15)));
    CHECK(w1.grad().item() == doctest::Approx(1.5 * dn).epsilon(test::tol(1e-15)));
    CHECK(w2.grad().item() == doctest::Approx(-0.5 * dn).epsilon(1e-15));
    CHECK(x1.grad().item() == doctest::Approx(0.8 * dn).epsilon(1e-15));
    CHECK(x2.grad().item() == doctest::Approx(2.0 * dn).epsilon(1e-15));
    CHECK(b.grad().item() == doctest::Approx(dn).epsilon(1e-15));
  }

  TEST_CASE("every differentiable op computes the same value as its tensor kernel") {
    Tensor a = t2(2, 3, {0.5, 1, 1.5, 2, 2.5, 3}), r = t1({1, 2, 4});
    Var va = leaf(a), vr = leaf(r);
    CHECK(equal(neg(va).value(), neg(a)));
    CHECK(equal(exp(va).value(), exp(a)));
    CHECK(equal(log(va).value(), log(a)));
    CHECK(equal(tanh(va).value(), tanh(a)));
    CHECK(equal(sigmoid(va).value(), sigmoid(a)));
    CHECK(equal(relu(va).value(), relu(a)));
    CHECK(equal(sqrt(va).value(), sqrt(a)));
    CHECK(equal(pow(va, 3).value(), pow(a, 3)));
    CHECK(equal((va + vr).value(), add(a, r)));
    CHECK(equal((va - vr).value(), sub(a, r)));
    CHECK(equal((va * vr).value(), mul(a, r)));
    CHECK(equal((va / vr).value(), div(a, r)));
    CHECK(equal((va + 2).value(), add(a, 2)));
    CHECK(equal((2 + va).value(), add(a, 2)));
    CHECK(equal((va - 2).value(), add(a, -2)));
    CHECK(equal((2 - va).value(), t2(2, 3, {1.5, 1, 0.5, 0, -0.5, -1})));
    CHECK(equal((va * 3).value(), mul(a, 3)));
    CHECK(equal((3 * va).value(), mul(a, 3)));
    CHECK(equal((va / 2).value(), mul(a, 0.5)));
    CHECK(equal((-va).value(), neg(a)));
    CHECK(equal(sum(va).value(), sum(a)));
    CHECK(equal(sum(va, 1, true).value(), sum(a, 1, true)));
    CHECK(equal(mean(va).value(), mean(a)));
    CHECK(equal(mean(va, 0).value(), mean(a, 0)));
    CHECK(equal(max(va).value(), max(a)));
    CHECK(equal(max(va, 1).value(), max(a, 1)));
    CHECK(equal(matmul(va, transpose(va)).value(), matmul_nt(a, a)));
    CHECK(equal(matmul_nt(va, va).value(), matmul_nt(a, a)));
    CHECK(equal(matmul_tn(va, va).value(), matmul_tn(a, a)));
    CHECK(equal(transpose(va).value(), transpose(a)));
    CHECK(equal(reshape(va, {3, -1}).value(), reshape(a, {3, 2})));
    CHECK(equal(concat({va, va}, 1).value(), concat({a, a}, 1)));
    CHECK(equal(stack({va, va}, 1).value(), stack({a, a}, 1)));
    CHECK(equal(slice(va, 1, 1, 3).value(), slice(a, 1, 1, 3)));
    CHECK(equal(index_select(va, {1, 1, 0}).value(), index_select(a, {1, 1, 0})));
    CHECK(equal(softmax(va, 1).value(), softmax(a, 1)));
    CHECK(equal(log_softmax(va, 0).value(), log_softmax(a, 0)));
    Tensor mask = t1({0, 1, 0});
    CHECK(equal(masked_fill(va, mask, -5).value(), masked_fill(a, mask, -5)));
  }

  TEST_CASE("a value used twice gets both contributions: x * x and a + a") {
    Var x = leaf(t1({3, -2}));
    sum(x * x).backward();
    CHECK(equal(x.grad(), t1({6, -4})));  // d(x^2)/dx = 2x
    Var a = leaf(t1({1, 5}));
    sum(a + a).backward();
    CHECK(equal(a.grad(), t1({2, 2})));
    // A diamond: u = z + 1 feeds both factors of u * u, so u's gradient has two parts and must
    // be complete before it flows on to z. d/dz (z+1)^2 z = 2(z+1)z + (z+1)^2 = 12 + 9 at z = 2.
    Var z = leaf(Tensor::scalar(2));
    Var u = z + 1;
    (u * u * z).backward();
    CHECK(z.grad().item() == 2 * 3 * 2 + 3 * 3);
  }

  TEST_CASE("broadcast inputs get their gradient summed back to their own shape") {
    // [2, 3] + [3]: the bias row is added to both rows, so each of its elements collects 2 dy.
    Var a = leaf(Tensor::zeros({2, 3})), bias = leaf(t1({1, 2, 3}));
    sum(a + bias).backward();
    CHECK(equal(bias.grad(), t1({2, 2, 2})));
    CHECK(equal(a.grad(), Tensor::ones({2, 3})));
    // [2, 1] * [1, 4]: y_ij = u_i v_j, so du_i = sum_j v_j and dv_j = sum_i u_i.
    Var u = leaf(t2(2, 1, {1, 2})), v = leaf(t2(1, 4, {1, 10, 100, 1000}));
    sum(u * v).backward();
    CHECK(equal(u.grad(), t2(2, 1, {1111, 1111})));
    CHECK(equal(v.grad(), t2(1, 4, {3, 3, 3, 3})));
    // A 0-d scalar times a matrix: its gradient is the sum of the matrix.
    Var s = leaf(Tensor::scalar(2)), m = leaf(t2(2, 2, {1, 2, 3, 4}));
    sum(s * m).backward();
    CHECK(s.grad().item() == 10);
    CHECK(s.grad().shape().empty());
  }

  TEST_CASE("gradients by hand for reductions, matmul and layout") {
    Var x = leaf(t2(2, 3, {1, 5, 3, 4, 2, 6}));
    mean(x).backward();
    CHECK(allclose(x.grad(), Tensor::full({2, 3}, 1.0 / 6)));
    x.zero_grad();
    sum(max(x, 1)).backward();  // the gradient goes to each row's maximum: 5 and 6
    CHECK(equal(x.grad(), t2(2, 3, {0, 1, 0, 0, 0, 1})));
    x.zero_grad();
    Var tie = leaf(t1({2, 7, 7}));
    max(tie).backward();
    CHECK(equal(tie.grad(), t1({0, 1, 0})));  // the first of a tie, as torch.max(x, dim)
    // d sum(A B) / dA = 1 B^T: every row of dA is the row sums of B.
    Var A = leaf(t2(2, 3, {1, 2, 3, 4, 5, 6})), B = leaf(t2(3, 2, {1, 2, 3, 4, 5, 6}));
    sum(matmul(A, B)).backward();
    CHECK(equal(A.grad(), t2(2, 3, {3, 7, 11, 3, 7, 11})));
    CHECK(equal(B.grad(), t2(3, 2, {5, 5, 7, 7, 9, 9})));  // column sums of A, repeated
    // slice and index_select send gradients only to the elements they read (repeats add up).
    Var r = leaf(t1({1, 2, 3, 4}));
    (sum(slice(r, 0, 1, 3)) + sum(index_select(r, {3, 3, 0}))).backward();
    CHECK(equal(r.grad(), t1({1, 1, 1, 2})));
    // masked_fill: filled positions receive nothing.
    Var f = leaf(t1({1, 2, 3}));
    sum(masked_fill(f, t1({0, 1, 0}), 100)).backward();
    CHECK(equal(f.grad(), t1({1, 0, 1})));
    // softmax: its outputs always sum to one, so the gradient of that sum is zero.
    Var s = leaf(t1({0.3, -1, 2}));
    sum(softmax(s, 0)).backward();
    CHECK(allclose(s.grad(), Tensor::zeros({3}), 0, 1e-15));
  }

  TEST_CASE("a small classifier's loss and gradients equal PyTorch's" * DOUBLE_ONLY(kPytorchFp64Reason)) {
    // Golden values from PyTorch 1.13 in float64:
    //   x = [[0.1,-0.2,0.3],[0.4,0.5,-0.6]]; W = [[1,2,0.5],[-1,0.5,0.25],[0.3,-0.7,2]]
    //   b = [0.1,-0.1,0.2]; onehot = [[0,1,0],[1,0,0]]   (all requires_grad except onehot)
    //   loss = -(torch.log_softmax(torch.tanh(x @ W + b), 1) * onehot).sum() / 2; loss.backward()
    Var x = leaf(t2(2, 3, {0.1, -0.2, 0.3, 0.4, 0.5, -0.6}));
    Var W = leaf(Tensor({3, 3}, {1, 2, 0.5, -1, 0.5, 0.25, 0.3, -0.7, 2}));
    Var b = leaf(t1({0.1, -0.1, 0.2}));
    Var onehot(t2(2, 3, {0, 1, 0, 1, 0, 0}));
    Var loss = -sum(log_softmax(tanh(matmul(x, W) + b), 1) * onehot) / 2;
    loss.backward();
    // rtol 1e-12: the two libraries round differently in the last bits, nowhere else.
    CHECK(loss.item() == doctest::Approx(1.5928667710135098).epsilon(1e-12));
    CHECK(allclose(x.grad(),
                   t2(2, 3, {-0.5704446426236848, -0.30734078451351665, 0.566189137573418, -0.20922251733577435,
                             0.4255648851105602, -0.06823332639363647}),
                   1e-12, 1e-15));
    CHECK(allclose(W.grad(),
                   Tensor({3, 3}, {-0.13657501637234287, -0.009992173265394429, 0.03165178341290699,
                                   -0.21762365504255443, 0.11384743606854626, -0.001187094475376578,
                                   0.2698077493576116, -0.15994079761769353, 0.008947926984269182}),
                   1e-12, 1e-15));
    CHECK(allclose(b.grad(), t1({-0.23319549959902827, -0.3165288623564614, 0.17317212870498358}), 1e-12, 1e-15));
  }

  TEST_CASE("backward twice adds twice; zero_grad starts again") {
    Var x = leaf(Tensor::scalar(3));
    Var y = x * x;  // dy/dx = 6
    y.backward();
    CHECK(x.grad().item() == 6);
    y.backward();
    CHECK(x.grad().item() == 12);
    x.zero_grad();
    CHECK(x.grad().item() == 0);
    y.backward();
    CHECK(x.grad().item() == 6);
  }

  TEST_CASE("inner gradients are dropped after backward unless retained") {
    Var x = leaf(t1({1, 2}));
    Var h = x * 3;
    Var k = x * 4;
    k.retain_grad();
    sum(h * h + k).backward();
    CHECK(!h.has_grad());  // freed as soon as it has been passed on
    CHECK(equal(k.grad(), t1({1, 1})));
    CHECK(equal(x.grad(), t1({2 * 9 * 1 + 4, 2 * 9 * 2 + 4})));  // d(9x^2 + 4x)/dx = 18x + 4
  }

  TEST_CASE("backward: a non-scalar output needs a seed of its own shape") {
    Var x = leaf(t1({1, 2}));
    Var y = x * 2;
    CHECK_THROWS_WITH_AS(y.backward(), "backward: output of shape [2] is not a scalar; pass a seed gradient", Error);
    CHECK_THROWS_WITH_AS(y.backward(t1({1, 1, 1})), "backward: seed [3] for output [2]", Error);
    y.backward(t1({1, 10}));
    CHECK(equal(x.grad(), t1({2, 20})));
    Var c(t1({1}));
    CHECK_THROWS_WITH_AS((c * 2).backward(), "backward: the output of leaf does not require grad", Error);
    CHECK_THROWS_WITH_AS(y.set_requires_grad(false), doctest::Contains("only a leaf can change it"), Error);
  }

  TEST_CASE("only what requires grad gets a gradient, and only then is a graph recorded") {
    Var x = leaf(t1({1, 2}));
    Var c(t1({3, 4}));  // a constant
    Var y = sum(x * c);
    CHECK(y.requires_grad());
    y.backward();
    CHECK(equal(x.grad(), t1({3, 4})));
    CHECK(!c.has_grad());
    Var z = c * c;  // nothing requires grad: a plain value, no graph
    CHECK(!z.requires_grad());
    CHECK((z.num_inputs() == 0));
    CHECK(std::string(z.op()) == "leaf");
    c.set_requires_grad(true);
    Var w = c * c;
    CHECK(w.num_inputs() == 2);
  }

  TEST_CASE("detach cuts the graph: the same value, no gradient through it") {
    Var x = leaf(Tensor::scalar(2));
    Var d = (x * x).detach();
    CHECK(d.item() == 4);
    CHECK(!d.requires_grad());
    CHECK((d.num_inputs() == 0));
    Var y = x * d;  // d is a constant 4 here
    y.backward();
    CHECK(x.grad().item() == 4);
  }

  TEST_CASE("NoGradGuard: no graph is recorded while it lives") {
    Var x = leaf(t1({0.5, -1})), w = leaf(t1({2, 3})), b = leaf(t1({0.1, 0.2}));
    CHECK(grad_enabled());
    int64_t before = Node::live_count();
    {
      NoGradGuard guard;
      CHECK(!grad_enabled());
      Var y = tanh(x * w + b);
      CHECK(!y.requires_grad());
      CHECK((y.num_inputs() == 0));
      CHECK(y.is_leaf());
      CHECK(Node::live_count() - before == 1);  // only y: its temporaries are already gone
      {
        NoGradGuard nested;
      }
      CHECK(!grad_enabled());  // the inner guard restores the outer one's state
    }
    CHECK(grad_enabled());
    Var y = tanh(x * w + b);
    CHECK(Node::live_count() - before == 3);  // mul, add and tanh, held by y
    CHECK(y.num_inputs() == 1);
  }

  TEST_CASE("a chain of 100,000 ops: forward, backward and destruction without recursion") {
    // y = x * c * c * ... (100,000 times) with c = 1 + 1e-6, so dy/dx = c^100000.
    // It runs on a thread with a 256 KiB stack: any recursion over the chain (in backward or in
    // freeing it) needs at least 16 bytes a level, 1.6 MB, and crashes the test loudly.
    struct Result {
      int64_t before = 0, built = 0, after = 0;
      real grad = 0;
    } r;
    auto chain = [](void* arg) -> void* {
      Result& r = *static_cast<Result*>(arg);
      r.before = Node::live_count();
      const real c = 1 + 1e-6;
      Var x = leaf(Tensor::scalar(1));
      {
        Var y = x;
        for (int i = 0; i < 100000; ++i) y = y * c;
        r.built = Node::live_count() - r.before;
        y.backward();
        r.grad = x.grad().item();
      }  // y, the last owner of the chain, dies here
      r.after = Node::live_count() - r.before;
      return nullptr;
    };
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pthread_t thread;
    REQUIRE(pthread_create(&thread, &attr, chain, &r) == 0);
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attr);
    CHECK(r.built == 100000 + 1);  // x and one node per op
    // (1 + 1e-6 as real: in float it is 1 + 8 * 2^-23.)
    CHECK(r.grad == doctest::Approx(std::pow(static_cast<double>(real(1 + 1e-6)), 100000)).epsilon(test::tol(1e-12)));
    CHECK(r.after == 1);  // only x
  }

  TEST_CASE("no leaks: dropped graphs free every node") {
    int64_t before = Node::live_count();
    {
      Var x = leaf(t2(2, 3, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6})), w = leaf(t2(3, 2, {1, 2, 3, 4, 5, 6}));
      Var h = tanh(matmul(x, w));
      Var loss = sum(log_softmax(concat({h, h * h}, 1), 1)) + mean(x) * mean(x);  // reuse of h and mean(x)
      loss.backward();
      loss.backward();
      Var d = loss.detach();
      CHECK(Node::live_count() > before);
    }
    CHECK(Node::live_count() == before);
  }

  TEST_CASE("to_dot draws every node with its op and shape, and every edge") {
    Var x = leaf(t1({1, 2})), w = leaf(t1({3, 4}));
    Var y = sum(x * w);
    std::string dot = to_dot(y, {{x.node(), "x"}, {w.node(), "w"}});
    CHECK(dot ==
          "digraph heed {\n"
          "  rankdir=BT;\n"
          "  node [shape=box, fontname=\"monospace\"];\n"
          "  n0 [label=\"sum\\n[]\"];\n"
          "  n1 [label=\"mul\\n[2]\"];\n"
          "  n2 [label=\"x (leaf)\\n[2]\", style=rounded];\n"
          "  n3 [label=\"w (leaf)\\n[2]\", style=rounded];\n"
          "  n1 -> n0;\n"
          "  n2 -> n1;\n"
          "  n3 -> n1;\n"
          "}\n");
  }

  TEST_CASE("shape mistakes in differentiable ops name the op and the shapes") {
    Var a = leaf(Tensor::zeros({2, 3})), b = leaf(Tensor::zeros({2}));
    CHECK_THROWS_WITH_AS(a + b, "add: shapes [2, 3] and [2] do not broadcast (axis 1: 3 vs 2)", Error);
    CHECK_THROWS_WITH_AS(a - b, doctest::Contains("sub: shapes [2, 3] and [2]"), Error);
    CHECK_THROWS_WITH_AS(a * b, doctest::Contains("mul: shapes [2, 3] and [2]"), Error);
    CHECK_THROWS_WITH_AS(a / b, doctest::Contains("div: shapes [2, 3] and [2]"), Error);
    CHECK_THROWS_WITH_AS(sum(a, 2), "sum: axis 2 out of range for shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(mean(a, 2), "mean: axis 2 out of range for shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(mean(leaf(Tensor::zeros({0}))), "mean: tensor of shape [0] is empty", Error);
    CHECK_THROWS_WITH_AS(max(a, -3), "max: axis -3 out of range for shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(matmul(a, a), "matmul: [2, 3] x [2, 3]: inner sizes 3 and 2 differ", Error);
    CHECK_THROWS_WITH_AS(matmul_nt(a, leaf(Tensor::zeros({3, 2}))),
                         "matmul_nt: [2, 3] x [3, 2]: inner sizes 3 and 2 differ", Error);
    CHECK_THROWS_WITH_AS(matmul_tn(a, leaf(Tensor::zeros({3, 2}))),
                         "matmul_tn: [2, 3] x [3, 2]: inner sizes 2 and 3 differ", Error);
    CHECK_THROWS_WITH_AS(transpose(b), "transpose: needs at least 2 axes, got shape [2]", Error);
    CHECK_THROWS_WITH_AS(reshape(a, {4}), "reshape: [2, 3] to [4]: element counts differ", Error);
    CHECK_THROWS_WITH_AS(concat({a, b}, 0), "concat: shapes [2, 3] and [2] differ off axis 0", Error);
    CHECK_THROWS_WITH_AS(concat({a}, 2), "concat: axis 2 out of range for shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(stack({a, b}, 0), "stack: shapes [2, 3] and [2] differ", Error);
    CHECK_THROWS_WITH_AS(stack({a}, 3), "stack: axis 3 out of range for stacking tensors of shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(slice(a, 1, 2, 4), "slice: [2, 4) out of range for axis 1 of shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(slice(a, 2, 0, 1), "slice: axis 2 out of range for shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(index_select(a, {5}), "index_select: index 5 out of range for 2 rows of shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(softmax(a, 2), "softmax: axis 2 out of range for shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(log_softmax(a, 2), "log_softmax: axis 2 out of range for shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(masked_fill(a, Tensor::zeros({4}), 0), doctest::Contains("masked_fill: shapes [2, 3] and [4]"),
                         Error);
  }

  TEST_CASE("chapter 02 shows what its program prints" * DOUBLE_ONLY(kChapterTextReason)) { check_chapter("tutorials/02_autograd"); }
}
