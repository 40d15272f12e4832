// A Sequential network learns XOR's picture: points of the square [-1, 1]^2 are class 1 where
// x and y have the same sign and class 0 where they differ, which no straight line separates.
// Linear -> tanh -> Linear -> tanh -> Linear, trained with Adam on cross-entropy, then asked
// about points it never saw.
// Build against an installed heed:  g++ -O2 sequential.cpp $(pkg-config --cflags --libs heed)
#include <cstdio>
#include <vector>

#include <heed/heed.h>

using namespace heed;

// n points (n, 2) and their classes (n).
void draw(int64_t n, Generator& gen, Tensor& points, std::vector<int64_t>& classes) {
  points = Tensor::uniform({n, 2}, -1, 1, gen);
  classes.assign(n, 0);
  for (int64_t i = 0; i < n; ++i) classes[i] = points[2 * i] * points[2 * i + 1] > 0;
}

int main() {
  Generator gen(1);
  Sequential net;
  net.add<Linear>(2, 16, /*bias=*/true, gen);
  net.add(tanh);
  net.add<Linear>(16, 16, true, gen);
  net.add(tanh);
  net.add<Linear>(16, 2, true, gen);  // (N, 2): a score per class
  for (const auto& [name, p] : net.named_parameters()) std::printf("%s %s\n", name.c_str(), shape_str(p.shape()).c_str());

  Adam adam(net.parameters(), /*lr=*/0.01);
  Tensor x;
  std::vector<int64_t> y;
  for (int step = 1; step <= 500; ++step) {
    draw(64, gen, x, y);
    Var loss = cross_entropy(net.forward(Var(x)), y);
    adam.zero_grad();
    loss.backward();
    adam.step();
    if (step == 1 || step % 100 == 0) std::printf("step %3d  loss %.4f\n", step, loss.item());
  }

  draw(1000, gen, x, y);
  const std::vector<int64_t> guess = argmax_indices(net.forward(Var(x)).value(), 1);  // (1000) classes
  int right = 0;
  for (size_t i = 0; i < y.size(); ++i) right += guess[i] == y[i];
  std::printf("new points classified right: %d of 1000\n", right);
}
