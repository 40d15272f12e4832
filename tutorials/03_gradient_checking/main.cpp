// Chapter 03: gradient checking. Finite differences and their errors, gradcheck on a small layer,
// a wrong backward caught red-handed, and a kink. Prints every section in order, or only those
// named: differences, gradcheck, wrong, kink.
// --quick is accepted (every chapter takes it) and changes nothing: this chapter is instant.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "io/atomic_file.h"
#include "tensor/random.h"
#include "viz/svg.h"

using namespace heed;

namespace {

// f(x) = exp(x) at x = 1, whose derivative is exactly e. `float` appears on purpose, to show
// what single precision does to a difference quotient; everything else in heed is heed::real.
void differences() {
  const real x = 1, exact = std::exp(1.0);
  const float xf = 1;
  std::printf("relative error of each estimate of f'(1) for f = exp\n");
  std::printf("  eps      forward, double  central, double  central, float\n");
  for (real eps : {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12}) {
    real forward = (std::exp(x + eps) - std::exp(x)) / eps;
    real central = (std::exp(x + eps) - std::exp(x - eps)) / (2 * eps);
    float ef = static_cast<float>(eps);
    float central_f = (std::exp(xf + ef) - std::exp(xf - ef)) / (2 * ef);
    std::printf("  %.0e    %.1e          %.1e          %.1e\n", eps, std::fabs(forward - exact) / exact,
                std::fabs(central - exact) / exact, std::fabs(central_f - exact) / exact);
  }
}

// The chapter's figure: the table of differences() as a chart, both axes in powers of ten, the
// step size shrinking from left to right as it does from the table's top down.
void figures(const std::string& dir) {
  const real x = 1, exact = std::exp(1.0);
  const float xf = 1;
  std::vector<Series> series = {{"forward, double", {}, {}}, {"central, double", {}, {}}, {"central, float", {}, {}}};
  for (int k = 1; k <= 12; ++k) {
    const real eps = std::pow(10.0, -k);
    real forward = (std::exp(x + eps) - std::exp(x)) / eps;
    real central = (std::exp(x + eps) - std::exp(x - eps)) / (2 * eps);
    float ef = static_cast<float>(eps);
    float central_f = (std::exp(xf + ef) - std::exp(xf - ef)) / (2 * ef);
    const real errors[] = {std::fabs(forward - exact) / exact, std::fabs(central - exact) / exact,
                           std::fabs(central_f - exact) / exact};
    for (int m = 0; m < 3; ++m) {
      series[m].x.push_back(k);  // eps = 10^-k
      series[m].y.push_back(std::log10(errors[m]));  // an exact estimate (error 0) breaks the line
    }
  }
  const std::string path = dir + "/difference_errors.svg";
  write_text_file(path, svg_line_chart(series, "relative error of f'(1) for f = exp, by step size",
                                       "k, for the step size eps = 10^-k (smaller to the right)",
                                       "log10 relative error"));
  std::printf("wrote %s\n", path.c_str());
}

// A passing check's errors are round-off: their digits change with the compiler's choices (a
// fused multiply-add here or there), so this page prints a bound instead of the digits.
void print_summary(const GradcheckReport& r) {
  std::printf("gradcheck %s: %s (%lld elements; max abs error %s)\n", r.name.c_str(), r.ok ? "passed" : "FAILED",
              static_cast<long long>(r.elements), r.max_abs_err < 1e-9 ? "below 1e-9" : "1e-9 or more");
}

void check_a_layer() {
  // A small layer, tanh(x W + b): x [2, 3], W [3, 4], b [4] broadcast over the 2 rows.
  Generator gen(3);
  std::vector<Tensor> values = {Tensor::normal({2, 3}, 0, 1, gen), Tensor::normal({3, 4}, 0, 1, gen),
                                Tensor::normal({4}, 0, 1, gen)};
  GradcheckOptions options;
  options.name = "tanh(x W + b)";
  GradcheckReport report = gradcheck(
      [](const std::vector<Var>& v) { return tanh(matmul(v[0], v[1]) + v[2]); }, values, options);
  print_summary(report);
}

// sigmoid with a mistake in its backward: the derivative of y = sigmoid(x) is y (1 - y).
Var wrong_sigmoid(const Var& x) {
  Tensor y = sigmoid(x.value());
  return make_var(y, "wrong_sigmoid", {x}, [y](Backward& g) {
    g.add(0, mul(g.grad(), y));  // dx += y dy   (forgot the 1 - y)
  });
}

void wrong() {
  Tensor x({2, 3}, {-1.5, -0.5, 0.2, 0.7, 1.1, 2.0});
  GradcheckOptions options;
  options.name = "wrong_sigmoid";
  std::cout << gradcheck([](const std::vector<Var>& v) { return sum(wrong_sigmoid(v[0])); }, {x}, options).str()
            << "\n";
  real y = 1 / (1 + std::exp(-2.0));  // sigmoid at the worst element, x = 2
  std::printf("at x = 2: y = %.8f, y (1 - y) = %.8f\n", y, y * (1 - y));
  options.name = "sigmoid";
  print_summary(gradcheck([](const std::vector<Var>& v) { return sum(sigmoid(v[0])); }, {x}, options));
}

void kink() {
  GradcheckOptions options;
  options.name = "relu";
  Tensor x({3}, {-1, 0, 1});
  std::cout << gradcheck([](const std::vector<Var>& v) { return sum(relu(v[0])); }, {x}, options).str() << "\n";
}

struct Section {
  const char* name;
  void (*run)();
};

const Section kSections[] = {
    {"differences", differences}, {"gradcheck", check_a_layer}, {"wrong", wrong}, {"kink", kink}};

}  // namespace

int main(int argc, char** argv) {
  heed::tune_allocator();  // keep freed tensors with the process (tensor/tensor.h)
  if (argc > 1 && std::strcmp(argv[1], "figures") == 0) {  // figures [DIR]
    figures(argc > 2 ? argv[2] : "build/ch03");
    return 0;
  }
  std::vector<const Section*> chosen;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) continue;
    const Section* found = nullptr;
    for (const Section& s : kSections)
      if (argv[i] == std::string(s.name)) found = &s;
    if (!found) {
      std::fprintf(stderr, "tutorial-03: unknown section '%s' (differences, gradcheck, wrong, kink)\n", argv[i]);
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
