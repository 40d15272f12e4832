// TranslateTask: a toy German->English corpus generated from a small grammar, built to show
// the word-order changes attention papers are about: the verb-final German subordinate clause
// (weil/dass ... gegessen habe -> because/that ... ate), V2 inversion after an adverb (gestern
// habe ich -> yesterday i), the split perfect (habe ... gegessen -> ate), and negation that
// moves (keinen apfel / den apfel nicht -> do not / did not ... an apple / the apple).
// Subjects ich/du/er/sie/wir (sie = she) agree with their verbs in both languages; the German
// perfect is translated by the English simple past. Words are lowercase tokens, punctuation
// separate. Every combination is enumerated in a fixed order (see translate.cpp), giving
// 19,000 distinct pairs (15,200 for training, 3,800 held out) with sources and targets of
// 5..13 tokens. The vocabularies, one per language with words in order of first appearance,
// hold 76 German and 55 English words (79 and 58 ids with the specials).
//
// Split rule: every sentence has exactly one object clause, a (verb, noun) pairing such as
// essen + apfel. Five of the 25 pairings are held out (held_out_combinations()); a sentence
// is held out exactly when its pairing is, so no training sentence contains a held-out
// pairing in either language, while every word, verb and noun does occur in training (with
// other partners). The seed pair kSeedSource -> kSeedTarget (essen + brot) is a training
// sentence; its twin kTwinSource (essen + kuchen, held out) tests the same structure unseen.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/tasks/tasks.h"

namespace heed {

class TranslateTask : public Task {
 public:
  static constexpr const char* kSeedSource =
      "ich habe keinen hunger , weil ich ein brot gegessen habe .";
  static constexpr const char* kSeedTarget = "i am not hungry , because i ate a sandwich .";
  static constexpr const char* kTwinSource =
      "ich habe keinen hunger , weil ich einen kuchen gegessen habe .";
  static constexpr const char* kTwinTarget = "i am not hungry , because i ate a cake .";

  TranslateTask();  // enumerates the grammar (about 40 ms)

  std::string name() const override { return "translate"; }
  const Vocab& src_vocab() const override { return src_vocab_; }
  const Vocab& tgt_vocab() const override { return tgt_vocab_; }
  int64_t min_len() const override { return min_len_; }
  int64_t max_len() const override { return max_len_; }
  int64_t max_target_len() const override { return max_target_len_; }

  const std::vector<Example>& train_pairs() const { return train_; }
  const std::vector<Example>& held_out() const { return held_out_; }
  // The held-out pairings as (German infinitive, German noun), e.g. ("essen", "kuchen").
  static std::vector<std::pair<std::string, std::string>> held_out_combinations();

  enum class Split { kNone, kTrain, kHeldOut };
  Split split_of(const std::vector<int64_t>& src) const;  // kNone: not a sentence of the grammar

  Example sample(Generator& gen) const override;  // a uniform training pair
  // A uniform held-out pair whose source has `length` tokens: evaluation by length draws
  // from the held-out set. heed::Error listing the available lengths if there is none.
  Example sample(Generator& gen, int64_t length) const override;
  Example sample_held_out(Generator& gen) const override;  // a uniform held-out pair
  // The translation of a sentence of the grammar; heed::Error for any other source.
  std::vector<int64_t> target(const std::vector<int64_t>& src) const override;

 private:
  const Example* find(const std::vector<int64_t>& src, Split* split) const;  // null if absent

  Vocab src_vocab_, tgt_vocab_;
  std::vector<Example> train_, held_out_;
  std::map<int64_t, std::vector<size_t>> held_out_by_length_;  // source length -> indices
  int64_t min_len_ = 0, max_len_ = 0, max_target_len_ = 0;
};

// GermanTask: the German side of the grammar as a language to model (--task german): each
// sentence is one sequence, <bos> w_1 .. w_n <eos>, for a decoder-only model to predict word by
// word. The sentences and their split are translate's: training draws the 15,200 sources of the
// training pairs, held-out draws the 3,800 others (whose (verb, noun) pairings no training
// sentence has). The vocabulary is translate's German one (79 ids). An Example is the sentence
// as both source and target (the decoder reads the target; make_batch needs a source), with no
// context, so every word and the <eos> after them is scored.
//
// The grammar is finite, so recognising a sentence is a look-up: in_grammar says whether ids
// are one of its 19,000 German sentences and in which split. What a trained model learnt can
// then be measured by the share of its samples the grammar produces (score_language).
class GermanTask : public Task {
 public:
  GermanTask();  // enumerates the grammar (translate's constructor)

  std::string name() const override { return "german"; }
  const Vocab& src_vocab() const override { return grammar_.src_vocab(); }
  const Vocab& tgt_vocab() const override { return grammar_.src_vocab(); }
  int64_t min_len() const override { return grammar_.min_len(); }
  int64_t max_len() const override { return grammar_.max_len(); }
  int64_t max_target_len() const override { return grammar_.max_len(); }

  Example sample(Generator& gen) const override;                  // a uniform training sentence
  Example sample(Generator& gen, int64_t length) const override;  // a held-out one of that length
  Example sample_held_out(Generator& gen) const override;          // a uniform held-out sentence
  // The sentence itself, if the grammar has it (a language model's "target" is its input).
  std::vector<int64_t> target(const std::vector<int64_t>& src) const override;

  // kTrain or kHeldOut for a German sentence of the grammar, kNone for any other ids.
  TranslateTask::Split in_grammar(const std::vector<int64_t>& words) const;
  int64_t num_sentences() const { return static_cast<int64_t>(split_.size()); }

 private:
  static Example sentence(const Example& pair);  // the pair's source as source and target
  TranslateTask grammar_;
  std::map<std::vector<int64_t>, TranslateTask::Split> split_;  // every German sentence
};

}  // namespace heed
