// Chapter 01: the Tensor and its kernels (the random generator: ch01_random_test.cpp). Every
// value below is worked out by hand (or named as coming from an outside reference).
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include "tensor/ops.h"
#include "tensor/random.h"
#include "tests/support/chapter_check.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

Tensor t1(std::vector<real> v) { return Tensor({static_cast<int64_t>(v.size())}, v); }
Tensor t2(int64_t r, int64_t c, std::vector<real> v) { return Tensor({r, c}, std::move(v)); }

}  // namespace

TEST_SUITE("ch01_tensor") {
  TEST_CASE("creation: zeros, ones, full, scalar, from values") {
    Tensor z = Tensor::zeros({2, 3});
    CHECK(z.shape() == Shape{2, 3});
    CHECK(z.numel() == 6);
    CHECK(z.dim() == 2);
    CHECK(z.to_vector() == std::vector<real>(6, 0));
    CHECK(Tensor::ones({4}).to_vector() == std::vector<real>(4, 1));
    CHECK(Tensor::full({2, 2}, 2.5).to_vector() == std::vector<real>(4, 2.5));

    Tensor s = Tensor::scalar(7);
    CHECK(s.shape().empty());
    CHECK(s.numel() == 1);
    CHECK(s.item() == 7);
    CHECK(Tensor().item() == 0);  // the default tensor is the 0-d zero

    Tensor e = Tensor::zeros({0, 3});
    CHECK(e.numel() == 0);
    CHECK(e.shape() == Shape{0, 3});

    Tensor v = t2(2, 3, {1, 2, 3, 4, 5, 6});
    CHECK(v.at({0, 0}) == 1);
    CHECK(v.at({1, 2}) == 6);
    CHECK(v.at({1, 0}) == 4);  // row-major: element (i, j) sits at i * 3 + j
    CHECK(v[4] == 5);
    v.at({0, 1}) = -2;
    CHECK(v[1] == -2);
    v.fill(3);
    CHECK(v.to_vector() == std::vector<real>(6, 3));
    CHECK(v.size(0) == 2);
    CHECK(v.size(-1) == 3);
    CHECK(shape_str({2, 3}) == "[2, 3]");
    CHECK(shape_str({}) == "[]");
    CHECK(shape_numel({}) == 1);
    CHECK(shape_numel({4, 0, 2}) == 0);
  }

  TEST_CASE("creation mistakes name the op and the shape") {
    CHECK_THROWS_WITH_AS(Tensor({2, 3}, {1, 2, 3}), "Tensor: shape [2, 3] needs 6 values, got 3", Error);
    CHECK_THROWS_WITH_AS(Tensor::zeros({2, -1}), doctest::Contains("negative size in shape [2, -1]"), Error);
    CHECK_THROWS_WITH_AS(t1({1, 2}).item(), "item: tensor of shape [2] is not one value", Error);
    Tensor v = t2(2, 3, {1, 2, 3, 4, 5, 6});
    CHECK_THROWS_WITH_AS(v.at({2, 0}), "at: index 2 out of range for axis 0 of shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(v.at({1}), "at: 1 indices for shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(v.size(2), "size: axis 2 out of range for shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(v.reshape_inplace({4}), "reshape: [2, 3] to [4]: element counts differ", Error);
  }

  TEST_CASE("arange counts up by its step and stops before stop") {
    CHECK(equal(Tensor::arange(4), t1({0, 1, 2, 3})));
    CHECK(Tensor::arange(0).numel() == 0);
    CHECK(equal(Tensor::arange(1, 2, 0.25), t1({1, 1.25, 1.5, 1.75})));
    CHECK(equal(Tensor::arange(3, 0, -1), t1({3, 2, 1})));
    CHECK(Tensor::arange(2, 1, 1).numel() == 0);  // counting up from 2 never reaches 1
    CHECK_THROWS_WITH_AS(Tensor::arange(0, 1, 0), doctest::Contains("arange: "), Error);
  }

  TEST_CASE("printing reads like PyTorch and shows the shape") {
    CHECK(t1({0, 1, 2}).str() == "tensor([0.0000, 1.0000, 2.0000], shape=[3])");
    CHECK(t2(2, 3, {1, -2, 3, 4, 5, 60}).str() ==
          "tensor([[ 1.0000, -2.0000,  3.0000],\n"
          "        [ 4.0000,  5.0000, 60.0000]], shape=[2, 3])");
    CHECK(reshape(Tensor::arange(8), {2, 2, 2}).str() ==
          "tensor([[[0.0000, 1.0000],\n"
          "         [2.0000, 3.0000]],\n"
          "\n"
          "        [[4.0000, 5.0000],\n"
          "         [6.0000, 7.0000]]], shape=[2, 2, 2])");
    CHECK(Tensor::scalar(3.5).str() == "tensor(3.5000, shape=[])");
    CHECK(Tensor::zeros({0, 3}).str() == "tensor([], shape=[0, 3])");
    CHECK(t1({1.0 / 3, 2}).str(2) == "tensor([0.33, 2.00], shape=[2])");
    // More than 1000 elements: the first and last three of each axis, as PyTorch summarises.
    CHECK(Tensor::arange(1001).str(0) == "tensor([   0,    1,    2, ...,  998,  999, 1000], shape=[1001])");
    std::ostringstream os;
    os << Tensor::ones({1});
    CHECK(os.str() == "tensor([1.0000], shape=[1])");
  }

  TEST_CASE("equal and allclose") {
    CHECK(equal(t1({1, 2}), t1({1, 2})));
    CHECK(!equal(t1({1, 2}), t2(1, 2, {1, 2})));  // same values, other shape
    CHECK(allclose(t1({1, 2}), t1({1, 2 + 1e-12})));
    CHECK(!allclose(t1({1, 2}), t1({1, 2.001})));
    CHECK(!allclose(t1({NAN}), t1({NAN})));  // NaN is never close to anything
  }

  TEST_CASE("unary kernels, value by value") {
    Tensor x = t1({-1, 0, 2});
    CHECK(equal(neg(x), t1({1, 0, -2})));
    CHECK(allclose(exp(x), t1({std::exp(-1.0), 1, std::exp(2.0)})));
    CHECK(allclose(log(t1({1, std::exp(1.0), 0.5})), t1({0, 1, -std::log(2.0)})));
    CHECK(allclose(tanh(x), t1({std::tanh(-1.0), 0, std::tanh(2.0)})));
    CHECK(allclose(sigmoid(t1({0, std::log(3.0)})), t1({0.5, 0.75})));  // 1 / (1 + 1/3)
    CHECK(equal(relu(x), t1({0, 0, 2})));
    CHECK(equal(sqrt(t1({4, 0.25, 0})), t1({2, 0.5, 0})));
    CHECK(allclose(pow(t1({2, 3, 4}), 2), t1({4, 9, 16})));
    CHECK(allclose(pow(t1({4, 0.25}), -0.5), t1({0.5, 2})));
    // sigmoid never overflows: exp is only taken of a non-positive number.
    Tensor big = sigmoid(t1({-800, 800}));
    CHECK(big[0] == 0);
    CHECK(big[1] == 1);
    CHECK(std::isnan(log(t1({-1}))[0]));  // outside the domain: NaN, as in PyTorch
  }

  TEST_CASE("binary kernels with broadcasting") {
    Tensor a = t2(2, 3, {1, 2, 3, 4, 5, 6});
    CHECK(equal(add(a, a), t2(2, 3, {2, 4, 6, 8, 10, 12})));
    CHECK(equal(sub(a, t2(2, 3, {1, 1, 1, 1, 1, 1})), t2(2, 3, {0, 1, 2, 3, 4, 5})));
    CHECK(equal(mul(a, a), t2(2, 3, {1, 4, 9, 16, 25, 36})));
    CHECK(equal(div(a, t2(2, 3, {1, 2, 3, 4, 5, 6})), Tensor::ones({2, 3})));
    // [2, 3] + [3]: the row is added to every row.
    CHECK(equal(add(a, t1({10, 20, 30})), t2(2, 3, {11, 22, 33, 14, 25, 36})));
    // [3] - [2, 3], the broadcast input on the left.
    CHECK(equal(sub(t1({10, 20, 30}), a), t2(2, 3, {9, 18, 27, 6, 15, 24})));
    // [2, 1] * [1, 4]: an outer product.
    CHECK(equal(mul(t2(2, 1, {1, 2}), t2(1, 4, {1, 10, 100, 1000})), t2(2, 4, {1, 10, 100, 1000, 2, 20, 200, 2000})));
    // [2, 3] / [2, 1]: each row by its own number.
    CHECK(equal(div(a, t2(2, 1, {1, 2})), t2(2, 3, {1, 2, 3, 2, 2.5, 3})));
    // a 0-d tensor broadcasts against anything
    CHECK(equal(mul(Tensor::scalar(2), a), t2(2, 3, {2, 4, 6, 8, 10, 12})));
    // [2, 1, 3] + [4, 1]: both sides broadcast, result [2, 4, 3]
    Tensor b = add(Tensor({2, 1, 3}, {0, 0, 0, 100, 100, 100}), t2(4, 1, {1, 2, 3, 4}));
    CHECK(b.shape() == Shape{2, 4, 3});
    CHECK(b.at({1, 2, 0}) == 103);
    CHECK(b.at({0, 3, 2}) == 4);
    CHECK(equal(add(a, 1.5), t2(2, 3, {2.5, 3.5, 4.5, 5.5, 6.5, 7.5})));
    CHECK(equal(mul(a, -1), neg(a)));
    CHECK(broadcast_shape({2, 1, 3}, {4, 1}, "f") == Shape{2, 4, 3});
    CHECK(broadcast_shape({}, {5}, "f") == Shape{5});
  }

  TEST_CASE("broadcasting mistakes name the op and both shapes") {
    Tensor a = Tensor::zeros({2, 3});
    CHECK_THROWS_WITH_AS(add(a, Tensor::zeros({2})), "add: shapes [2, 3] and [2] do not broadcast (axis 1: 3 vs 2)",
                         Error);
    CHECK_THROWS_WITH_AS(sub(a, Tensor::zeros({4, 3})), doctest::Contains("sub: shapes [2, 3] and [4, 3]"), Error);
    CHECK_THROWS_WITH_AS(mul(Tensor::zeros({3, 2}), a), doctest::Contains("mul: shapes [3, 2] and [2, 3]"), Error);
    CHECK_THROWS_WITH_AS(div(a, Tensor::zeros({3, 1})), doctest::Contains("div: shapes [2, 3] and [3, 1]"), Error);
    CHECK_THROWS_WITH_AS(add_inplace(a, Tensor::zeros({3})), "add_inplace: shapes [2, 3] and [3] differ", Error);
    CHECK_THROWS_WITH_AS(sum_to(a, {4}), doctest::Contains("[4]"), Error);
    CHECK_THROWS_WITH_AS(broadcast_to(a, {3}), doctest::Contains("broadcast_to: "), Error);
  }

  TEST_CASE("sum_to undoes broadcasting; broadcast_to repeats") {
    Tensor g = t2(2, 3, {1, 2, 3, 4, 5, 6});
    CHECK(equal(sum_to(g, {3}), t1({5, 7, 9})));
    CHECK(equal(sum_to(g, {2, 1}), t2(2, 1, {6, 15})));
    CHECK(equal(sum_to(g, {1, 3}), t2(1, 3, {5, 7, 9})));
    CHECK(equal(sum_to(g, {}), Tensor::scalar(21)));
    CHECK(equal(sum_to(g, {2, 3}), g));
    CHECK(equal(broadcast_to(t1({1, 2}), {2, 2}), t2(2, 2, {1, 2, 1, 2})));
    CHECK(equal(broadcast_to(t2(2, 1, {1, 2}), {2, 2}), t2(2, 2, {1, 1, 2, 2})));
    Tensor acc = Tensor::ones({2, 3});
    add_inplace(acc, g);
    CHECK(equal(acc, t2(2, 3, {2, 3, 4, 5, 6, 7})));
  }

  TEST_CASE("reductions: sum, mean, max, argmax over all or one axis") {
    Tensor a = t2(2, 3, {1, 5, 3, 4, 2, 6});
    CHECK(equal(sum(a), Tensor::scalar(21)));
    CHECK(equal(sum(a, 0), t1({5, 7, 9})));
    CHECK(equal(sum(a, 1), t1({9, 12})));
    CHECK(equal(sum(a, -1, true), t2(2, 1, {9, 12})));
    CHECK(equal(mean(a), Tensor::scalar(3.5)));
    CHECK(equal(mean(a, 0), t1({2.5, 3.5, 4.5})));
    CHECK(equal(mean(a, 1, true), t2(2, 1, {3, 4})));
    CHECK(equal(max(a), Tensor::scalar(6)));
    CHECK(equal(max(a, 0), t1({4, 5, 6})));
    CHECK(equal(max(a, 1, true), t2(2, 1, {5, 6})));
    CHECK(equal(argmax(a), Tensor::scalar(5)));
    CHECK(equal(argmax(a, 0), t1({1, 0, 1})));
    CHECK(equal(argmax(a, 1), t1({1, 2})));
    CHECK(equal(argmax(t1({2, 7, 7, 1})), Tensor::scalar(1)));  // the first of a tie
    // The middle axis of a 3-D tensor, [2, 2, 2] -> [2, 2].
    Tensor c = reshape(Tensor::arange(8), {2, 2, 2});
    CHECK(equal(sum(c, 1), t2(2, 2, {2, 4, 10, 12})));
    CHECK(equal(max(c, 1), t2(2, 2, {2, 3, 6, 7})));
    CHECK(equal(max(t1({-5, -3})), Tensor::scalar(-3)));  // max works below zero
    CHECK(equal(sum(Tensor::zeros({0, 2}), 0), t1({0, 0})));  // an empty sum is zero
  }

  TEST_CASE("reduction mistakes name the op and the shape") {
    Tensor a = Tensor::zeros({2, 3});
    CHECK_THROWS_WITH_AS(sum(a, 2), "sum: axis 2 out of range for shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(mean(a, -3), "mean: axis -3 out of range for shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(max(a, 5), "max: axis 5 out of range for shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(argmax(a, 2), "argmax: axis 2 out of range for shape [2, 3]", Error);
    CHECK_THROWS_WITH_AS(mean(Tensor::zeros({0})), "mean: tensor of shape [0] is empty", Error);
    CHECK_THROWS_WITH_AS(max(Tensor::zeros({2, 0}), 1), "max: cannot reduce an empty axis of shape [2, 0]", Error);
    CHECK_THROWS_WITH_AS(argmax(Tensor::zeros({0})), "argmax: tensor of shape [0] is empty", Error);
  }

  TEST_CASE("matmul: 2-D and batched 3-D, in the forms AB, AB^T and A^T B") {
    Tensor a = t2(2, 3, {1, 2, 3, 4, 5, 6});
    Tensor b = t2(3, 2, {7, 8, 9, 10, 11, 12});
    // [1 2 3; 4 5 6] [7 8; 9 10; 11 12] = [58 64; 139 154]
    Tensor ab = t2(2, 2, {58, 64, 139, 154});
    CHECK(equal(matmul(a, b), ab));
    CHECK(equal(matmul_nt(a, transpose(b)), ab));  // b^T is [2, 3]
    CHECK(equal(matmul_tn(transpose(a), b), ab));  // a^T is [3, 2]
    // [1 2 3; 4 5 6]^T [1 2 3; 4 5 6] = [17 22 27; 22 29 36; 27 36 45]
    CHECK(equal(matmul_tn(a, a), Tensor({3, 3}, {17, 22, 27, 22, 29, 36, 27, 36, 45})));
    // [1 2 3; 4 5 6] [1 2 3; 4 5 6]^T = [14 32; 32 77]
    CHECK(equal(matmul_nt(a, a), t2(2, 2, {14, 32, 32, 77})));
    // Batched: batch 0 is a, b; batch 1 is the identity times b.
    Tensor A = concat({reshape(a, {1, 2, 3}), Tensor({1, 2, 3}, {1, 0, 0, 0, 1, 0})}, 0);
    Tensor B = stack({b, b}, 0);
    Tensor C = matmul(A, B);
    CHECK(C.shape() == Shape{2, 2, 2});
    CHECK(equal(C, Tensor({2, 2, 2}, {58, 64, 139, 154, 7, 8, 9, 10})));
    CHECK(equal(matmul_nt(A, transpose(B)), C));
    CHECK(equal(matmul_tn(transpose(A), B), C));
    // A product with an inner size 0 is a matrix of zeros.
    CHECK(equal(matmul(Tensor::zeros({2, 0}), Tensor::zeros({0, 3})), Tensor::zeros({2, 3})));
  }

  TEST_CASE("matmul mistakes name the op and the shapes") {
    CHECK_THROWS_WITH_AS(matmul(Tensor::zeros({32, 64}), Tensor::zeros({32, 64})),
                         "matmul: [32, 64] x [32, 64]: inner sizes 64 and 32 differ", Error);
    CHECK_THROWS_WITH_AS(matmul_nt(Tensor::zeros({2, 3}), Tensor::zeros({4, 5})),
                         "matmul_nt: [2, 3] x [4, 5]: inner sizes 3 and 5 differ", Error);
    CHECK_THROWS_WITH_AS(matmul_tn(Tensor::zeros({2, 3}), Tensor::zeros({4, 5})),
                         "matmul_tn: [2, 3] x [4, 5]: inner sizes 2 and 4 differ", Error);
    CHECK_THROWS_WITH_AS(matmul(Tensor::zeros({2, 2, 3}), Tensor::zeros({3, 2, 3})),
                         "matmul: [2, 2, 3] x [3, 2, 3]: batch sizes 2 and 3 differ", Error);
    CHECK_THROWS_WITH_AS(matmul(Tensor::zeros({2, 3}), Tensor::zeros({1, 3, 2})),
                         "matmul: [2, 3] x [1, 3, 2]: both must be 2-D, or both 3-D (batched)", Error);
    CHECK_THROWS_WITH_AS(matmul(Tensor::zeros({3}), Tensor::zeros({3})), doctest::Contains("matmul: [3] x [3]"), Error);
  }

  TEST_CASE("transpose and reshape") {
    Tensor a = t2(2, 3, {1, 2, 3, 4, 5, 6});
    CHECK(equal(transpose(a), t2(3, 2, {1, 4, 2, 5, 3, 6})));
    CHECK(equal(transpose(transpose(a)), a));
    Tensor c = reshape(Tensor::arange(12), {2, 2, 3});  // transposes each of the 2 matrices
    Tensor ct = transpose(c);
    CHECK(ct.shape() == Shape{2, 3, 2});
    CHECK(equal(ct, Tensor({2, 3, 2}, {0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11})));
    CHECK(equal(reshape(a, {3, 2}), t2(3, 2, {1, 2, 3, 4, 5, 6})));  // the data keep their order
    CHECK(reshape(a, {-1}).shape() == Shape{6});
    CHECK(reshape(a, {3, -1}).shape() == Shape{3, 2});
    CHECK(reshape(Tensor::scalar(4), {1, 1}).shape() == Shape{1, 1});
    CHECK_THROWS_WITH_AS(transpose(t1({1, 2})), "transpose: needs at least 2 axes, got shape [2]", Error);
    CHECK_THROWS_WITH_AS(reshape(a, {4}), "reshape: [2, 3] to [4]: element counts differ", Error);
    CHECK_THROWS_WITH_AS(reshape(a, {-1, -1}), "reshape: more than one -1 in [-1, -1]", Error);
    CHECK_THROWS_WITH_AS(reshape(a, {4, -1}), "reshape: cannot infer -1 for [2, 3] to [4, -1]", Error);
  }

  TEST_CASE("concat, stack, slice and index_select") {
    Tensor a = t2(2, 2, {1, 2, 3, 4}), b = t2(1, 2, {5, 6}), c = t2(2, 1, {7, 8});
    CHECK(equal(concat({a, b}, 0), Tensor({3, 2}, {1, 2, 3, 4, 5, 6})));
    CHECK(equal(concat({a, c}, 1), Tensor({2, 3}, {1, 2, 7, 3, 4, 8})));
    CHECK(equal(concat({c, a, c}, -1), Tensor({2, 4}, {7, 1, 2, 7, 8, 3, 4, 8})));
    CHECK(equal(stack({t1({1, 2}), t1({3, 4})}, 0), a));
    CHECK(equal(stack({t1({1, 2}), t1({3, 4})}, 1), t2(2, 2, {1, 3, 2, 4})));
    CHECK(stack({a, a, a}, 1).shape() == Shape{2, 3, 2});
    CHECK(equal(slice(a, 0, 1, 2), t2(1, 2, {3, 4})));
    CHECK(equal(slice(a, 1, 0, 1), t2(2, 1, {1, 3})));
    CHECK(slice(a, 1, 1, 1).shape() == Shape{2, 0});
    Tensor m = reshape(Tensor::arange(12), {2, 3, 2});
    CHECK(equal(slice(m, 1, 1, 3), Tensor({2, 2, 2}, {2, 3, 4, 5, 8, 9, 10, 11})));
    CHECK(equal(index_select(Tensor({3, 2}, {1, 2, 3, 4, 5, 6}), {2, 0, 2}), Tensor({3, 2}, {5, 6, 1, 2, 5, 6})));
    CHECK(equal(index_select(t1({9, 8, 7}), {1}), t1({8})));
  }

  TEST_CASE("layout mistakes name the op and the shapes") {
    Tensor a = Tensor::zeros({2, 2});
    CHECK_THROWS_WITH_AS(concat({a, Tensor::zeros({3, 3})}, 0), "concat: shapes [2, 2] and [3, 3] differ off axis 0",
                         Error);
    CHECK_THROWS_WITH_AS(concat({a, Tensor::zeros({2})}, 0), "concat: shapes [2, 2] and [2] differ off axis 0", Error);
    CHECK_THROWS_WITH_AS(concat({a}, 2), "concat: axis 2 out of range for shape [2, 2]", Error);
    CHECK_THROWS_WITH_AS(concat({}, 0), "concat: no tensors", Error);
    CHECK_THROWS_WITH_AS(stack({a, Tensor::zeros({2, 3})}, 0), "stack: shapes [2, 2] and [2, 3] differ", Error);
    CHECK_THROWS_WITH_AS(stack({a}, 3), "stack: axis 3 out of range for stacking tensors of shape [2, 2]", Error);
    CHECK_THROWS_WITH_AS(stack({}, 0), "stack: no tensors", Error);
    CHECK_THROWS_WITH_AS(slice(a, 1, 1, 3), "slice: [1, 3) out of range for axis 1 of shape [2, 2]", Error);
    CHECK_THROWS_WITH_AS(slice(a, 0, 2, 1), "slice: [2, 1) out of range for axis 0 of shape [2, 2]", Error);
    CHECK_THROWS_WITH_AS(slice(a, 2, 0, 1), "slice: axis 2 out of range for shape [2, 2]", Error);
    CHECK_THROWS_WITH_AS(index_select(a, {0, 2}), "index_select: index 2 out of range for 2 rows of shape [2, 2]",
                         Error);
    CHECK_THROWS_WITH_AS(index_select(Tensor::scalar(1), {0}), "index_select: needs at least 1 axis, got shape []",
                         Error);
  }

  TEST_CASE("softmax and log_softmax, by hand") {
    // softmax([0, ln 2, ln 3]) = [1, 2, 3] / 6
    Tensor x = t1({0, std::log(2.0), std::log(3.0)});
    CHECK(allclose(softmax(x, 0), t1({1.0 / 6, 2.0 / 6, 3.0 / 6})));
    CHECK(allclose(log_softmax(x, 0), t1({std::log(1.0 / 6), std::log(2.0 / 6), std::log(3.0 / 6)})));
    // Adding a constant to every logit changes nothing.
    CHECK(allclose(softmax(add(x, 100), 0), softmax(x, 0)));
    // Along each axis of a [2, 2]: rows (axis 1) or columns (axis 0) sum to one.
    Tensor m = t2(2, 2, {0, std::log(3.0), std::log(4.0), 0});
    CHECK(allclose(softmax(m, 1), t2(2, 2, {0.25, 0.75, 0.8, 0.2})));
    CHECK(allclose(softmax(m, 0), t2(2, 2, {0.2, 0.75, 0.8, 0.25})));
    CHECK(allclose(softmax(m, -1), softmax(m, 1)));
    // The middle axis of a 3-D tensor: every (o, :, j) column sums to one.
    Generator g(1);
    Tensor c = Tensor::normal({2, 3, 4}, 0, 3, g);
    CHECK(allclose(sum(softmax(c, 1), 1), Tensor::ones({2, 4})));
    CHECK(allclose(exp(log_softmax(c, 1)), softmax(c, 1)));
    CHECK_THROWS_WITH_AS(softmax(m, 2), "softmax: axis 2 out of range for shape [2, 2]", Error);
    CHECK_THROWS_WITH_AS(log_softmax(m, -3), "log_softmax: axis -3 out of range for shape [2, 2]", Error);
  }

  TEST_CASE("softmax and log_softmax stay finite and right at logits of +-1e4") {
    // exp(1e4) overflows a double; subtracting the maximum first keeps every exp in (0, 1].
    Tensor x = t1({1e4, -1e4, 1e4});
    Tensor p = softmax(x, 0), lp = log_softmax(x, 0);
    CHECK(equal(p, t1({0.5, 0, 0.5})));
    CHECK(allclose(lp, t1({-std::log(2.0), -2e4 - std::log(2.0), -std::log(2.0)})));
    // One logit 1 below the other: the two split e : 1, the third gets nothing.
    Tensor y = t1({1e4, 1e4 - 1, -1e4});
    real e = std::exp(1.0);
    CHECK(allclose(softmax(y, 0), t1({e / (1 + e), 1 / (1 + e), 0})));
    CHECK(allclose(log_softmax(y, 0), t1({-std::log1p(1 / e), -1 - std::log1p(1 / e), static_cast<real>(-2e4 - std::log1p(1 / e))})));
    Tensor half = log_softmax(t1({-1e4, -1e4}), 0);
    CHECK(equal(half, t1({-std::log(2.0), -std::log(2.0)})));
  }

  TEST_CASE("masked_fill writes the value where the mask is non-zero, broadcasting the mask") {
    Tensor x = t2(2, 3, {1, 2, 3, 4, 5, 6});
    CHECK(equal(masked_fill(x, t2(2, 3, {0, 1, 0, 1, 0, 0}), -9), t2(2, 3, {1, -9, 3, -9, 5, 6})));
    CHECK(equal(masked_fill(x, t1({0, 0, 1}), 0), t2(2, 3, {1, 2, 0, 4, 5, 0})));  // [3] over [2, 3]
    CHECK(equal(masked_fill(x, t2(2, 1, {1, 0}), 7), t2(2, 3, {7, 7, 7, 4, 5, 6})));  // [2, 1] over [2, 3]
    // A fully masked row of logits filled with -inf would give NaN in softmax; a large negative
    // number does not.
    Tensor s = softmax(masked_fill(x, t1({0, 1, 1}), -1e9), 1);
    CHECK(allclose(s, t2(2, 3, {1, 0, 0, 1, 0, 0})));
    CHECK_THROWS_WITH_AS(masked_fill(x, Tensor::zeros({2}), 0), doctest::Contains("masked_fill: shapes [2, 3] and [2]"),
                         Error);
    CHECK_THROWS_WITH_AS(masked_fill(t1({1, 2, 3}), Tensor::zeros({2, 3}), 0),
                         "masked_fill: mask [2, 3] does not broadcast to [3]", Error);
  }

  TEST_CASE("chapter 01 shows what its program prints" * DOUBLE_ONLY(kChapterTextReason)) { check_chapter("tutorials/01_tensors"); }
}

TEST_SUITE("ch01_tensor") {
  TEST_CASE("a shape whose element count overflows 64 bits is refused, never a wrong numel") {
    const int64_t big = int64_t(1) << 32;
    CHECK_THROWS_WITH_AS(Tensor::zeros({big, big}), doctest::Contains("overflows a 64-bit integer"), Error);
    CHECK_THROWS_WITH_AS(Tensor::empty({3, big, big}), doctest::Contains("[3, 4294967296, 4294967296]"), Error);
    // A zero size makes no elements, but the other sizes must still fit (kernels multiply them).
    CHECK_THROWS_WITH_AS(Tensor::zeros({0, big, big}), doctest::Contains("overflows"), Error);
    CHECK(Tensor::zeros({0, big}).numel() == 0);
    CHECK_THROWS_WITH_AS(reshape(Tensor::zeros({4}), {big, big, -1}), doctest::Contains("reshape"), Error);
    CHECK_THROWS_WITH_AS(Tensor(Shape{big, big}, std::vector<real>{}), doctest::Contains("overflows"), Error);
  }
}
