// The general real eigenvalue solver (tensor/eigen.h) that the copying score stands on: matrices
// whose eigenvalues are known (triangular, rotations, companion matrices of chosen roots, a
// block-diagonal matrix hidden by an orthogonal similarity), and random ones held to the
// identities every spectrum obeys (sum = trace, product = determinant, sum of cubes =
// trace(A^3)); the Hessenberg stage alone; bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tensor/eigen.h"
#include "tensor/random.h"
#include "tests/support/precision.h"

using namespace heed;
using heed::test::tol;

namespace {

Tensor matrix(int64_t n, const std::vector<real>& values) {
  Tensor t = Tensor::zeros({n, n});
  for (int64_t i = 0; i < n * n; ++i) t[i] = values[static_cast<size_t>(i)];
  return t;
}

Tensor product(const Tensor& a, const Tensor& b) {  // plain (n, n) x (n, n)
  const int64_t n = a.shape()[0];
  Tensor c = Tensor::zeros({n, n});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += a[i * n + k] * b[k * n + j];
  return c;
}

Tensor transpose(const Tensor& a) {
  const int64_t n = a.shape()[0];
  Tensor t = Tensor::zeros({n, n});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) t[j * n + i] = a[i * n + j];
  return t;
}

// A random orthogonal (n, n): a product of Givens rotations of random angles in every plane.
Tensor random_orthogonal(int64_t n, Generator& gen) {
  Tensor q = Tensor::zeros({n, n});
  for (int64_t i = 0; i < n; ++i) q[i * n + i] = 1;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      const real angle = gen.uniform(0, 6.283185307179586);
      const real c = std::cos(angle), s = std::sin(angle);
      for (int64_t r = 0; r < n; ++r) {
        const real a = q[r * n + i], b = q[r * n + j];
        q[r * n + i] = c * a - s * b;
        q[r * n + j] = s * a + c * b;
      }
    }
  return q;
}

// Every expected eigenvalue matched to a distinct computed one within tol (greedy: each wanted
// value takes the nearest unused one).
void check_spectrum(const std::vector<Eigenvalue>& got, std::vector<Eigenvalue> want, real tolerance) {
  REQUIRE(got.size() == want.size());
  std::vector<bool> used(got.size(), false);
  for (const Eigenvalue& w : want) {
    size_t best = got.size();
    real best_d = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (used[i]) continue;
      const real d = Eigenvalue{got[i].re - w.re, got[i].im - w.im}.modulus();
      if (best == got.size() || d < best_d) best = i, best_d = d;
    }
    INFO("wanted " << w.re << " + " << w.im << "i, nearest at distance " << best_d);
    CHECK(best_d <= tolerance);
    used[best] = true;
  }
}

// det by Gaussian elimination with partial pivoting.
real determinant(Tensor a) {
  const int64_t n = a.shape()[0];
  real det = 1;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; ++i)
      if (std::fabs(a[i * n + k]) > std::fabs(a[p * n + k])) p = i;
    if (p != k) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      det = -det;
    }
    det *= a[k * n + k];
    if (a[k * n + k] == 0) return 0;
    for (int64_t i = k + 1; i < n; ++i) {
      const real f = a[i * n + k] / a[k * n + k];
      for (int64_t j = k; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
    }
  }
  return det;
}

real trace(const Tensor& a) {
  real t = 0;
  for (int64_t i = 0; i < a.shape()[0]; ++i) t += a[i * a.shape()[0] + i];
  return t;
}

}  // namespace

