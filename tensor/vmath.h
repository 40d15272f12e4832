// tanh, sigmoid and the dot product over arrays, several elements at a time: std::tanh and
// std::exp are scalar library calls (~10 ns an element here), which the fused recurrent steps
// and the fused attention score would otherwise spend most of their time in. The functions use
// a range reduction and a Taylor polynomial, accurate to a few units in the last place. Their
// references are std::tanh and std::exp (and the plain loop for dot_n): tests/vmath_test.cpp holds
// them equal to within 3 eps. Every element goes through the same instructions
// whatever its position in the array or the array's length, so a result never depends on how
// an array was cut (a batch row alone gives the same bits as in its batch).
#pragma once

#include <cstdint>

#include "tensor/tensor.h"

namespace heed {

// y[i] = tanh(x[i]). y may be x.
void tanh_n(const real* x, real* y, int64_t n);

// y[i] = 1 / (1 + exp(-x[i])), computed without overflow. y may be x. Below x = -708 the result
// is 0 (the exact value is under 3e-308); in the float build, below x = -87 (under 2e-38).
void sigmoid_n(const real* x, real* y, int64_t n);

// sum_i a[i] b[i], in a fixed order that depends only on n.
real dot_n(const real* a, const real* b, int64_t n);

}  // namespace heed
