// tanh, sigmoid and the dot product over arrays, several elements at a time: one element at a
// time (heed::math::tanh, ~10 ns an element here) the fused recurrent steps and the fused
// attention score would spend most of their time in them. The functions use a range reduction
// and a Taylor polynomial, accurate to 2 units in the last place. Their references are
// heed::math::tanh and heed::math::sigmoid (tensor/math.h), which run the same operations on one
// element: tests/tensor/ch01_math_test.cpp holds their bits equal under every kernel set, and
// tests/tensor/ch01_vmath_test.cpp holds both to the C library's tanh and exp within 3 eps (and dot_n to the
// plain loop). Every element goes through the same instructions
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
