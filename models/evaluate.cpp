#include "models/evaluate.h"

#include <algorithm>

#include "autograd/functions.h"
#include "models/decoder_model.h"
#include "models/tasks/translate.h"
#include "tensor/math.h"

namespace heed {

namespace {

int64_t context_of(const Batch& batch, int64_t b) { return batch.context.empty() ? 0 : batch.context[b]; }

}  // namespace

void score_batch(const Model& model, const Batch& batch, Accuracy& acc) {
  const bool has_context = std::any_of(batch.context.begin(), batch.context.end(), [](int64_t c) { return c > 0; });
  if (!has_context) {
    score_decoded(model.greedy(batch, batch.tgt_len), batch, acc);
    return;
  }
  // Each row's context, tgt_in[1 .. c] (s_1 .. s_n <sep>), and enough steps for the longest rest.
  std::vector<std::vector<int64_t>> prompts;
  int64_t steps = 1;
  for (int64_t b = 0; b < batch.batch; ++b) {
    const int64_t* in = batch.tgt_in.data() + b * batch.tgt_len;
    prompts.emplace_back(in + 1, in + 1 + batch.context[b]);
    steps = std::max(steps, batch.tgt_lengths[b] - batch.context[b]);
  }
  score_decoded(greedy_after(model, prompts, steps), batch, acc);
}

void score_decoded(const Decoded& d, const Batch& batch, Accuracy& acc) {
  const int64_t T = batch.tgt_len;
  for (int64_t b = 0; b < batch.batch; ++b) {
    const int64_t c = context_of(batch, b);          // given tokens: decoding starts after them
    const int64_t L = batch.tgt_lengths[b] - 1 - c;  // symbols to produce; then EOS
    bool exact = true;
    for (int64_t t = 0; t <= L; ++t) {
      bool right = d.tokens[b][t] == batch.tgt_out[b * T + c + t];
      exact = exact && right;
      if (t < L) {
        acc.tokens_right += right;
        ++acc.tokens;
      }
    }
    acc.exact_right += exact;
    ++acc.n;
  }
}

Decoded greedy_after(const Model& model, const std::vector<std::vector<int64_t>>& prompts, int64_t steps) {
  if (steps < 1) throw Error("greedy_after: steps " + std::to_string(steps) + " must be at least 1");
  if (prompts.empty()) throw Error("greedy_after: no prompts");
  NoGradGuard no_grad;
  const int64_t B = static_cast<int64_t>(prompts.size());
  int64_t longest = 0;
  for (const auto& p : prompts) longest = std::max<int64_t>(longest, static_cast<int64_t>(p.size()));
  Batch rows;
  rows.batch = B;
  std::unique_ptr<StepState> st = model.start_decoding(rows);
  Decoded d;
  d.tokens.assign(B, {});
  d.log_prob.assign(B, 0);
  d.token_log_prob.assign(B, {});
  std::vector<int64_t> in(B, Vocab::kBos);  // what each row reads at step t
  // Step t reads position t: <bos> at 0, the prompt at 1 .. P_b, then the row's own choices.
  // Its logits predict position t + 1, a choice once t >= P_b.
  for (int64_t t = 0; t < longest + steps; ++t) {
    Tensor logp = log_softmax(model.logits(model.decode_step(in, *st).out).value(), 1);  // (B, V)
    const std::vector<int64_t> best = argmax_indices(logp, 1);  // (B) token ids
    const int64_t V = logp.shape()[1];
    bool more = false;
    for (int64_t b = 0; b < B; ++b) {
      const int64_t P = static_cast<int64_t>(prompts[b].size());
      if (t < P) {
        in[b] = prompts[b][t];  // still reading the prompt
      } else {
        in[b] = best[b];
        if (static_cast<int64_t>(d.tokens[b].size()) < steps) {
          d.tokens[b].push_back(in[b]);
          d.token_log_prob[b].push_back(logp[b * V + in[b]]);
          d.log_prob[b] += logp[b * V + in[b]];
        }
      }
      more = more || static_cast<int64_t>(d.tokens[b].size()) < steps;
    }
    if (!more) break;
  }
  return d;
}

std::vector<Accuracy> evaluate_by_length(const Model& model, const Task& task, const std::vector<int64_t>& lengths,
                                         int64_t samples, uint64_t seed) {
  if (samples < 1) throw Error("evaluate: --samples must be at least 1");
  std::vector<Accuracy> out;
  for (int64_t L : lengths) {
    Generator gen(seed + static_cast<uint64_t>(L));  // the same sequences for every model
    Accuracy acc;
    acc.length = L;
    for (int64_t done = 0; done < samples;) {
      int64_t n = std::min<int64_t>(100, samples - done);
      std::vector<Example> examples;
      for (int64_t i = 0; i < n; ++i) examples.push_back(task.sample(gen, L));
      score_batch(model, make_batch(examples), acc);
      done += n;
    }
    out.push_back(acc);
  }
  return out;
}

Accuracy evaluate_held_out(const Model& model, const Task& task, int64_t samples, uint64_t seed) {
  if (samples < 1) throw Error("evaluate: --samples must be at least 1");
  Generator gen(seed);
  Accuracy acc;
  for (int64_t done = 0; done < samples;) {
    int64_t n = std::min<int64_t>(100, samples - done);
    std::vector<Example> examples;
    for (int64_t i = 0; i < n; ++i) examples.push_back(task.sample_held_out(gen));
    score_batch(model, make_batch(examples), acc);
    done += n;
  }
  return acc;
}

LanguageScore score_language(const Model& model, const GermanTask& task, int64_t sentences, int64_t samples,
                             uint64_t seed) {
  if (sentences < 1 || samples < 0) throw Error("score_language: --samples must be at least 1");
  NoGradGuard no_grad;
  LanguageScore out;
  // The loss: cross_entropy is the mean over a batch's non-PAD targets (the words and <eos>).
  Generator gen(seed);
  double nll = 0;
  const int64_t V = model.config().tgt_vocab;
  for (int64_t done = 0; done < sentences;) {
    const int64_t n = std::min<int64_t>(100, sentences - done);
    std::vector<Example> examples;
    for (int64_t i = 0; i < n; ++i) examples.push_back(task.sample_held_out(gen));
    const Batch batch = make_batch(examples);
    int64_t kept = 0;
    for (int64_t y : batch.tgt_out) kept += y != Vocab::kPad;
    nll += static_cast<double>(cross_entropy(reshape(model.forward(batch), {-1, V}), batch.tgt_out, Vocab::kPad).item()) * kept;
    out.tokens += kept;
    done += n;
  }
  out.sentences = sentences;
  out.loss = static_cast<real>(nll / static_cast<double>(out.tokens));
  out.perplexity = math::exp(out.loss);
  // The samples: one stream of draws, from <bos> alone.
  Generator draws(seed + 1);
  SamplingOptions plain;  // temperature 1, every token
  const int64_t max_tokens = std::min<int64_t>(task.max_len() + 1, model.config().source_limit() - 1);
  for (int64_t i = 0; i < samples; ++i) {
    std::vector<int64_t> s = sample_continuation(model, {}, max_tokens, plain, draws);
    ++out.samples;
    if (s.empty() || s.back() != Vocab::kEos) continue;  // no end within the longest sentence
    s.pop_back();
    const TranslateTask::Split split = task.in_grammar(s);
    out.grammatical += split != TranslateTask::Split::kNone;
    out.held_out += split == TranslateTask::Split::kHeldOut;
  }
  return out;
}

}  // namespace heed
