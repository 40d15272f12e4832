// Evaluation of a trained Model (models/model.h) on a Task, as docs/models.md pins it: greedy decoding for
// exactly L+1 steps, scored by two numbers, exact (the L symbols and the EOS after them all
// right) and token (the fraction of the L symbol positions that are right). Training is in
// models/train.h; nothing here changes the model.
#pragma once

#include <cstdint>
#include <vector>

#include "models/model.h"
#include "models/tasks/tasks.h"

namespace heed {

struct Accuracy {
  int64_t length = 0;  // source length (0: mixed)
  int64_t n = 0;       // sequences
  int64_t exact_right = 0, tokens_right = 0, tokens = 0;
  real exact() const { return n ? static_cast<real>(exact_right) / n : 0; }
  real token() const { return tokens ? static_cast<real>(tokens_right) / tokens : 0; }
};

// Greedy decoding of `batch` for T steps; adds its counts to `acc`: a sequence is exact when
// its L symbols and the EOS after them are right; token counts the L symbol positions. A batch
// with context (a task written as one sequence, OneSequenceTask) is decoded by greedy_after from
// each row's context, <bos> s <sep>, and scored on what follows it, t_1 .. t_m <eos>, the same
// counts as an encoder-decoder model's on the same task.
void score_batch(const Model& model, const Batch& batch, Accuracy& acc);
// The same counts from a greedy decoding of `batch` already made (at least T steps; with
// context, the tokens chosen after each row's context).
void score_decoded(const Decoded& d, const Batch& batch, Accuracy& acc);

// Greedy continuation by a decoder-only model (models/decoder_model.h): row b is fed <bos> and
// prompts[b] one step at a time, teacher forced, then chooses `steps` tokens, each the argmax
// of the logits and fed back; d.tokens[b] holds those `steps` tokens (eos included, if chosen)
// and d.token_log_prob their log-probabilities. Rows with prompts of different lengths share the
// steps: a row with a shorter prompt starts choosing earlier. REQUIRES: steps >= 1.
Decoded greedy_after(const Model& model, const std::vector<std::vector<int64_t>>& prompts, int64_t steps);

// `samples` sequences of each source length, drawn from Generator(seed).
std::vector<Accuracy> evaluate_by_length(const Model& model, const Task& task, const std::vector<int64_t>& lengths,
                                         int64_t samples, uint64_t seed);
// `samples` held-out sequences (fresh draws for the toy tasks, held-out pairs for translate).
Accuracy evaluate_held_out(const Model& model, const Task& task, int64_t samples, uint64_t seed);

class GermanTask;

// A decoder-only model of the German grammar (translate.h, GermanTask), scored two ways:
// - loss: the mean cross-entropy in nats per token (every word and the <eos>), teacher forced,
//   of `sentences` held-out sentences drawn from Generator(seed); perplexity = exp(loss);
// - samples: `samples` sentences drawn from <bos> alone at temperature 1 (all tokens, no top-k),
//   one stream Generator(seed + 1), each until <eos> or max_len + 1 tokens; grammatical counts
//   those that end with <eos> and are sentences of the grammar, held_out those of them that are
//   held-out sentences (never trained on: the model composed them).
struct LanguageScore {
  real loss = 0, perplexity = 0;
  int64_t sentences = 0, tokens = 0;                   // scored by the loss
  int64_t samples = 0, grammatical = 0, held_out = 0;  // drawn; in the grammar; of which held out
  real grammatical_share() const { return samples ? static_cast<real>(grammatical) / samples : 0; }
};
LanguageScore score_language(const Model& model, const GermanTask& task, int64_t sentences, int64_t samples,
                             uint64_t seed);

}  // namespace heed