TEST_SUITE("ch14_eigen") {
  TEST_CASE("eigenvalues: a triangular matrix's are its diagonal, upper or lower (the lower one needs every stage)") {
    const std::vector<real> diag = {3, -1, 0.5, 2, -4, 7};
    Generator gen(3);
    Tensor upper = Tensor::zeros({6, 6}), lower = Tensor::zeros({6, 6});
    for (int64_t i = 0; i < 6; ++i)
      for (int64_t j = 0; j < 6; ++j) {
        const real x = i == j ? diag[static_cast<size_t>(i)] : gen.uniform(-1, 1);
        if (j >= i) upper[i * 6 + j] = x;
        if (j <= i) lower[i * 6 + j] = x;
      }
    std::vector<Eigenvalue> want;
    for (real d : diag) want.push_back({d, 0});
    check_spectrum(eigenvalues(upper), want, tol(1e-13));
    check_spectrum(eigenvalues(lower), want, tol(1e-12));
  }

  TEST_CASE("eigenvalues: rotations give e^(+-i theta), a complex pair exactly conjugate; a 3-D one adds 1") {
    for (real theta : {0.3, 1.0, 2.5, 3.0}) {
      CAPTURE(theta);
      const real c = std::cos(theta), s = std::sin(theta);
      std::vector<Eigenvalue> got = eigenvalues(matrix(2, {c, -s, s, c}));
      check_spectrum(got, {{c, s}, {c, -s}}, tol(1e-15));
      CHECK(got[0].re == got[1].re);
      CHECK(got[0].im == -got[1].im);
      // About a tilted axis: Q R Q^T with R the rotation about z.
      Generator gen(7);
      const Tensor q = random_orthogonal(3, gen);
      const Tensor rot = matrix(3, {c, -s, 0, s, c, 0, 0, 0, 1});
      check_spectrum(eigenvalues(product(product(q, rot), transpose(q))), {{c, s}, {c, -s}, {1, 0}}, tol(1e-14));
    }
  }

  TEST_CASE("eigenvalues: a block-diagonal spectrum (real, complex pairs, a double root) under an orthogonal similarity") {
    // D = diag(2, [1 3; -3 1], -0.5, [-2 0.25; -0.25 -2], 0, 2): eigenvalues 2, 1 +- 3i, -0.5,
    // -2 +- 0.25i, 0, 2.
    const int64_t n = 9;
    Tensor d = Tensor::zeros({n, n});
    auto set = [&](int64_t r, int64_t c, real x) { d[r * n + c] = x; };
    set(0, 0, 2);
    set(1, 1, 1), set(1, 2, 3), set(2, 1, -3), set(2, 2, 1);
    set(3, 3, -0.5);
    set(4, 4, -2), set(4, 5, 0.25), set(5, 4, -0.25), set(5, 5, -2);
    set(6, 6, 0);
    set(7, 7, 2);
    set(8, 8, 5), set(8, 0, 0.5);  // 5, a triangular coupling that changes no eigenvalue
    Generator gen(11);
    const Tensor q = random_orthogonal(n, gen);
    const Tensor a = product(product(q, d), transpose(q));
    check_spectrum(eigenvalues(a), {{2, 0}, {1, 3}, {1, -3}, {-0.5, 0}, {-2, 0.25}, {-2, -0.25}, {0, 0}, {2, 0}, {5, 0}},
                   tol(1e-12));
  }

  TEST_CASE("eigenvalues: a companion matrix's are its polynomial's roots (1, 2, 3, 4, -1 +- 2i)") {
    // p(x) = (x-1)(x-2)(x-3)(x-4)(x^2 + 2x + 5) = x^6 - 8x^5 + 20x^4 - 30x^3 + 99x^2 - 202x + 120
    // (expanded by hand, checked by p(1) = p(2) = 0 below); the companion matrix has ones on the
    // subdiagonal and -c_k in the last column.
    const std::vector<real> c = {120, -202, 99, -30, 20, -8};  // c_0 .. c_5
    auto p = [&](real x) {
      real v = 1;
      for (int k = 5; k >= 0; --k) v = v * x + c[static_cast<size_t>(k)];
      return v;
    };
    REQUIRE(p(1) == 0);
    REQUIRE(p(2) == 0);
    REQUIRE(p(4) == 0);
    Tensor a = Tensor::zeros({6, 6});
    for (int64_t i = 1; i < 6; ++i) a[i * 6 + i - 1] = 1;
    for (int64_t i = 0; i < 6; ++i) a[i * 6 + 5] = -c[static_cast<size_t>(i)];
    check_spectrum(eigenvalues(a), {{1, 0}, {2, 0}, {3, 0}, {4, 0}, {-1, 2}, {-1, -2}}, tol(1e-9));
  }

  TEST_CASE("eigenvalues: random matrices obey sum = trace, product = det, sum of cubes = trace(A^3)") {
    Generator gen(42);
    for (int64_t n : {1, 2, 3, 5, 8, 16, 33}) {
      CAPTURE(n);
      Tensor a = Tensor::zeros({n, n});
      for (int64_t i = 0; i < n * n; ++i) a[i] = gen.normal();
      const std::vector<Eigenvalue> ev = eigenvalues(a);
      REQUIRE(static_cast<int64_t>(ev.size()) == n);
      real re = 0, im = 0, scale = 0;
      for (const Eigenvalue& e : ev) re += e.re, im += e.im, scale = std::max(scale, e.modulus());
      CHECK(std::fabs(re - trace(a)) <= tol(1e-13) * n * scale);
      CHECK(std::fabs(im) <= tol(1e-13) * n * scale);
      // Product and sum of cubes, in complex arithmetic written out.
      real pr = 1, pi = 0, cr = 0, ci = 0;
      for (const Eigenvalue& e : ev) {
        const real r = pr * e.re - pi * e.im, i = pr * e.im + pi * e.re;
        pr = r, pi = i;
        const real sr = e.re * e.re - e.im * e.im, si = 2 * e.re * e.im;
        cr += sr * e.re - si * e.im, ci += sr * e.im + si * e.re;
      }
      const real det = determinant(a);
      real mag = 1;  // the product's natural scale: the product of the moduli
      for (const Eigenvalue& e : ev) mag *= std::max<real>(e.modulus(), 1e-300);
      CHECK(std::fabs(pr - det) <= tol(1e-11) * n * mag);
      CHECK(std::fabs(pi) <= tol(1e-11) * n * mag);
      const real t3 = trace(product(product(a, a), a));
      CHECK(std::fabs(cr - t3) <= tol(1e-12) * n * scale * scale * scale);
      CHECK(std::fabs(ci) <= tol(1e-12) * n * scale * scale * scale);
    }
  }

  TEST_CASE("eigenvalues: a Jordan block, the zero matrix, a rank-one matrix (the shapes of an OV circuit)") {
    check_spectrum(eigenvalues(matrix(2, {2, 1, 0, 2})), {{2, 0}, {2, 0}}, tol(1e-15));
    check_spectrum(eigenvalues(Tensor::zeros({4, 4})), {{0, 0}, {0, 0}, {0, 0}, {0, 0}}, 0);
    // u v^T has one eigenvalue v . u and n-1 zeros.
    const std::vector<real> u = {1, -2, 0.5, 3}, v = {0.25, 1, -1, 2};
    Tensor a = Tensor::zeros({4, 4});
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 4; ++j) a[i * 4 + j] = u[static_cast<size_t>(i)] * v[static_cast<size_t>(j)];
    check_spectrum(eigenvalues(a), {{0.25 - 2 - 0.5 + 6, 0}, {0, 0}, {0, 0}, {0, 0}}, tol(1e-14));
  }

  TEST_CASE("hessenberg: zeros below the subdiagonal, and an orthogonal similarity (trace and Frobenius norm kept)") {
    Generator gen(5);
    const int64_t n = 7;
    Tensor a = Tensor::zeros({n, n});
    for (int64_t i = 0; i < n * n; ++i) a[i] = gen.uniform(-1, 1);
    const Tensor h = hessenberg(a);
    real fa = 0, fh = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        if (i > j + 1) CHECK(h[i * n + j] == 0);
        fa += a[i * n + j] * a[i * n + j];
        fh += h[i * n + j] * h[i * n + j];
      }
    CHECK(std::fabs(trace(h) - trace(a)) <= tol(1e-14) * n);
    CHECK(std::fabs(fh - fa) <= tol(1e-14) * fa);
    const Tensor h2 = product(h, h), a2 = product(a, a);  // trace(H^2) = trace(A^2) too
    CHECK(std::fabs(trace(h2) - trace(a2)) <= tol(1e-13) * fa);
  }

  TEST_CASE("eigenvalues: a matrix that is not square or not finite is a clear error") {
    CHECK_THROWS_WITH_AS(eigenvalues(Tensor::zeros({2, 3})), "eigenvalues: [2, 3] is not a square matrix", Error);
    CHECK_THROWS_WITH_AS(eigenvalues(Tensor::zeros({4})), "eigenvalues: [4] is not a square matrix", Error);
    Tensor bad = Tensor::zeros({2, 2});
    bad[3] = std::nan("");
    CHECK_THROWS_WITH_AS(eigenvalues(bad), "eigenvalues: element 3 of [2, 2] is nan, not finite", Error);
  }
}
