// The graph refuses to give a silently wrong gradient: node order is one count for the whole
// process (a graph built on two threads still runs backward in the right order), and a value
// changed in place between an op's forward and its backward makes that backward throw, naming
// the op and the input.
#include <doctest/doctest.h>

#include <thread>

#include "autograd/functions.h"
#include "nn/linear.h"
#include "nn/optim.h"

using namespace heed;

TEST_SUITE("ch02_autograd") {
  TEST_CASE("a graph built on two threads: a = 2x here, b = 3a on another thread, db/dx = 6") {
    Var x(Tensor::scalar(1.5), true);
    Var a = x * 2.0;
    Var b;
    std::thread t([&] { b = a * 3.0; });  // a per-thread count would number b before a
    t.join();
    b.backward();
    CHECK(x.grad().item() == 6);
  }

  TEST_CASE("many threads building parts of one graph: every node after its inputs") {
    Var x(Tensor::scalar(2.0), true);
    Var y = x;
    for (int k = 0; k < 8; ++k) {
      std::thread t([&] { y = y * 2.0 + 1.0; });  // each thread extends the chain
      t.join();
      y = tanh(y * 0.001);
    }
    y.backward();
    // The same chain on one thread gives the same gradient, bit for bit.
    Var x1(Tensor::scalar(2.0), true);
    Var y1 = x1;
    for (int k = 0; k < 8; ++k) y1 = tanh((y1 * 2.0 + 1.0) * 0.001);
    y1.backward();
    CHECK(x.grad().item() == x1.grad().item());
    CHECK(x.grad().item() != 0);
  }

  TEST_CASE("an input changed in place before backward: backward throws, naming the op and the input") {
    Var x(Tensor({2}, {1, 2}), true), w(Tensor({2}, {3, 4}), true);
    Var y = sum(x * w);
    w.value()[0] = 5;  // mul saved w (its derivative for x)
    CHECK_THROWS_WITH_AS(y.backward(), doctest::Contains("backward of mul: input 1 (a leaf, [2]) was changed in place"),
                         Error);
  }

  TEST_CASE("an op's own saved output changed in place: backward throws, naming the op") {
    Var x(Tensor({3}, {0.1, 0.2, 0.3}), true);
    Var y = tanh(x);  // tanh's backward reads y: dx = (1 - y^2) dy
    y.value()[1] = 0;
    CHECK_THROWS_WITH_AS(sum(y).backward(), doctest::Contains("backward of tanh: its output (the output of tanh, [3])"),
                         Error);
  }

  TEST_CASE("an optimiser step between forward and backward: backward throws, naming the op") {
    Generator gen(7);
    Linear lin(3, 2, true, gen);
    Var x(Tensor::normal({4, 3}, 0, 1, gen));
    Var loss = sum(lin.forward(x) * lin.forward(x));
    Var extra = sum(lin.forward(x));  // a first backward, so the step has gradients to apply
    extra.backward();
    SGD opt(lin.parameters(), 0.1);
    opt.step();  // changes the weight that loss's graph used
    CHECK_THROWS_WITH_AS(loss.backward(), doctest::Contains("backward of linear: input 1"), Error);
  }

  TEST_CASE("changes before the forward, or after backward, are fine; reading through a const Var is no change") {
    Var x(Tensor({2}, {1, 2}), true), w(Tensor({2}, {3, 4}), true);
    w.value()[0] = 5;  // before the graph is built
    Var y = sum(x * w);
    const Var& cw = w;
    CHECK(cw.value()[0] == 5);  // a read
    y.backward();
    CHECK(x.grad()[0] == 5);
    w.value()[0] = 6;  // after backward: the next graph sees it
    x.zero_grad();
    sum(x * w).backward();
    CHECK(x.grad()[0] == 6);
  }
}
