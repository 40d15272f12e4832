// Chapter 06's checks: decoder_io against make_batch (models/tasks/tasks.h) on batches of mixed
// lengths, one sequence, and an empty target; greedy_decode against Seq2Seq::greedy on a briefly
// trained model (plain and additive, batches of 5 and 1); exact_and_tokens on outputs made to
// miss in each way it can (a wrong symbol, no EOS, EOS too early, right symbols past a mistake).
#include "exercises/06_seq2seq/exercises.h"
#include "exercises/check/06_check.h"
#include "models/evaluate.h"
#include "models/train.h"

namespace heed::check {

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
const ForbiddenCalls kForbidden06 = {
    {"decoder_io", {"heed::make_batch", "heed::sample_batch"}},
    {"greedy_decode", {"heed::Model::greedy", "heed::beam_search"}},
    {"exact_and_tokens", {"heed::score_batch", "heed::evaluate_held_out"}},
};

namespace {

std::string ids_str(const std::vector<int64_t>& ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? " " : "") + std::to_string(ids[i]);
  return s + "]";
}

void expect_ids(const std::vector<int64_t>& got, const std::vector<int64_t>& expected, const std::string& what,
                const std::string& input) {
  if (got != expected)
    wrong(what + ": expected " + ids_str(expected) + ", got " + ids_str(got) + "\n  input: " + input);
}

}  // namespace

std::vector<Exercise> exercises_06(const Impl06& impl) {
  return {
      {"decoder_io",
       [impl] {
         const std::vector<std::vector<std::vector<int64_t>>> cases = {
             {{5, 6, 7}, {8}, {9, 3}}, {{4, 4}}, {{3}, {}}};
         for (const auto& targets : cases) {
           std::vector<Example> ex;
           std::string in = "targets";
           for (const auto& y : targets) {
             ex.push_back({{3}, y});
             in += " " + ids_str(y);
           }
           Batch b = make_batch(ex);
           in += " (so T = " + std::to_string(b.tgt_len) + "; PAD 0, BOS 1, EOS 2)";
           auto [got_in, got_out] = impl.decoder_io(targets);
           expect_ids(got_in, b.tgt_in, "the decoder input (B, T)", in);
           expect_ids(got_out, b.tgt_out, "the decoder target (B, T)", in);
         }
       }},
      {"greedy_decode",
       [impl] {
         ReverseTask task(10, 2, 6);
         for (const char* kind : {"plain", "additive"}) {
           ModelConfig c;
           c.model = kind;
           c.embed = 8;
           c.hidden = 16;
           Generator gen(seed(601));
           Seq2Seq model(c, gen);
           TrainOptions opt;
           opt.steps = 30;
           opt.batch = 16;
           train(model, task, opt);  // a little training, so that the choices depend on what came before
           Generator data(seed(602));
           for (int64_t B : {5, 1}) {
             Batch batch = sample_batch(task, data, B);
             const int64_t steps = batch.tgt_len + 1;
             Decoded ref = model.greedy(batch, steps);
             auto got = impl.greedy_decode(model, batch, steps);
             if (static_cast<int64_t>(got.size()) != B) wrong("greedy_decode returned " + std::to_string(got.size()) + " rows for a batch of " + std::to_string(B));
             for (int64_t b = 0; b < B; ++b)
               expect_ids(got[b], ref.tokens[b], "row " + std::to_string(b) + "'s tokens",
                          std::string("the ") + kind + " model (E 8, H 16, seed " + std::to_string(seed(601)) + ", 30 steps on reverse), source " +
                              ids_str(std::vector<int64_t>(batch.src.begin() + b * batch.src_len,
                                                           batch.src.begin() + (b + 1) * batch.src_len)) +
                              ", batch of " + std::to_string(B) + ", " + std::to_string(steps) + " steps");
           }
         }
       }},
      {"exact_and_tokens",
       [impl] {
         struct Case {
           std::vector<int64_t> output, target;
           int64_t exact, tokens;
         };
         const std::vector<Case> cases = {
             {{5, 6, 7, 2, 0}, {5, 6, 7}, 1, 3},  // right, then EOS
             {{5, 6, 7, 8, 2}, {5, 6, 7}, 0, 3},  // right symbols, no EOS after them
             {{5, 9, 7, 2, 2}, {5, 6, 7}, 0, 2},  // one wrong symbol; the ones after it still count
             {{5, 2, 7, 2}, {5, 6, 7}, 0, 2},     // EOS too early
             {{2, 4}, {3}, 0, 0},                 // nothing right
             {{3, 2}, {3}, 1, 1},
         };
         for (const Case& c : cases) {
           auto [exact, tokens] = impl.exact_and_tokens(c.output, c.target);
           if (exact != c.exact || tokens != c.tokens)
             wrong("expected exact " + std::to_string(c.exact) + ", tokens " + std::to_string(c.tokens) + "; got exact " +
                   std::to_string(exact) + ", tokens " + std::to_string(tokens) + "\n  input: output " + ids_str(c.output) +
                   ", target " + ids_str(c.target) + " (EOS is 2)");
         }
       }},
  };
}

static Register reg({"06", "exercises/06_seq2seq", "student", [] { return exercises_06(HEED_IMPL_06(heed::student)); }, kForbidden06});

}  // namespace heed::check
