// Chapter 13's training recipe, the paper's (Vaswani et al. 2017): the warm-up schedule of section
// 5.3 (--schedule warmup), label smoothing of section 5.4 (smoothed_cross_entropy,
// --label-smoothing) and the shared output embedding of section 3.4 (--share-embeddings): the
// values against PyTorch and the paper's formula, gradient checks in double, the checkpoint's
// names, a resume that ends byte-identical, and the refusals.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "models/train.h"
#include "models/transformer.h"
#include "nn/checkpoint.h"
#include "nn/loss.h"
#include "tests/support/heed_cli.h"
#include "tests/support/model_fixtures.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

void check_values(const Tensor& t, const std::vector<real>& want, real tol) {
  REQUIRE(t.numel() == static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < t.numel(); ++i) {
    CAPTURE(i);
    CHECK(std::fabs(t[i] - want[i]) <= tol);
  }
}

}  // namespace

TEST_SUITE("ch13_recipe") {
  TEST_CASE("smoothed_cross_entropy: values and gradient against PyTorch, PAD ignored" * DOUBLE_ONLY(kPytorchFp64Reason)) {
    // Made with /usr/bin/python3 (torch, float64):
    // import torch; torch.set_default_dtype(torch.float64)
    // z = torch.tensor([[1., 2., .5, -1.], [0., -3., 2.5, 1.], [4., 1., -2., 0.]], requires_grad=True)
    // loss = torch.nn.functional.cross_entropy(z, torch.tensor([1, 0, 3]), ignore_index=0, label_smoothing=0.1)
    // loss.backward(); print(repr(loss.item()), z.grad.flatten().tolist())
    Var z(Tensor({3, 4}, {1, 2, .5, -1, 0, -3, 2.5, 1, 4, 1, -2, 0}), true);
    Var loss = smoothed_cross_entropy(z, {1, 0, 3}, 0.1, 0);
    CHECK(loss.shape() == Shape{});
    CHECK(std::fabs(loss.item() - 2.3129419094957817) <= 1e-14);
    loss.backward();
    check_values(z.grad(),
                 {0.09960390902410057, -0.15776998120056146, 0.055494457896752766, 0.002671614279708112, 0, 0, 0, 0,
                  0.45453592295039924, 0.010752349426179957, -0.011342333689405317, -0.4539459386871738},
                 1e-15);
  }

  TEST_CASE("smoothed_cross_entropy: eps 0 is cross_entropy; eps spreads the target; bad input is refused") {
    Generator gen(3);
    Tensor zv = Tensor::uniform({6, 5}, -3, 3, gen);
    const std::vector<int64_t> t{4, 0, 2, 2, 0, 1};
    Var a(zv, true), b(zv, true);
    Var plain = cross_entropy(a, t, 0), smoothed = smoothed_cross_entropy(b, t, 0, 0);
    CHECK(plain.item() == smoothed.item());
    plain.backward();
    smoothed.backward();
    CHECK(allclose(a.grad(), b.grad(), 0, test::tol(1e-15)));
    // eps 1: the target is uniform, the loss the mean over classes of -log p: at equal logits log V.
    CHECK(std::fabs(smoothed_cross_entropy(Var(Tensor::zeros({2, 5})), {0, 4}, 1).item() - std::log(5.0)) <=
          test::tol(1e-15));
    // A confident right answer costs more once smoothed: the smoothed target is not one-hot.
    Var sure(Tensor({1, 3}, {10, 0, 0}));
    CHECK(smoothed_cross_entropy(sure, {0}, 0.1).item() > cross_entropy(sure, {0}).item() + 0.5);
    // Every target ignored: 0 and a zero gradient, as cross_entropy.
    Var c(Tensor({2, 3}, {1, 2, 3, 4, 5, 6}), true);
    Var none = smoothed_cross_entropy(c, {0, 0}, 0.1, 0);
    CHECK(none.item() == 0);
    none.backward();
    CHECK(equal(c.grad(), Tensor::zeros({2, 3})));
    for (real eps : {real(-0.1), real(1.5), std::numeric_limits<real>::quiet_NaN()})
      CHECK_THROWS_WITH_AS(smoothed_cross_entropy(a, t, eps), doctest::Contains("smoothed_cross_entropy: eps is"), Error);
    CHECK_THROWS_WITH_AS(smoothed_cross_entropy(a, {4, 0, 2, 2, 0, 5}, 0.1, 0),
                         doctest::Contains("target[5] = 5 is out of range for V = 5"), Error);
    CHECK_THROWS_WITH_AS(smoothed_cross_entropy(a, {1}, 0.1), doctest::Contains("has 6 rows but there are 1 targets"),
                         Error);
  }

  TEST_CASE("smoothed_cross_entropy: gradcheck, with ignored targets" * DOUBLE_ONLY(kGradcheckReason)) {
    Generator gen(8);
    for (real eps : {0.1, 0.3})
      for (const std::vector<int64_t>& targets : {std::vector<int64_t>{1, 3, 2, 1, 2}, std::vector<int64_t>{1, 0, 3, 0, 2}}) {
        Var z(Tensor::uniform({5, 4}, -2, 2, gen), true);
        GradcheckReport r = gradcheck([&] { return smoothed_cross_entropy(z, targets, eps, 0); }, {z},
                                      {.name = "smoothed_cross_entropy eps " + std::to_string(eps)});
        INFO(r.str());
        CHECK(r.ok);
      }
  }

  TEST_CASE("warmup: lr min(s / w, sqrt(w / s)) peaks at --lr at step w, and is the paper's formula scaled") {
    TrainOptions opt;
    opt.schedule = "warmup";
    opt.lr = 3e-3;
    opt.warmup = 100;
    opt.steps = 1000;
    const double e = test::tol(1e-14);
    CHECK(scheduled_lr(opt, 0) == doctest::Approx(3e-3 / 100).epsilon(e));  // step 1
    CHECK(scheduled_lr(opt, 49) == doctest::Approx(1.5e-3).epsilon(e));     // step 50: half way up
    CHECK(scheduled_lr(opt, 99) == opt.lr);                                  // step 100: the peak
    CHECK(scheduled_lr(opt, 399) == doctest::Approx(1.5e-3).epsilon(e));    // step 400: 1 / sqrt(4)
    // Section 5.3: lrate = d^-0.5 min(s^-0.5, s w^-1.5), d 512, w 4000; with --lr set to its peak
    // d^-0.5 w^-0.5 the two agree at every step.
    const real d = 512, w = 4000;
    opt.warmup = 4000;
    opt.steps = 100000;
    opt.lr = 1 / std::sqrt(d * w);
    for (int64_t t : {0, 1, 999, 3998, 3999, 4000, 9999, 99999}) {
      const real s = static_cast<real>(t + 1);
      const real paper = std::pow(d, -0.5) * std::min(std::pow(s, -0.5), s * std::pow(w, -1.5));
      CAPTURE(t);
      CHECK(std::fabs(scheduled_lr(opt, t) - paper) <= test::tol(1e-14) * paper);
    }
  }

  TEST_CASE("the Trainer refuses a warm-up of no steps and a smoothing outside [0, 1)") {
    ReverseTask task(10, 2, 4);
    Generator gen(1);
    std::unique_ptr<Model> m = make_model(test::tiny_transformer(), gen);
    TrainOptions opt = test::train_options(3, 2);
    opt.schedule = "warmup";
    opt.warmup = 0;
    CHECK_THROWS_WITH_AS(Trainer(*m, task, opt), doctest::Contains("--warmup is 0, must be at least 1"), Error);
    opt.warmup = 1;
    opt.label_smoothing = 1;
    CHECK_THROWS_WITH_AS(Trainer(*m, task, opt), doctest::Contains("--label-smoothing is 1, must be in [0, 1)"), Error);
  }

  TEST_CASE("shared embeddings: one table, registered once; out reads it; the count and the metadata agree") {
    ModelConfig c = test::tiny_transformer();
    c.share_embeddings = true;
    Generator gen(1), gen2(1);
    TransformerSeq2Seq tied(c, gen);
    ModelConfig untied_config = c;
    untied_config.share_embeddings = false;
    TransformerSeq2Seq untied(untied_config, gen2);
    CHECK(tied.num_parameters() == c.parameter_count());
    CHECK(untied.num_parameters() - tied.num_parameters() == c.tgt_vocab * c.embed);
    std::set<std::string> names;
    for (auto& [n, p] : tied.named_parameters()) names.insert(n);
    CHECK(names.count("tgt_embed.weight") == 1);
    CHECK(names.count("out.bias") == 1);
    CHECK(names.count("out.weight") == 0);
    // Every other weight is the untied model's: the tied one drew out's weight and dropped it.
    CHECK(equal(tied.named_parameters()[0].second.value(), untied.named_parameters()[0].second.value()));
    CHECK(equal(tied.named_parameters().back().second.value(), untied.named_parameters().back().second.value()));
    // out reads the embedding: change the table, the logits follow.
    Batch batch = test::two_sequences();
    Tensor before = tied.forward(batch).value();
    Tensor h = Tensor::ones({1, c.embed});
    Tensor logits_before = tied.logits(Var(h)).value();
    Var table = tied.tgt_embed().weight;  // the handle: the same values
    table.value()[3 * c.embed] += 1;       // row 3, feature 0
    Tensor logits_after = tied.logits(Var(h)).value();
    CHECK(logits_after[3] == doctest::Approx(logits_before[3] + 1).epsilon(1e-12));
    CHECK(logits_after[2] == logits_before[2]);
    CHECK(!equal(tied.forward(batch).value(), before));
    // Metadata: written only when on (other checkpoints keep their bytes), read back.
    CHECK(untied_config.to_metadata().count("share_embeddings") == 0);
    CHECK(c.to_metadata().at("share_embeddings") == "1");
    CHECK(ModelConfig::from_metadata(c.to_metadata()).share_embeddings);
    // A checkpoint round trip gives the same model.
    Scratch s("tied-ckpt");
    save_checkpoint(tied, s.path("t.st"), c.to_metadata());
    Generator other(99);
    TransformerSeq2Seq loaded(c, other);
    load_checkpoint(loaded, s.path("t.st"));
    CHECK(equal(loaded.forward(batch).value(), tied.forward(batch).value()));
    // Only the transformer has an output embedding to tie.
    ModelConfig rnn = test::tiny_rnn("additive");
    rnn.share_embeddings = true;
    CHECK_THROWS_WITH_AS(rnn.validate(), doctest::Contains("shared embeddings are for the transformer and the decoder-only model, not additive"),
                         Error);
  }

  TEST_CASE("gradcheck: the loss of a tied transformer w.r.t. every parameter, the table's two uses summed" *
            DOUBLE_ONLY(kGradcheckReason)) {
    ModelConfig c = test::tiny_transformer();
    c.share_embeddings = true;
    Generator gen(1);
    TransformerSeq2Seq model(c, gen);
    Batch batch = test::two_sequences();
    GradcheckReport r = gradcheck([&] { return model.loss(batch); }, model.parameters(), {.name = "tied transformer loss"});
    INFO(r.str());
    CHECK(r.ok);
  }

  TEST_CASE("heed train: warmup, smoothing and tying resume byte-identical; the flags are refused where they do not apply") {
    Scratch s("recipe-cli");
    const std::string run =
        "train --model transformer --min-len 2 --max-len 5 --embed 8 --heads 2 --ff 12 --layers 1 --batch 4"
        " --eval-samples 10 --steps 20 --schedule warmup --warmup 7 --label-smoothing 0.1 --share-embeddings";
    CliRun whole = s.heed(run + " --save " + s.path("full.st"));
    REQUIRE_MESSAGE(whole.status == 0, whole.err);
    // The rate climbs to --lr at step 7: step 1 has 0.003 / 7.
    CHECK(whole.err.find("step 1/20  ") != std::string::npos);
    CHECK(whole.err.find("lr 0.00043 ") != std::string::npos);
    CHECK(whole.out.find("shared embeddings") != std::string::npos);
    const auto meta = read_checkpoint_metadata(s.path("full.st"));
    CHECK(meta.at("schedule") == "warmup");
    CHECK(meta.at("warmup") == "7");
    // 17 significant digits: the value reads back to the same bits.
    CHECK(static_cast<real>(std::stod(meta.at("label_smoothing"))) == static_cast<real>(0.1));
    CHECK(meta.at("share_embeddings") == "1");
    CliRun first = s.heed_with_faults(run + " --save " + s.path("f.st"), "HEED_FAULT_SIGNAL=INT@9");
    CHECK(first.status == 130);
    CliRun rest = s.heed("train --resume " + s.path("f.st"));
    REQUIRE_MESSAGE(rest.status == 0, rest.err);
    CHECK(slurp(s.path("f.st")) == slurp(s.path("full.st")));

    // Refused, each with the flag named: nothing runs.
    struct Refusal {
      std::string args, says;
    };
    for (const Refusal& r :
         {Refusal{"train --steps 5 --warmup 10", "--warmup is for --schedule warmup (the schedule is linear)"},
          Refusal{"train --steps 5 --schedule constant --warmup 10", "--warmup is for --schedule warmup"},
          Refusal{"train --steps 5 --schedule warmup --warmup 0", "--warmup"},
          Refusal{"train --steps 5 --label-smoothing 1", "--label-smoothing"},
          Refusal{"train --steps 5 --model additive --share-embeddings", "--share-embeddings is for --model transformer or decoder, not additive"},
          Refusal{"train --resume " + s.path("f.st") + " --warmup 3", "--warmup cannot be given with --resume"},
          Refusal{"train --resume " + s.path("f.st") + " --label-smoothing 0.2", "--label-smoothing cannot be given with --resume"},
          Refusal{"train --resume " + s.path("f.st") + " --share-embeddings", "--share-embeddings cannot be given with --resume"},
          Refusal{"bench --model transformer --share-embeddings", "--share-embeddings"}}) {
      CAPTURE(r.args);
      CliRun bad = s.heed(r.args);
      CHECK(bad.status == 2);
      CHECK(bad.err.find(r.says) != std::string::npos);
    }
  }
}
