// The decoder-only model (--model decoder, models/decoder_model.h) equals its PyTorch reference,
// models.DecoderOnly of reference/pytorch/models.py (stock nn.Embedding, nn.MultiheadAttention or
// nn.TransformerEncoderLayer with a causal mask, nn.LayerNorm, nn.Linear), on the same weights:
// logits, loss and the gradient of every parameter, to 1e-12 in double, on a padded batch, for
// attention-only layers and for full post-norm and pre-norm ones, and with the output layer's
// weight tied to the embedding (--share-embeddings). The golden numbers are literals
// in tests/models/ch14_decoder_golden.h, made by reference/pytorch/decoder_golden.py (torch is not
// needed to run this test).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "models/decoder_model.h"
#include "tests/models/ch14_decoder_golden.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

// The script's fill(): 0.5 sin(0.7 i + k) in row-major order.
Tensor fill(const Shape& shape, int k) {
  Tensor t = Tensor::zeros(shape);
  for (int64_t i = 0; i < t.numel(); ++i) t[i] = 0.5 * std::sin(0.7 * static_cast<real>(i) + k);
  return t;
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

void check_against_torch(bool attention_only, bool norm_first, const std::string& positions,
                         const std::vector<double>& logits_want, double loss_want,
                         const std::vector<golden_decoder::Grad>& grads_want, bool share_embeddings = false) {
  ModelConfig c;
  c.model = "decoder";
  c.src_vocab = c.tgt_vocab = 7;
  c.embed = 4;
  c.heads = 2;
  c.layers = 2;
  c.ff = 3;
  c.max_src_len = 6;
  c.attention_only = attention_only;
  c.norm_first = norm_first;
  c.positions = positions;
  c.share_embeddings = share_embeddings;
  Generator gen(0);
  DecoderModel model(c, gen);
  // Parameter k in the PyTorch module's order gets fill(shape, k); the names must agree as well.
  auto params = model.named_parameters();
  REQUIRE(params.size() == grads_want.size());
  for (size_t k = 0; k < params.size(); ++k) {
    CHECK(params[k].first == grads_want[k].name);
    params[k].second.value() = fill(params[k].second.shape(), static_cast<int>(k + 1));
  }
  // The script's batch: ids BOS 3 5 3 6 and BOS 4 4 PAD PAD, targets shifted by one, EOS last.
  Batch batch = make_batch({{{3}, {3, 5, 3, 6}}, {{3}, {4, 4}}});
  REQUIRE(batch.tgt_in == std::vector<int64_t>{1, 3, 5, 3, 6, 1, 4, 4, 0, 0});
  REQUIRE(batch.tgt_out == std::vector<int64_t>{3, 5, 3, 6, 2, 4, 4, 2, 0, 0});
  check_equal(model.forward(batch).value(), logits_want, "logits");
  Var loss = model.loss(batch);
  CHECK(std::fabs(loss.item() - loss_want) <= 1e-12 * std::fabs(loss_want));
  loss.backward();
  for (size_t k = 0; k < params.size(); ++k) check_equal(params[k].second.grad(), grads_want[k].values, params[k].first);
}

}  // namespace

TEST_SUITE("ch14_decoder_torch") {
  TEST_CASE("equals models.DecoderOnly, attention-only (nn.MultiheadAttention): logits, loss, every gradient to 1e-12" *
            DOUBLE_ONLY(kPytorchFp64Reason)) {
    using namespace golden_decoder;
    check_against_torch(true, false, "sinusoidal", kAttentionOnlyLogits, kAttentionOnlyLoss, kAttentionOnlyGrads);
  }

  TEST_CASE("equals models.DecoderOnly, post-norm layers, learned positions: logits, loss, every gradient to 1e-12" *
            DOUBLE_ONLY(kPytorchFp64Reason)) {
    using namespace golden_decoder;
    check_against_torch(false, false, "learned", kPostLogits, kPostLoss, kPostGrads);
  }

  TEST_CASE("equals models.DecoderOnly, pre-norm layers (norm_first): logits, loss, every gradient to 1e-12" *
            DOUBLE_ONLY(kPytorchFp64Reason)) {
    using namespace golden_decoder;
    check_against_torch(false, true, "sinusoidal", kPreLogits, kPreLoss, kPreGrads);
  }

  TEST_CASE("equals models.DecoderOnly, out.weight tied to embed.weight: logits, loss, every gradient (both uses') to 1e-12" *
            DOUBLE_ONLY(kPytorchFp64Reason)) {
    using namespace golden_decoder;
    check_against_torch(true, false, "learned", kTiedLogits, kTiedLoss, kTiedGrads, true);
  }
}
