// Chapter 09: what a trained model's attention matrix shows. An additive model trained for a
// second or two (fixed seeds) on reverse puts each output step's largest weight on the mirrored
// source position, and on copy on the same position.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "models/seq2seq.h"
#include "models/tasks/tasks.h"
#include "models/train.h"
#include "tests/support/chapter_check.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

// Trains the additive model (E 16, H 32) on `task` with fixed seeds, then decodes 200 new
// sources greedily and returns the fraction of output steps, <eos> steps left out, whose
// largest attention weight falls on the source position `expected(L, t)`.
template <typename Expected>
real aligned_fraction(const Task& task, Expected expected) {
  ModelConfig c;
  c.model = "additive";
  c.src_vocab = c.tgt_vocab = task.src_vocab().size();
  c.embed = 16;
  c.hidden = 32;
  c.max_src_len = 2 * task.max_len();
  Generator gen(3);
  Seq2Seq model(c, gen);
  TrainOptions opt;
  opt.steps = 500;
  opt.batch = 16;
  opt.seed = 102;
  train(model, task, opt);

  Generator data(12345);
  Batch batch = sample_batch(task, data, 200);
  Decoded d = model.greedy(batch, batch.tgt_len);
  int64_t hits = 0, total = 0;
  for (int64_t b = 0; b < batch.batch; ++b) {
    const int64_t L = batch.lengths[b];
    for (int64_t t = 0; t < L; ++t) {
      const std::vector<real>& w = d.attention[b][t];
      hits += std::max_element(w.begin(), w.end()) - w.begin() == expected(L, t);
      ++total;
    }
  }
  return static_cast<real>(hits) / static_cast<real>(total);
}

}  // namespace

TEST_SUITE("ch09_attention_matrices") {
  TEST_CASE("alignment: trained on reverse, attention peaks on the mirrored source position") {
    ReverseTask task(10, 4, 7);
    real fraction = aligned_fraction(task, [](int64_t L, int64_t t) { return L - 1 - t; });
    INFO("output steps whose largest weight is on source position L-1-t: " << fraction);
    CHECK(fraction >= 0.9);  // measured 0.999
  }

  TEST_CASE("alignment: trained on copy, attention peaks on the same source position") {
    CopyTask task(10, 4, 7);
    real fraction = aligned_fraction(task, [](int64_t, int64_t t) { return t; });
    INFO("output steps whose largest weight is on source position t: " << fraction);
    CHECK(fraction >= 0.9);  // measured 0.999
  }
}

TEST_SUITE("ch09_attention_matrices") {
  TEST_CASE("chapter 09 shows what its program prints" * DOUBLE_ONLY(kChapterTextReason)) { check_chapter("tutorials/09_attention_matrices"); }
}
