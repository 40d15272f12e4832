// Chapter 02: automatic differentiation. A tiny neuron is differentiated twice, once by hand with
// the chain rule and once by backward(), and the two are compared. Prints every section in order,
// or only those named: by-hand, automatic, graph, reuse, no-grad, descent.
// --quick is accepted (every chapter takes it) and changes nothing: this chapter is instant.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "autograd/dot.h"
#include "autograd/functions.h"
#include "io/atomic_file.h"
#include "viz/diagram.h"
#include "viz/svg.h"

using namespace heed;

namespace {

// The neuron's inputs, weights, bias and target.
const real kX1 = 1.5, kX2 = -0.5, kW1 = 0.8, kW2 = 2.0, kB = 0.1, kTarget = 0.8;

struct Grads {
  real x1, x2, w1, w2, b;
};

Grads by_hand(bool print) {
  real x1 = kX1, x2 = kX2, w1 = kW1, w2 = kW2, b = kB, t = kTarget;
  // forward: one line per node of the graph
  real n = w1 * x1 + w2 * x2 + b;
  real y = std::tanh(n);
  real loss = (y - t) * (y - t);
  // backward: each local derivative times the gradient arriving from above
  real dy = 2 * (y - t);       // loss = (y - t)^2
  real dn = (1 - y * y) * dy;  // y = tanh(n), tanh'(n) = 1 - tanh(n)^2
  real dw1 = x1 * dn, dx1 = w1 * dn;  // n = w1 x1 + w2 x2 + b
  real dw2 = x2 * dn, dx2 = w2 * dn;
  real db = dn;
  if (print) {
    std::printf("forward:  n = %.6f   y = tanh(n) = %.6f   loss = (y - %.1f)^2 = %.6f\n", n, y, t, loss);
    std::printf("backward: dloss/dy = %.6f   dloss/dn = %.6f\n", dy, dn);
    std::printf("          dw1 = %.6f   dw2 = %.6f   db = %.6f\n", dw1, dw2, db);
    std::printf("          dx1 = %.6f   dx2 = %.6f\n", dx1, dx2);
  }
  return {dx1, dx2, dw1, dw2, db};
}

void by_hand_section() { by_hand(true); }

void automatic() {
  Var x1(Tensor::scalar(kX1), true), x2(Tensor::scalar(kX2), true);
  Var w1(Tensor::scalar(kW1), true), w2(Tensor::scalar(kW2), true), b(Tensor::scalar(kB), true);
  Var y = tanh(w1 * x1 + w2 * x2 + b);
  Var loss = (y - kTarget) * (y - kTarget);
  loss.backward();

  Grads hand = by_hand(false);
  std::printf("loss = %.6f\n", loss.item());
  std::printf("       %-17s%-17s%s\n", "by hand", "backward()", "|difference|");
  auto row = [](const char* name, real h, const Var& v) {
    real diff = std::fabs(v.grad().item() - h);
    // Below 1e-15 the two differ at most in the last bit or two, where rounding happens.
    std::printf("d%-4s  %+.12f  %+.12f  %s\n", name, h, v.grad().item(), diff < 1e-15 ? "< 1e-15" : "LARGE");
  };
  row("w1", hand.w1, w1);
  row("w2", hand.w2, w2);
  row("b", hand.b, b);
  row("x1", hand.x1, x1);
  row("x2", hand.x2, x2);
}

void graph() {
  Var x1(Tensor::scalar(kX1), true), x2(Tensor::scalar(kX2), true);
  Var w1(Tensor::scalar(kW1), true), w2(Tensor::scalar(kW2), true), b(Tensor::scalar(kB), true);
  Var y = tanh(w1 * x1 + w2 * x2 + b);
  Var d = y - kTarget;
  Var loss = d * d;
  std::cout << to_dot(loss, {{x1.node(), "x1"}, {x2.node(), "x2"}, {w1.node(), "w1"}, {w2.node(), "w2"},
                             {b.node(), "b"}, {y.node(), "y"}, {d.node(), "d"}, {loss.node(), "loss"}});
}

void reuse() {
  Var x(Tensor::scalar(3), true);
  Var f = x * x + x;  // df/dx = 2x + 1 = 7
  f.backward();
  std::printf("f = x*x + x at x = 3:  df/dx = %g\n", x.grad().item());
  f.backward();
  std::printf("backward() again:      df/dx = %g   (gradients add up)\n", x.grad().item());
  x.zero_grad();
  f.backward();
  std::printf("zero_grad(), backward: df/dx = %g\n", x.grad().item());
}

void no_grad() {
  Var w(Tensor({2}, {0.5, -1.0}), true);
  Var x(Tensor({2}, {2.0, 3.0}));
  int64_t before = Node::live_count();
  Var y = tanh(sum(w * x));
  std::printf("recording:    y = %.6f   new nodes alive: %lld   y.inputs: %zu\n", y.item(),
              static_cast<long long>(Node::live_count() - before), y.num_inputs());
  {
    NoGradGuard no_grad;
    before = Node::live_count();
    Var z = tanh(sum(w * x));
    std::printf("NoGradGuard:  z = %.6f   new nodes alive: %lld   z.inputs: %zu\n", z.item(),
                static_cast<long long>(Node::live_count() - before), z.num_inputs());
  }
  Var c = y.detach();
  std::printf("y.detach():   c = %.6f   requires_grad: %s\n", c.item(), c.requires_grad() ? "true" : "false");
}

void descent() {
  Var x1(Tensor::scalar(kX1)), x2(Tensor::scalar(kX2));  // data: no gradient needed
  Var w1(Tensor::scalar(kW1), true), w2(Tensor::scalar(kW2), true), b(Tensor::scalar(kB), true);
  const real lr = 0.2;
  for (int step = 0; step <= 5; ++step) {
    Var y = tanh(w1 * x1 + w2 * x2 + b);
    Var loss = (y - kTarget) * (y - kTarget);
    std::printf("step %d: y = %.6f  loss = %.8f\n", step, y.item(), loss.item());
    for (Var* p : {&w1, &w2, &b}) p->zero_grad();
    loss.backward();
    for (Var* p : {&w1, &w2, &b}) p->value()[0] -= lr * p->grad()[0];  // a step downhill
  }
}

// The chapter's figure: the graph `graph()` prints as DOT, drawn by heed's own viz/diagram.
void figures(const std::string& dir) {
  Var x1(Tensor::scalar(kX1), true), x2(Tensor::scalar(kX2), true);
  Var w1(Tensor::scalar(kW1), true), w2(Tensor::scalar(kW2), true), b(Tensor::scalar(kB), true);
  Var y = tanh(w1 * x1 + w2 * x2 + b);
  Var d = y - kTarget;
  Var loss = d * d;
  Diagram g = graph_diagram(loss, {{x1.node(), "x1"}, {x2.node(), "x2"}, {w1.node(), "w1"}, {w2.node(), "w2"},
                                   {b.node(), "b"}, {y.node(), "y"}, {d.node(), "d"}, {loss.node(), "loss"}},
                            "loss = (tanh(w1 x1 + w2 x2 + b) - 0.8)^2, as autograd recorded it");
  g.caption = "leaves shaded; an arrow runs from each input to the op that used it (d is used twice)";
  const std::string path = dir + "/computation_graph.svg";
  write_text_file(path, svg_diagram(g));
  std::printf("wrote %s\n", path.c_str());
}

struct Section {
  const char* name;
  void (*run)();
};

const Section kSections[] = {{"by-hand", by_hand_section}, {"automatic", automatic}, {"graph", graph},
                             {"reuse", reuse},             {"no-grad", no_grad},     {"descent", descent}};

}  // namespace

int main(int argc, char** argv) {
  heed::tune_allocator();  // keep freed tensors with the process (tensor/tensor.h)
  if (argc > 1 && std::strcmp(argv[1], "figures") == 0) {  // figures [DIR]
    figures(argc > 2 ? argv[2] : "build/ch02");
    return 0;
  }
  std::vector<const Section*> chosen;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) continue;
    const Section* found = nullptr;
    for (const Section& s : kSections)
      if (argv[i] == std::string(s.name)) found = &s;
    if (!found) {
      std::fprintf(stderr, "tutorial-02: unknown section '%s' (by-hand, automatic, graph, reuse, no-grad, "
                   "descent)\n", argv[i]);
      return 2;
    }
    chosen.push_back(found);
  }
  if (chosen.empty())
    for (const Section& s : kSections) chosen.push_back(&s);
  for (size_t i = 0; i < chosen.size(); ++i) {
    if (chosen.size() > 1) std::cout << (i ? "\n" : "") << "== " << chosen[i]->name << "\n";
    chosen[i]->run();
  }
}
