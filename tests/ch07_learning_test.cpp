// Chapters 07-08: attention models learn reverse (lengths 5-10) in a few hundred steps.
#include <doctest/doctest.h>

#include "models/train.h"
#include "tests/chapter_check.h"
#include "tests/precision.h"

using namespace heed;

namespace {

Accuracy train_reverse(const std::string& model) {
  ReverseTask task(10, 5, 10);
  ModelConfig c;
  c.model = model;
  c.src_vocab = c.tgt_vocab = task.src_vocab().size();
  c.embed = 32;
  c.hidden = 64;
  Generator gen(1);
  Seq2Seq m(c, gen);
  TrainOptions opt;
  opt.steps = 300;
  opt.batch = 32;
  opt.lr = 0.01;
  opt.seed = 1000004;  // as `heed train --seed 1`
  train(m, task, opt);
  return evaluate_held_out(m, task, 500, 7777778);
}

}  // namespace

TEST_SUITE("ch07_additive_attention") {
  TEST_CASE("learning: additive attention reaches exact >= 0.95 on reverse 5-10 in 300 steps") {
    Accuracy acc = train_reverse("additive");
    INFO("exact " << acc.exact() << ", token " << acc.token());
    CHECK(acc.exact() >= 0.95);
  }
}

TEST_SUITE("ch08_multiplicative_attention") {
  TEST_CASE("learning: general attention reaches exact >= 0.95 on reverse 5-10 in 300 steps") {
    Accuracy acc = train_reverse("general");
    INFO("exact " << acc.exact() << ", token " << acc.token());
    CHECK(acc.exact() >= 0.95);
  }
}

TEST_SUITE("ch07_additive_attention") {
  TEST_CASE("chapter 07 shows what its program prints" * DOUBLE_ONLY(kChapterTextReason)) { check_chapter("tutorials/07_additive_attention"); }
}

TEST_SUITE("ch08_multiplicative_attention") {
  TEST_CASE("chapter 08 shows what its program prints" * DOUBLE_ONLY(kChapterTextReason)) { check_chapter("tutorials/08_multiplicative_attention"); }
}
