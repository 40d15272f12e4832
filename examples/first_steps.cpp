// First steps with heed: a gradient by autograd, then a Linear layer fitted by Adam.
// Build against an installed heed:  g++ -O2 first_steps.cpp $(pkg-config --cflags --libs heed)
#include <cstdio>

#include <heed/autograd/functions.h>
#include <heed/nn/linear.h>
#include <heed/nn/loss.h>
#include <heed/nn/optim.h>

using namespace heed;

int main() {
  Var w(Tensor::scalar(3), /*requires_grad=*/true);
  Var f = w * w + 2 * w;  // f(w) = w^2 + 2w, so df/dw = 2w + 2 = 8 at w = 3
  f.backward();
  std::printf("f(3) = %g, df/dw = %g\n", f.item(), w.grad().item());

  Generator gen(1);  // a fixed seed: every run the same
  Tensor x = Tensor::uniform({64, 2}, -1, 1, gen), y = Tensor::zeros({64, 1});
  for (int64_t i = 0; i < 64; ++i) y[i] = 3 * x[2 * i] - 2 * x[2 * i + 1] + 1;  // y = 3a - 2b + 1

  Linear layer(2, 1, /*bias=*/true, gen);
  Adam adam(layer.parameters(), /*lr=*/0.1);
  for (int step = 0; step <= 200; ++step) {
    Var loss = mse(layer.forward(Var(x)), Var(y));
    adam.zero_grad();
    loss.backward();
    adam.step();
    if (step % 40 == 0) std::printf("step %3d  loss %.3g\n", step, loss.item());
  }
  const Tensor& W = layer.weight.value();
  std::printf("learned y = %.3f a %+.3f b %+.3f\n", W[0], W[1], layer.bias.value()[0]);
}
