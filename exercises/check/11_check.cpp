// Chapter 11's checks: best_extensions against a plain sort of every extension, on random
// log-probabilities (beams of 3 and 1, n from 1 to all), and on rows built to tie so that each
// tie-break rule decides; rank_hypotheses on hypotheses whose order by length-normalised score
// differs from their order by raw log-probability, with ties.
#include <algorithm>
#include <cmath>

#include "exercises/11_translation/exercises.h"
#include "exercises/check/11_check.h"

namespace heed::check {

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
const ForbiddenCalls kForbidden11 = {
    {"best_extensions", {"heed::beam_search"}},
    {"rank_hypotheses", {"heed::beam_search"}},
};

namespace {

std::string str(const std::vector<BeamCandidate>& cs) {
  std::string s;
  for (const BeamCandidate& c : cs) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s(parent %lld, token %lld, total %.6g)", s.empty() ? "" : " ",
                  static_cast<long long>(c.parent), static_cast<long long>(c.token), c.total);
    s += buf;
  }
  return s;
}

std::string str(const std::vector<Hypothesis>& hs) {
  std::string s;
  for (const Hypothesis& h : hs) {
    s += "\n    [";
    for (size_t i = 0; i < h.tokens.size(); ++i) s += (i ? " " : "") + std::to_string(h.tokens[i]);
    char buf[64];
    std::snprintf(buf, sizeof buf, "] log_prob %.6g score %.6g", h.log_prob, h.score);
    s += buf;
  }
  return s;
}

// Every extension, sorted by the rules of models/beam.h.
std::vector<BeamCandidate> reference(const Tensor& lp, const std::vector<real>& totals, int64_t n) {
  const int64_t K = lp.shape()[0], V = lp.shape()[1];
  std::vector<BeamCandidate> all;
  for (int64_t k = 0; k < K; ++k)
    for (int64_t v = 0; v < V; ++v) all.push_back({k, v, totals[k] + lp[k * V + v]});
  std::stable_sort(all.begin(), all.end(), [&](const BeamCandidate& a, const BeamCandidate& b) {
    if (a.total != b.total) return a.total > b.total;
    if (lp[a.parent * V + a.token] != lp[b.parent * V + b.token]) return lp[a.parent * V + a.token] > lp[b.parent * V + b.token];
    if (a.token != b.token) return a.token < b.token;
    return a.parent < b.parent;
  });
  all.resize(n);
  return all;
}

}  // namespace

std::vector<Exercise> exercises_11(const Impl11& impl) {
  return {
      {"best_extensions",
       [impl] {
         Generator gen(seed(1101));
         struct Case {
           Tensor lp;
           std::vector<real> totals;
           int64_t n;
         };
         std::vector<Case> cases;
         for (int64_t n : {1, 3, 12}) cases.push_back({log_softmax(random({3, 4}, gen, -3, 3), 1), {-0.5, -2.0, -1.1}, n});
         cases.push_back({log_softmax(random({1, 5}, gen, -3, 3), 1), {0.0}, 5});
         // Ties on the total: parent 0 took -1 then -1, parent 1 took 0 then -2 (total -2 both).
         cases.push_back({Tensor({2, 3}, {-1, -2, -3, -2, -2, -1}), {-1, 0}, 6});
         // Ties on total and step: decided by the lower token, then the lower parent.
         cases.push_back({Tensor({2, 2}, {-1, -1, -1, -1}), {0, 0}, 4});
         for (const Case& c : cases) {
           auto expected = reference(c.lp, c.totals, c.n);
           auto got = impl.best_extensions(c.lp, c.totals, c.n);
           bool same = got.size() == expected.size();
           for (size_t i = 0; same && i < got.size(); ++i)
             same = got[i].parent == expected[i].parent && got[i].token == expected[i].token &&
                    std::fabs(got[i].total - expected[i].total) <= 1e-12;
           if (!same) {
             std::string totals;
             for (real t : c.totals) totals += (totals.empty() ? "" : ", ") + std::to_string(t);
             wrong("best_extensions, n " + std::to_string(c.n) + ":\n  expected " + str(expected) + "\n  got      " + str(got) +
                   "\n  input: " + describe("log_probs", c.lp) + "\n  totals [" + totals + "]");
           }
         }
       }},
      {"rank_hypotheses",
       [impl] {
         auto hyp = [](std::vector<int64_t> tokens, real log_prob) {
           Hypothesis h;
           h.tokens = std::move(tokens);
           h.log_prob = log_prob;
           h.finished = true;
           return h;
         };
         // Short and long: by raw log_prob the short one wins, by score (per token) the long one.
         std::vector<Hypothesis> hs = {hyp({5, 2}, -1.2), hyp({5, 6, 7, 8, 2}, -2.0), hyp({6, 6, 2}, -1.5),
                                       hyp({7, 2}, -1.0), hyp({4, 2}, -1.0), hyp({9, 9, 9, 9, 2}, -2.5)};
         // By score: -0.4 [5 6 7 8 2], -0.5 [4 2] and [7 2] and [6 6 2] (ties by log_prob: -1.0, -1.0, then
         // -1.5; [4 2] before [7 2] by tokens), -0.5 [9 9 9 9 2] last (log_prob -2.5), -0.6 [5 2].
         std::vector<std::vector<int64_t>> order = {{5, 6, 7, 8, 2}, {4, 2}, {7, 2}, {6, 6, 2}, {9, 9, 9, 9, 2}, {5, 2}};
         std::vector<Hypothesis> got = hs;
         impl.rank_hypotheses(got);
         bool same = got.size() == order.size();
         for (size_t i = 0; same && i < got.size(); ++i)
           same = got[i].tokens == order[i] &&
                  std::fabs(got[i].score - got[i].log_prob / static_cast<real>(got[i].tokens.size())) <= 1e-15;
         if (!same) {
           std::vector<Hypothesis> expected = hs;
           for (Hypothesis& h : expected) h.score = h.log_prob / static_cast<real>(h.tokens.size());
           std::vector<Hypothesis> sorted;
           for (const auto& o : order)
             for (const Hypothesis& h : expected)
               if (h.tokens == o) sorted.push_back(h);
           wrong("rank_hypotheses:\n  expected" + str(sorted) + "\n  got" + str(got) + "\n  input:" + str(hs));
         }
       }},
  };
}

static Register reg({"11", "exercises/11_translation", "student", [] { return exercises_11(HEED_IMPL_11(heed::student)); }, kForbidden11});

}  // namespace heed::check
