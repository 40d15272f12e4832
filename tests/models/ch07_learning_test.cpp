// Chapters 07-08: attention models learn reverse (lengths 5-10) in a few hundred steps.
#include <doctest/doctest.h>

#include "models/evaluate.h"
#include "tests/support/chapter_check.h"
#include "tests/support/model_fixtures.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

Accuracy train_reverse(const std::string& model) {
  ReverseTask task(10, 5, 10);
  test::Trained t = test::train_on(task, test::learner(model), 1, test::train_options(300, 32, 0.01, test::kCliDataSeed1));
  return evaluate_held_out(*t.model, task, 500, test::kCliHeldOutSeed1);
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
