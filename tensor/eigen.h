// The eigenvalues of a general real square matrix, for the circuit scores of models/analysis/circuits.h
// (a head's OV circuit is not symmetric, so its eigenvalues may be complex).
//
// The textbook route (Golub and Van Loan, "Matrix Computations", 7.4-7.5): Householder
// reflections bring A to upper Hessenberg form H = Q^T A Q (same eigenvalues, zeros below the
// first subdiagonal), then Francis double-shift QR steps drive H's subdiagonal to zero, deflating
// a 1x1 block (a real eigenvalue) or a 2x2 block (a real pair or a complex-conjugate pair, read off
// its characteristic polynomial) at a time. Real arithmetic throughout; a complex pair comes out
// as a + bi and a - bi exactly. O(n^3), meant for small n (a head's d_head x d_head matrix).
#pragma once

#include <vector>

#include "tensor/tensor.h"

namespace heed {

struct Eigenvalue {
  real re = 0, im = 0;
  real modulus() const;  // sqrt(re^2 + im^2)
};

// Every eigenvalue of a (n, n), with multiplicity: n of them, in the order they deflate (the
// bottom of H first), so the order carries no meaning. REQUIRES: a square, finite (else
// heed::Error naming the shape or the element); heed::Error if the QR steps do not converge
// (30 n steps; never seen on finite input).
std::vector<Eigenvalue> eigenvalues(const Tensor& a);

// A Q^T A Q (n, n) with zeros below the first subdiagonal and the same eigenvalues as a: the
// first stage above, exposed for its tests. REQUIRES as eigenvalues().
Tensor hessenberg(const Tensor& a);

}  // namespace heed
