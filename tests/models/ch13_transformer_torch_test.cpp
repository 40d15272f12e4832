// Chapter 13: heed's Transformer equals torch.nn.Transformer on the same weights, forward and
// gradients, on a padded batch, to 1e-12 in double, post-norm and pre-norm. The golden numbers
// are literals in tests/models/ch13_transformer_golden.h, made by reference/pytorch/transformer_golden.py
// (torch is not needed to run this test).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "autograd/functions.h"
#include "nn/transformer_layers.h"
#include "tests/models/ch13_transformer_golden.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

// The script's fill(): 0.5 sin(0.7 i + k) in row-major order.
Tensor fill(const Shape& shape, int k) {
  Tensor t = Tensor::zeros(shape);
  for (int64_t i = 0; i < t.numel(); ++i) t[i] = 0.5 * std::sin(0.7 * static_cast<real>(i) + k);
  return t;
}

Tensor padding_of(const std::vector<int64_t>& lengths, int64_t L) {
  Tensor p = Tensor::zeros({static_cast<int64_t>(lengths.size()), L});
  for (size_t b = 0; b < lengths.size(); ++b)
    for (int64_t i = 0; i < lengths[b]; ++i) p[static_cast<int64_t>(b) * L + i] = 1;
  return p;
}

// Every element within 1e-12 of PyTorch's, relative to the tensor's largest element.
void check_equal(const Tensor& got, const std::vector<double>& want, const std::string& what) {
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  real scale = 0;
  for (double w : want) scale = std::max<real>(scale, std::fabs(w));
  for (int64_t i = 0; i < got.numel(); ++i) {
    INFO(what << " element " << i << ": heed " << got[i] << ", PyTorch " << want[i] << ", largest " << scale);
    CHECK(std::fabs(got[i] - want[i]) <= 1e-12 * scale);
  }
}

void check_against_torch(bool norm_first, const std::vector<double>& out_want, double loss_want,
                         const std::vector<double>& dsrc_want, const std::vector<double>& dtgt_want,
                         const std::vector<golden_transformer::Grad>& grads_want) {
  const int64_t D = 4, S = 4, T = 3;
  Generator gen(0);
  LayerSizes sizes{D, 2, 3, norm_first};
  TransformerEncoder encoder(2, sizes, gen);
  TransformerDecoder decoder(2, sizes, gen);
  // Parameter k in nn.Transformer's order gets fill(shape, k); the names must agree as well.
  std::vector<std::pair<std::string, Var>> params;
  for (auto& [n, p] : encoder.named_parameters()) params.push_back({"encoder." + n, p});
  for (auto& [n, p] : decoder.named_parameters()) params.push_back({"decoder." + n, p});
  REQUIRE(params.size() == grads_want.size());
  for (size_t k = 0; k < params.size(); ++k) {
    CHECK(params[k].first == grads_want[k].name);
    params[k].second.value() = fill(params[k].second.shape(), static_cast<int>(k + 1));
  }
  Var src(fill({2, S, D}, 100), true), tgt(fill({2, T, D}, 101), true);
  Tensor src_pad = padding_of({4, 2}, S), tgt_pad = padding_of({3, 2}, T);
  Var memory = encoder.forward(src, key_mask(src_pad, S, false));
  Var out = decoder.forward(tgt, key_mask(tgt_pad, T, true), memory, key_mask(src_pad, T, false));
  check_equal(out.value(), out_want, "output");
  Tensor R = fill({2, T, D}, 500);  // the script's loss: sum(out * R) over real target rows
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t t = 0; t < T; ++t)
      if (tgt_pad[b * T + t] == 0)
        for (int64_t d = 0; d < D; ++d) R[(b * T + t) * D + d] = 0;
  Var loss = sum(out * Var(R));
  CHECK(std::fabs(loss.item() - loss_want) <= 1e-12 * std::fabs(loss_want));
  loss.backward();
  check_equal(src.grad(), dsrc_want, "d source");
  check_equal(tgt.grad(), dtgt_want, "d target");
  for (size_t k = 0; k < params.size(); ++k) check_equal(params[k].second.grad(), grads_want[k].values, params[k].first);
}

}  // namespace

TEST_SUITE("ch13_transformer_torch") {
  TEST_CASE("equals torch.nn.Transformer, post-norm: output, loss and every gradient to 1e-12 (padded batch)" * DOUBLE_ONLY(kPytorchFp64Reason)) {
    using namespace golden_transformer;
    check_against_torch(false, kPostOut, kPostLoss, kPostDsrc, kPostDtgt, kPostGrads);
  }

  TEST_CASE("equals torch.nn.Transformer, pre-norm (norm_first): output, loss and every gradient to 1e-12" * DOUBLE_ONLY(kPytorchFp64Reason)) {
    using namespace golden_transformer;
    check_against_torch(true, kPreOut, kPreLoss, kPreDsrc, kPreDtgt, kPreGrads);
  }
}
