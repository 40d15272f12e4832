// Chapter 01: tensors. Prints every section of the chapter in order, or only the sections named
// on the command line: shapes, values, broadcasting, reductions, matmul, softmax, exp, random.
// --quick is accepted (every chapter takes it) and changes nothing: this chapter is instant.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "tensor/math.h"
#include "tensor/ops.h"
#include "tensor/random.h"

using namespace heed;

namespace {

void shapes() {
  Tensor x = reshape(Tensor::arange(6), {2, 3});
  std::cout << x << "\n";
  std::cout << "x.at({1, 2}) = " << x.at({1, 2}) << ", stored at flat index 1 * 3 + 2 = 5: x[5] = " << x[5] << "\n";
  std::cout << reshape(x, {3, 2}) << "\n";
  std::cout << Tensor::zeros({2, 2, 3}) << "\n";
}

void values() {
  Tensor x = Tensor::ones({2, 2});
  Tensor y = x;  // a copy: its own numbers
  y.at({0, 0}) = 5;
  std::cout << "x =\n" << x << "\ny =\n" << y << "\n";
}

void broadcasting() {
  Tensor x = reshape(Tensor::arange(6), {2, 3});
  Tensor bias({3}, {10, 20, 30});
  std::cout << "[2, 3] + [3]:\n" << add(x, bias) << "\n";
  Tensor col({2, 1}, {1, 2});
  Tensor row({1, 4}, {1, 10, 100, 1000});
  std::cout << "[2, 1] * [1, 4]:\n" << mul(col, row) << "\n";
  try {
    add(x, Tensor({2}, {1, 2}));
  } catch (const Error& e) {
    std::cout << "[2, 3] + [2]:\n  heed::Error: " << e.what() << "\n";
  }
}

void reductions() {
  Tensor x({2, 3}, {1, 5, 3, 4, 2, 6});
  std::cout << "x =\n" << x << "\n";
  std::cout << "sum(x)          = " << sum(x) << "\n";
  std::cout << "sum(x, 0)       = " << sum(x, 0) << "\n";
  std::cout << "sum(x, 1)       = " << sum(x, 1) << "\n";
  std::cout << "sum(x, 1, true) =\n" << sum(x, 1, true) << "\n";
  std::cout << "mean(x, 0)      = " << mean(x, 0) << "\n";
  std::cout << "max(x, 1)       = " << max(x, 1) << "\n";
  std::cout << "argmax(x, 1)    = " << argmax(x, 1) << "\n";
}

void matmuls() {
  Tensor a({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b({3, 2}, {7, 8, 9, 10, 11, 12});
  std::cout << "matmul(a, b) =\n" << matmul(a, b) << "\n";
  std::cout << "matmul_nt(a, a) = a a^T =\n" << matmul_nt(a, a) << "\n";
  std::cout << "matmul_tn(a, a) = a^T a =\n" << matmul_tn(a, a) << "\n";
  Tensor batch_a = stack({a, a}, 0), batch_b = stack({b, mul(b, -1)}, 0);  // [2, 2, 3] and [2, 3, 2]
  std::cout << "batched: " << shape_str(batch_a.shape()) << " x " << shape_str(batch_b.shape()) << " ->\n"
            << matmul(batch_a, batch_b) << "\n";
  try {
    matmul(a, a);
  } catch (const Error& e) {
    std::cout << "heed::Error: " << e.what() << "\n";
  }
}

// "0.7054", or "nan" (printf may write "-nan", depending on the sign bit the machine gives a NaN).
std::string fixed4(real v) {
  if (std::isnan(v)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

// softmax exactly as its formula reads, for comparison: exp(x_i) / sum_j exp(x_j).
std::vector<real> naive_softmax(const std::vector<real>& x) {
  real total = 0;
  for (real v : x) total += std::exp(v);
  std::vector<real> p;
  for (real v : x) p.push_back(std::exp(v) / total);
  return p;
}

void softmaxes() {
  for (real scale : {1.0, 1000.0}) {
    std::vector<real> logits = {2 * scale, 1 * scale, -1 * scale};
    std::vector<real> p = naive_softmax(logits);
    std::printf("logits %g, %g, %g\n", logits[0], logits[1], logits[2]);
    std::printf("  naive: %s %s %s\n", fixed4(p[0]).c_str(), fixed4(p[1]).c_str(), fixed4(p[2]).c_str());
    std::cout << "  heed:  " << softmax(Tensor({3}, logits), 0) << "\n";
  }
  Tensor extreme({3}, {1e4, 1e4 - 1, -1e4});
  std::printf("logits %g, %g, %g\n", extreme[0], extreme[1], extreme[2]);
  std::cout << "  softmax:     " << softmax(extreme, 0) << "\n";
  std::cout << "  log_softmax: " << log_softmax(extreme, 0).str(6) << "\n";
}

// heed's exp, step by step: x = n ln2 + r with |r| <= ln2/2, e^r from its Taylor series, e^x = 2^n e^r.
// (The reduction here is the plain arithmetic of the formula; tensor/math.cpp does it with ln2 in
// two parts and fused multiply-adds, exactly.)
void exps() {
  const double ln2 = 0.69314718055994530942;
  for (double x : {1.0, -2.5, 10.0, 700.0}) {
    double n = std::nearbyint(x / ln2);
    double r = x - n * ln2;
    double term = 1, sum = 1;  // the Taylor series of e^r: 1 + r + r^2/2! + ... + r^13/13!
    for (int k = 1; k <= 13; ++k) sum += term *= r / k;
    std::printf("x = %6.1f  n = %4.0f  r = %+.6f  e^r = %.6f  2^n e^r = %.10g  heed::math::exp(x) = %.10g\n", x, n,
                r, sum, std::ldexp(sum, static_cast<int>(n)), static_cast<double>(math::exp(static_cast<real>(x))));
  }
}

void randomness() {
  Generator gen(42);
  std::cout << "uniform(-1, 1): " << Tensor::uniform({4}, -1, 1, gen) << "\n";
  std::cout << "normal(0, 1):   " << Tensor::normal({4}, 0, 1, gen) << "\n";
  Generator again(42);
  std::cout << "seed 42 again:  " << Tensor::uniform({4}, -1, 1, again) << "\n";
  std::cout << "dice:";
  for (int i = 0; i < 10; ++i) std::cout << " " << gen.randint(1, 6);
  std::cout << "\n";
}

struct Section {
  const char* name;
  void (*run)();
};

const Section kSections[] = {{"shapes", shapes},   {"values", values},   {"broadcasting", broadcasting},
                             {"reductions", reductions}, {"matmul", matmuls}, {"softmax", softmaxes},
                             {"exp", exps},       {"random", randomness}};

}  // namespace

int main(int argc, char** argv) {
  heed::tune_allocator();  // keep freed tensors with the process (tensor/tensor.h)
  std::vector<const Section*> chosen;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) continue;
    const Section* found = nullptr;
    for (const Section& s : kSections)
      if (argv[i] == std::string(s.name)) found = &s;
    if (!found) {
      std::fprintf(stderr, "tutorial-01: unknown section '%s' (shapes, values, broadcasting, reductions, matmul, "
                   "softmax, exp, random)\n", argv[i]);
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
