// Hessenberg reduction and the Francis double-shift QR iteration (see eigen.h). Each reflection
// is a Householder reflector P = I - 2 v v^T / (v^T v) of 2 or 3 rows, applied as P H or H P
// without forming P; only eigenvalues are wanted, so no Q is accumulated and a QR step touches the
// active window alone (the blocks beside it do not change the window's eigenvalues).
#include "tensor/eigen.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "tensor/tensor.h"

namespace heed {

real Eigenvalue::modulus() const { return std::sqrt(re * re + im * im); }

namespace {

// (n, n) of a, checked: square and finite.
int64_t check_square(const Tensor& a, const char* op) {
  if (a.dim() != 2 || a.shape()[0] != a.shape()[1])
    throw Error(std::string(op) + ": " + shape_str(a.shape()) + " is not a square matrix");
  for (int64_t i = 0; i < a.numel(); ++i)
    if (!std::isfinite(a[i]))
      throw Error(std::string(op) + ": element " + std::to_string(i) + " of " + shape_str(a.shape()) + " is " +
                  std::to_string(a[i]) + ", not finite");
  return a.shape()[0];
}

// The reflector that maps u (m = 2 or 3 values) to a multiple of e_1: v, and 2 / (v^T v) in *tau
// (0 when u is zero, then P = I). u is scaled by its largest element first so that no square
// overflows; only v's direction matters.
void reflector(real* u, int m, real* v, real* tau) {
  real scale = 0;
  for (int i = 0; i < m; ++i) scale = std::max(scale, std::fabs(u[i]));
  *tau = 0;
  if (scale == 0) return;
  real norm2 = 0;
  for (int i = 0; i < m; ++i) {
    v[i] = u[i] / scale;
    norm2 += v[i] * v[i];
  }
  const real alpha = -std::copysign(std::sqrt(norm2), v[0]);  // the sign that avoids cancellation
  v[0] -= alpha;
  real vv = 0;
  for (int i = 0; i < m; ++i) vv += v[i] * v[i];
  *tau = 2 / vv;
}

// H[r0 .. r0+m-1][c] -= tau v (v^T H[..][c]) for c in [c0, c1]: P from the left.
void reflect_rows(Tensor& h, int64_t n, int64_t r0, int m, const real* v, real tau, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c <= c1; ++c) {
    real dot = 0;
    for (int i = 0; i < m; ++i) dot += v[i] * h[(r0 + i) * n + c];
    dot *= tau;
    for (int i = 0; i < m; ++i) h[(r0 + i) * n + c] -= dot * v[i];
  }
}

// H[r][c0 .. c0+m-1] -= tau (H[r][..] v) v^T for r in [r0, r1]: P from the right.
void reflect_cols(Tensor& h, int64_t n, int64_t c0, int m, const real* v, real tau, int64_t r0, int64_t r1) {
  for (int64_t r = r0; r <= r1; ++r) {
    real dot = 0;
    for (int i = 0; i < m; ++i) dot += h[r * n + c0 + i] * v[i];
    dot *= tau;
    for (int i = 0; i < m; ++i) h[r * n + c0 + i] -= dot * v[i];
  }
}

// The eigenvalues of the 2x2 block [a b; c d]: (a+d)/2 +- sqrt(p^2 + b c), p = (a-d)/2. A real
// pair as d + q and d - b c / q, q = p + sign(p) sqrt(.), so that neither subtracts near-equal
// numbers; a complex pair as (a+d)/2 +- i sqrt(-(p^2 + b c)).
void block_eigenvalues(real a, real b, real c, real d, std::vector<Eigenvalue>& out) {
  const real p = (a - d) / 2, disc = p * p + b * c;
  if (disc >= 0) {
    const real q = p + std::copysign(std::sqrt(disc), p);
    if (q == 0) {  // p = 0 and b c = 0: a double eigenvalue d (= a)
      out.push_back({d, 0});
      out.push_back({d, 0});
    } else {
      out.push_back({d + q, 0});
      out.push_back({d - b * c / q, 0});
    }
  } else {
    const real re = (a + d) / 2, im = std::sqrt(-disc);
    out.push_back({re, im});
    out.push_back({re, -im});
  }
}

}  // namespace

Tensor hessenberg(const Tensor& a) {
  const int64_t n = check_square(a, "hessenberg");
  Tensor h = a;
  std::vector<real> u, v;
  // Column k: one reflector of rows k+1 .. n-1 zeroes H[k+2 ..][k]. Householder vectors here
  // are longer than 3, so this loop applies them itself.
  for (int64_t k = 0; k + 2 < n; ++k) {
    const int64_t m = n - k - 1;
    u.assign(static_cast<size_t>(m), 0);
    real scale = 0;
    for (int64_t i = 0; i < m; ++i) scale = std::max(scale, std::fabs(h[(k + 1 + i) * n + k]));
    if (scale == 0) continue;
    real norm2 = 0;
    for (int64_t i = 0; i < m; ++i) {
      u[static_cast<size_t>(i)] = h[(k + 1 + i) * n + k] / scale;
      norm2 += u[static_cast<size_t>(i)] * u[static_cast<size_t>(i)];
    }
    const real alpha = -std::copysign(std::sqrt(norm2), u[0]);
    v = u;
    v[0] -= alpha;
    real vv = 0;
    for (real x : v) vv += x * x;
    const real tau = 2 / vv;
    for (int64_t c = k; c < n; ++c) {  // P H: rows k+1 .. n-1
      real dot = 0;
      for (int64_t i = 0; i < m; ++i) dot += v[static_cast<size_t>(i)] * h[(k + 1 + i) * n + c];
      dot *= tau;
      for (int64_t i = 0; i < m; ++i) h[(k + 1 + i) * n + c] -= dot * v[static_cast<size_t>(i)];
    }
    for (int64_t r = 0; r < n; ++r) {  // (P H) P: columns k+1 .. n-1
      real dot = 0;
      for (int64_t i = 0; i < m; ++i) dot += h[r * n + k + 1 + i] * v[static_cast<size_t>(i)];
      dot *= tau;
      for (int64_t i = 0; i < m; ++i) h[r * n + k + 1 + i] -= dot * v[static_cast<size_t>(i)];
    }
    h[(k + 1) * n + k] = alpha * scale;
    for (int64_t i = k + 2; i < n; ++i) h[i * n + k] = 0;  // zero by construction, not by rounding
  }
  return h;
}

std::vector<Eigenvalue> eigenvalues(const Tensor& a) {
  const int64_t n = check_square(a, "eigenvalues");
  Tensor h = hessenberg(a);
  std::vector<Eigenvalue> out;
  real norm = 0;  // sum of |h_ij|: the scale of "negligible" where the diagonal is zero
  for (int64_t i = 0; i < h.numel(); ++i) norm += std::fabs(h[i]);
  const real eps = std::numeric_limits<real>::epsilon();
  const int64_t max_steps = 30 * std::max<int64_t>(10, n);
  int64_t steps = 0, since_deflation = 0;
  auto at = [&](int64_t r, int64_t c) -> real& { return h[r * n + c]; };
  int64_t hi = n - 1;
  while (hi >= 0) {
    // The window [lo, hi]: from hi up to the first negligible subdiagonal element, set to 0.
    int64_t lo = hi;
    for (; lo > 0; --lo) {
      real s = std::fabs(at(lo - 1, lo - 1)) + std::fabs(at(lo, lo));
      if (s == 0) s = norm;
      if (std::fabs(at(lo, lo - 1)) <= eps * s) {
        at(lo, lo - 1) = 0;
        break;
      }
    }
    if (lo == hi) {  // a 1x1 block: a real eigenvalue
      out.push_back({at(hi, hi), 0});
      hi -= 1;
      since_deflation = 0;
      continue;
    }
    if (lo == hi - 1) {  // a 2x2 block
      block_eigenvalues(at(hi - 1, hi - 1), at(hi - 1, hi), at(hi, hi - 1), at(hi, hi), out);
      hi -= 2;
      since_deflation = 0;
      continue;
    }
    if (++steps > max_steps)
      throw Error("eigenvalues: the QR iteration did not converge on a " + shape_str(a.shape()) + " matrix in " +
                  std::to_string(max_steps) + " steps");
    // The shifts: the eigenvalues of the trailing 2x2 block, as their sum s and product t (both
    // real even for a complex pair). After 10 and 20 steps without a deflation, an ad hoc
    // "exceptional" shift breaks a cycle (Golub and Van Loan 7.5.6).
    real s = at(hi - 1, hi - 1) + at(hi, hi);
    real t = at(hi - 1, hi - 1) * at(hi, hi) - at(hi - 1, hi) * at(hi, hi - 1);
    if (++since_deflation % 10 == 0) {
      const real w = std::fabs(at(hi, hi - 1)) + std::fabs(at(hi - 1, hi - 2));
      s = 1.5 * w;
      t = w * w;
    }
    // The first column of (H - s1 I)(H - s2 I) = H^2 - s H + t I, three nonzero elements.
    real u[3] = {at(lo, lo) * at(lo, lo) + at(lo, lo + 1) * at(lo + 1, lo) - s * at(lo, lo) + t,
                 at(lo + 1, lo) * (at(lo, lo) + at(lo + 1, lo + 1) - s), at(lo + 1, lo) * at(lo + 2, lo + 1)};
    real v[3], tau;
    // Chase the bulge down the window: a reflector of rows k .. k+2 each, the last of 2 rows.
    for (int64_t k = lo; k + 2 <= hi; ++k) {
      if (k > lo) {
        u[0] = at(k, k - 1);
        u[1] = at(k + 1, k - 1);
        u[2] = at(k + 2, k - 1);
      }
      reflector(u, 3, v, &tau);
      if (tau == 0) continue;
      reflect_rows(h, n, k, 3, v, tau, std::max(lo, k - 1), hi);
      reflect_cols(h, n, k, 3, v, tau, lo, std::min(k + 3, hi));
      if (k > lo) at(k + 1, k - 1) = at(k + 2, k - 1) = 0;  // the bulge moved on
    }
    u[0] = at(hi - 1, hi - 2);
    u[1] = at(hi, hi - 2);
    reflector(u, 2, v, &tau);
    if (tau != 0) {
      reflect_rows(h, n, hi - 1, 2, v, tau, hi - 2, hi);
      reflect_cols(h, n, hi - 1, 2, v, tau, lo, hi);
      at(hi, hi - 2) = 0;
    }
  }
  return out;
}

}  // namespace heed
