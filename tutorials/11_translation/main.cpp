// Chapter 11: a toy German->English translation. The grammar of models/tasks/translate.h (verb-final
// subordinate clauses, V2 inversion, the split perfect, negation that moves), with five
// verb-noun pairings held out of training; a plain and an additive model trained on the same
// budget and scored on every held-out pair; and the attention matrix of
// "ich habe keinen hunger , weil ich ein brot gegessen habe .", where the English verb must be
// read from the end of the German sentence.
// Usage: tutorial-11 [--quick] [--out DIR] [SECTION...]; sections grammar, training, accuracy,
// attention, data (default: all; training, accuracy and attention share one training of both
// models; data writes the grammar's pairs to DIR and trains a model of its own through them). Pictures go to
// DIR, default build/ch11, created if missing. `--quick`: a tiny budget, nothing learned.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "io/atomic_file.h"
#include "models/beam.h"
#include "models/tasks/data.h"
#include "models/evaluate.h"
#include "models/seq2seq.h"
#include "models/train.h"
#include "models/tasks/translate.h"
#include "tutorials/chapter.h"
#include "viz/heatmap.h"
#include "viz/svg.h"

using namespace heed;

namespace {

constexpr uint64_t kSeed = 1;                    // the weights' seed, as `heed train --seed 1`
constexpr uint64_t kDataSeed = kSeed + 1000003;  // the batches' seed, as `heed train` derives it
const char* const kModels[] = {"plain", "additive"};

struct Budget {
  int64_t steps, every;  // training steps, loss table rows
  // Scored: every held_stride-th held-out pair and every train_stride-th training pair. The
  // pairs are listed in the grammar's order, whose inner loops repeat every 2, 4, 6 or 12
  // pairs, so the strides are prime to those: every kind of sentence is sampled alike.
  int64_t held_stride, train_stride;
  int64_t data_steps, data_scored;  // section 5: its training steps, held-out pairs scored
};

Budget budget(bool quick) {
  if (quick) return {40, 20, 7, 35, 40, 100};
  return {5000, 500, 1, 5, 3000, 3800};
}

// As `heed train --task translate --model NAME` builds it.
ModelConfig config(const Task& task, const std::string& model) {
  ModelConfig c;
  c.model = model;
  c.cell = "gru";
  c.src_vocab = task.src_vocab().size();
  c.tgt_vocab = task.tgt_vocab().size();
  c.embed = 32;
  c.hidden = 64;
  c.max_src_len = std::max<int64_t>(64, 2 * std::max(task.max_len(), task.max_target_len()));
  return c;
}

real cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<real>(ts.tv_sec) + static_cast<real>(ts.tv_nsec) * 1e-9;
}

// The grammar's verbs in both languages, to find them in a sentence: the German finite forms
// and participle, the English forms (eat, eats, ate; "did not eat" uses eat).
struct Verb {
  std::string infinitive, participle;
  std::vector<std::string> present, english;
};
const Verb kVerbs[] = {
    {"essen", "gegessen", {"esse", "isst", "essen"}, {"eat", "eats", "ate"}},
    {"trinken", "getrunken", {"trinke", "trinkst", "trinkt", "trinken"}, {"drink", "drinks", "drank"}},
    {"sehen", "gesehen", {"sehe", "siehst", "sieht", "sehen"}, {"see", "sees", "saw"}},
    {"kaufen", "gekauft", {"kaufe", "kaufst", "kauft", "kaufen"}, {"buy", "buys", "bought"}},
    {"lesen", "gelesen", {"lese", "liest", "lesen"}, {"read", "reads"}},
    {"schreiben", "geschrieben", {"schreibe", "schreibst", "schreibt", "schreiben"}, {"write", "writes", "wrote"}},
};

std::vector<std::string> tokens(const Vocab& v, const std::vector<int64_t>& ids) {
  std::vector<std::string> out;
  for (int64_t id : ids) out.push_back(v.token(id));
  return out;
}

int64_t find(const std::vector<std::string>& words, const std::string& w) {
  auto it = std::find(words.begin(), words.end(), w);
  return it == words.end() ? -1 : it - words.begin();
}

// The held-out pairing a held-out pair contains, by its noun: each held-out pairing has its own.
int64_t pairing_of(const TranslateTask& task, const Example& e) {
  const auto pairings = TranslateTask::held_out_combinations();
  std::vector<std::string> de = tokens(task.src_vocab(), e.src);
  for (size_t k = 0; k < pairings.size(); ++k)
    if (find(de, pairings[k].second) >= 0) return static_cast<int64_t>(k);
  return -1;
}

void show_grammar(const TranslateTask& task) {
  std::printf("== 1. the grammar\n");
  std::printf("%zu German -> English pairs from four sentence shapes; %lld German words, %lld English\n",
              task.train_pairs().size() + task.held_out().size(),
              static_cast<long long>(task.src_vocab().size() - Vocab::kNumSpecials),
              static_cast<long long>(task.tgt_vocab().size() - Vocab::kNumSpecials));
  std::printf("words; sources of %lld to %lld tokens. Some of the grammar's sentences:\n",
              static_cast<long long>(task.min_len()), static_cast<long long>(task.max_len()));
  for (const char* de : {"ich esse einen apfel .", "gestern hat sie das buch nicht gelesen .",
                         "du glaubst , dass er keinen kaffee trinkt .",
                         "wir kaufen die zeitung , weil wir nicht satt sind .", TranslateTask::kSeedSource}) {
    std::vector<int64_t> src = task.src_vocab().encode(de);
    std::printf("  %s\n    -> %s\n", de, task.tgt_vocab().decode(task.target(src)).c_str());
  }
  std::printf("\nheld out: every sentence whose object clause pairs one of these verbs with its noun\n");
  std::printf("%-20s   %9s   %s\n%-20s   %9s   %8s   %14s\n", "", "held-out", "training sentences with", "pairing",
              "sentences", "the noun", "the participle");
  const auto pairings = TranslateTask::held_out_combinations();
  std::vector<int64_t> count(pairings.size(), 0);
  for (const Example& e : task.held_out()) ++count[pairing_of(task, e)];
  auto in_training = [&](const std::string& word) {
    int64_t n = 0;
    for (const Example& e : task.train_pairs()) n += find(tokens(task.src_vocab(), e.src), word) >= 0;
    return n;
  };
  for (size_t k = 0; k < pairings.size(); ++k) {
    const std::string& verb = pairings[k].first;  // not a structured binding: clang 14 cannot
    const std::string& noun = pairings[k].second;  // capture one in the lambda below
    const Verb& p =
        *std::find_if(std::begin(kVerbs), std::end(kVerbs), [&](const Verb& v) { return v.infinitive == verb; });
    std::printf("  %-7s + %-8s   %9lld   %8lld   %14lld  (%s)\n", verb.c_str(), noun.c_str(),
                static_cast<long long>(count[k]), static_cast<long long>(in_training(noun)),
                static_cast<long long>(in_training(p.participle)), p.participle.c_str());
  }
  std::printf("training pairs %zu, held-out pairs %zu\n", task.train_pairs().size(), task.held_out().size());
  auto split = [&](const char* de) {
    return task.split_of(task.src_vocab().encode(de)) == TranslateTask::Split::kTrain ? "training" : "held out";
  };
  std::printf("the seed sentence is a %s pair; its twin, with kuchen for brot, is %s:\n  %s\n    -> %s\n\n",
              split(TranslateTask::kSeedSource), split(TranslateTask::kTwinSource), TranslateTask::kTwinSource,
              task.tgt_vocab().decode(task.target(task.src_vocab().encode(TranslateTask::kTwinSource))).c_str());
}

// One model, trained on the kDataSeed stream from the kSeed weights.
struct Run {
  std::string name;
  std::unique_ptr<Seq2Seq> model;
  std::vector<real> losses;
};

void train_run(Run& run, const Task& task, const Budget& bud) {
  const real start = cpu_seconds();
  TrainOptions opt;  // Adam, lr 3e-3 decayed linearly to 0, gradient-norm clip 1
  opt.steps = bud.steps;
  opt.batch = 32;
  opt.seed = kDataSeed;
  train(*run.model, task, opt, [&](const Progress& p) {
    run.losses.push_back(p.loss);
    if (p.step % bud.every == 0)
      std::fprintf(stderr, "tutorial-11: %-8s step %5lld of %lld, %.0f s of CPU\n", run.name.c_str(),
                   static_cast<long long>(p.step), static_cast<long long>(p.steps), cpu_seconds() - start);
  });
}

real window_mean(const std::vector<real>& v, int64_t end, int64_t n) {
  real s = 0;
  for (int64_t i = end - n; i < end; ++i) s += v[i];
  return s / static_cast<real>(n);
}

void show_training(const std::vector<Run>& runs, const Budget& bud) {
  std::printf(
      "== 2. training: gru cells, E 32, H 64, %lld steps of 32 pairs (Adam, lr 3e-3 decayed\n"
      "linearly to 0, clip 1), both models from the same weights' seed on the same batches\n",
      static_cast<long long>(bud.steps));
  for (const Run& r : runs)
    std::printf("  %-9s %6lld parameters\n", r.name.c_str(), static_cast<long long>(r.model->num_parameters()));
  std::printf("%6s", "step");
  for (const Run& r : runs) std::printf(" %9s", r.name.c_str());
  std::printf("\n%6d", 1);
  for (const Run& r : runs) std::printf(" %9.4f", r.losses[0]);
  std::printf("\n");
  for (int64_t s = bud.every; s <= bud.steps; s += bud.every) {
    std::printf("%6lld", static_cast<long long>(s));
    for (const Run& r : runs) std::printf(" %9.4f", window_mean(r.losses, s, bud.every));
    std::printf("\n");
  }
  std::printf("(the loss per target token: the mean over the %lld steps up to each row)\n\n",
              static_cast<long long>(bud.every));
}

// Greedy decoding and chapter 06's metrics on `pairs`, 100 at a time.
Accuracy score(const Seq2Seq& model, const std::vector<Example>& pairs) {
  Accuracy acc;
  for (size_t i = 0; i < pairs.size(); i += 100) {
    std::vector<Example> chunk(pairs.begin() + i, pairs.begin() + std::min(pairs.size(), i + 100));
    score_batch(model, make_batch(chunk), acc);
  }
  return acc;
}

std::vector<Example> every(const std::vector<Example>& pairs, int64_t stride) {
  std::vector<Example> out;
  for (size_t i = 0; i < pairs.size(); i += stride) out.push_back(pairs[i]);
  return out;
}

// The model's translation of one sentence, as `heed predict` decodes it (beam 1 is greedy).
Hypothesis translate(const Seq2Seq& model, const TranslateTask& task, const std::string& de) {
  std::vector<int64_t> src = task.src_vocab().encode(de);
  return beam_search(model, src, 1, 2 * static_cast<int64_t>(src.size()) + 10).front();
}

std::string words(const TranslateTask& task, const std::vector<int64_t>& ids) {
  std::string text;
  for (int64_t id : ids)
    if (id != Vocab::kEos) text += (text.empty() ? "" : " ") + task.tgt_vocab().token(id);
  return text;
}

// The English noun of held-out pairing k, found in the data: the one word besides "." that
// every held-out translation with that pairing contains (the verb's form and the article vary).
int64_t english_noun(const TranslateTask& task, size_t k) {
  std::vector<int64_t> common;
  for (const Example& e : task.held_out()) {
    if (pairing_of(task, e) != static_cast<int64_t>(k)) continue;
    std::vector<int64_t> ids = e.tgt;
    std::sort(ids.begin(), ids.end());
    if (common.empty()) {
      common = ids;
    } else {
      std::vector<int64_t> both;
      std::set_intersection(common.begin(), common.end(), ids.begin(), ids.end(), std::back_inserter(both));
      common = both;
    }
  }
  common.erase(std::remove(common.begin(), common.end(), task.tgt_vocab().id(".")), common.end());
  common.erase(std::unique(common.begin(), common.end()), common.end());
  if (common.size() != 1) throw Error("tutorial-11: no single English noun for a held-out pairing");
  return common[0];
}

// The fraction of `pairs` whose greedy translation contains the word `id`.
real share_writing(const Seq2Seq& model, const std::vector<Example>& pairs, int64_t id) {
  int64_t n = 0;
  for (size_t i = 0; i < pairs.size(); i += 100) {
    std::vector<Example> chunk(pairs.begin() + i, pairs.begin() + std::min(pairs.size(), i + 100));
    Batch batch = make_batch(chunk);
    Decoded d = model.greedy(batch, batch.tgt_len);
    for (const std::vector<int64_t>& out : d.tokens) {
      auto end = std::find(out.begin(), out.end(), Vocab::kEos);
      n += std::find(out.begin(), end, id) != end;
    }
  }
  return pairs.empty() ? 0 : static_cast<real>(n) / static_cast<real>(pairs.size());
}

void show_accuracy(const std::vector<Run>& runs, const TranslateTask& task, const Budget& bud) {
  const std::vector<Example> held_out = every(task.held_out(), bud.held_stride);
  const std::vector<Example> seen = every(task.train_pairs(), bud.train_stride);
  std::printf("== 3. accuracy (greedy decoding; exact: every word and the <eos>; token: word by word)\n");
  std::printf("%-9s   %-22s   %s\n", "", ("held-out pairs (" + std::to_string(held_out.size()) + ")").c_str(),
              ("training pairs (" + std::to_string(seen.size()) + ")").c_str());
  std::printf("%-9s   %6s %6s %8s   %6s %6s\n", "model", "exact", "token", "", "exact", "token");
  for (const Run& r : runs) {
    Accuracy h = score(*r.model, held_out), s = score(*r.model, seen);
    std::printf("%-9s   %6.3f %6.3f %8s   %6.3f %6.3f\n", r.name.c_str(), h.exact(), h.token(), "", s.exact(),
                s.token());
  }

  std::printf("\nby held-out pairing: exact accuracy, and how often the output has the right noun\n");
  std::printf("%-20s", "");
  for (const Run& r : runs) std::printf("   %13s", r.name.c_str());
  std::printf("\n%-20s", "pairing");
  for (size_t m = 0; m < runs.size(); ++m) std::printf("   %6s %6s", "exact", "noun");
  std::printf("\n");
  const auto pairings = TranslateTask::held_out_combinations();
  std::vector<std::vector<Example>> groups(pairings.size());
  for (const Example& e : held_out) groups[pairing_of(task, e)].push_back(e);
  for (size_t k = 0; k < pairings.size(); ++k) {
    const int64_t noun = english_noun(task, k);
    std::printf("  %-7s + %-8s", pairings[k].first.c_str(), pairings[k].second.c_str());
    for (const Run& r : runs)
      std::printf("   %6.3f %6.3f", score(*r.model, groups[k]).exact(), share_writing(*r.model, groups[k], noun));
    std::printf("  (%s)\n", task.tgt_vocab().token(noun).c_str());
  }
  std::printf("\nthe held-out twin of the seed sentence:\n  %s\n", TranslateTask::kTwinSource);
  for (const Run& r : runs)
    std::printf("  %-9s -> %s\n", r.name.c_str(),
                words(task, translate(*r.model, task, TranslateTask::kTwinSource).tokens).c_str());
  std::printf("\n");
}

// The position of the first verb of kVerbs in `words` (German or English forms); -1 if none.
int64_t find_verb(const std::vector<std::string>& words, bool german) {
  for (size_t i = 0; i < words.size(); ++i)
    for (const Verb& v : kVerbs) {
      const std::vector<std::string>& forms = german ? v.present : v.english;
      if (std::find(forms.begin(), forms.end(), words[i]) != forms.end() || (german && words[i] == v.participle))
        return static_cast<int64_t>(i);
    }
  return -1;
}

// The matrix of one sentence: as text, as an SVG file, and the weight of the step that writes
// the English verb on the German verb.
void show_matrix(const Seq2Seq& model, const TranslateTask& task, const std::string& de, const std::string& path,
                 const std::string& title) {
  Hypothesis h = translate(model, task, de);
  std::vector<std::string> source = tokens(task.src_vocab(), task.src_vocab().encode(de));
  std::vector<std::string> output = tokens(task.tgt_vocab(), h.tokens);
  std::printf("%s\n  -> %s\n", de.c_str(), words(task, h.tokens).c_str());
  std::printf("%s", terminal_heatmap(source, output, h.attention, false).c_str());
  write_text_file(path, svg_heatmap(source, output, h.attention, title));
  std::printf("wrote %s\n", path.c_str());
  const int64_t t = find_verb(output, false), v = find_verb(source, true);
  if (t < 0) {
    std::printf("the output has no English verb\n\n");
    return;
  }
  const std::vector<real>& row = h.attention[t];
  const int64_t peak = std::max_element(row.begin(), row.end()) - row.begin();
  std::printf("'%s' (output %lld) on '%s' (source %lld): %.3f; its largest weight: '%s' (source %lld)\n\n",
              output[t].c_str(), static_cast<long long>(t + 1), source[v].c_str(), static_cast<long long>(v + 1),
              row[v], source[peak].c_str(), static_cast<long long>(peak + 1));
}

// The step of `de`'s translation that writes the English verb, opened up as chapter 07 opens one:
// the additive scores e_i = v . tanh(W1 h_i + W2 s_{t-1}) over every source word, their softmax,
// and the context, the weighted sum of the encoder states.
void show_key_step(const Seq2Seq& model, const TranslateTask& task, const std::string& de) {
  NoGradGuard no_grad;
  Hypothesis h = translate(model, task, de);
  const std::vector<int64_t> src = task.src_vocab().encode(de);
  const std::vector<std::string> source = tokens(task.src_vocab(), src), output = tokens(task.tgt_vocab(), h.tokens);
  const int64_t t = find_verb(output, false), v = find_verb(source, true);
  if (t < 0 || v < 0 || !model.attention_score()) return;
  DecoderState st = model.start(make_batch({{src, {}}}));
  std::vector<int64_t> prev = {Vocab::kBos};
  for (int64_t k = 0; k < t; ++k) {  // replay the translation up to the step
    model.step(prev, st);
    prev = {h.tokens[k]};
  }
  const Var scores = model.attention_score()->score(st.s.h, st.keys);  // (1, S), with s_{t-1}
  const Attention a = attend(scores, st.values, st.mask);
  const StepOutput o = model.step(prev, st);  // the library's own step, to compare
  std::printf("the step that writes '%s' (output %lld), opened up: the state before it, s_%lld, scores\n"
              "every source word; a softmax makes the weights; the context is their weighted sum\n",
              output[t].c_str(), static_cast<long long>(t + 1), static_cast<long long>(t));
  std::printf("  %-10s %8s %8s\n", "source", "e_i", "a_i");
  const int64_t S = static_cast<int64_t>(source.size());
  for (int64_t i = 0; i < S; ++i)
    std::printf("  %-10s %8.3f %8.3f\n", source[i].c_str(), scores.value()[i], a.weights.value()[i]);
  const int64_t D = a.context.value().numel();
  auto first6 = [](const real* x) {
    for (int k = 0; k < 6; ++k) std::printf("%s%6.3f", k ? ", " : "(", x[k]);
    std::printf(", ...)\n");
  };
  const std::string c_label = "c_" + std::to_string(t + 1) + " = sum_i a_i h_i";
  const std::string h_label = "h_" + std::to_string(v + 1) + ", the state at '" + source[v] + "'";
  std::printf("  %-28s ", c_label.c_str());
  first6(a.context.value().data());
  std::printf("  %-28s ", h_label.c_str());
  first6(st.values.value().data() + v * D);
  std::printf("  (the first 6 of %lld numbers)\n", static_cast<long long>(D));
  std::printf("Seq2Seq::step gives the same weights (to within 1e-12): %s\n\n",
              allclose(o.weights.value(), a.weights.value(), 0, 1e-12) ? "yes" : "NO");
}

// Over the held-out pairs: the output step that writes the English verb, its weight on the
// German verb, and whether it is the right verb; by where the German verb stands, and by where
// the step's largest weight falls. Returns the first pair, in the grammar's order, whose
// English verb is wrong ("" if none is).
std::string show_verbs(const Seq2Seq& model, const TranslateTask& task, const Budget& bud) {
  struct Tally {
    int64_t sentences = 0, written = 0, peak = 0, right = 0;
    real weight = 0;
  };
  const char* const kPlaces[] = {"participle: ... gegessen (habe)", "present, clause-final: weil ... esse",
                                 "present, before the object: ich esse"};
  Tally place[3], on_verb, on_noun, elsewhere;
  std::string first_wrong;
  const auto pairings = TranslateTask::held_out_combinations();
  const std::vector<Example> held_out = every(task.held_out(), bud.held_stride);
  for (size_t i = 0; i < held_out.size(); i += 100) {
    std::vector<Example> chunk(held_out.begin() + i, held_out.begin() + std::min(held_out.size(), i + 100));
    Batch batch = make_batch(chunk);
    Decoded d = model.greedy(batch, batch.tgt_len);
    for (size_t b = 0; b < chunk.size(); ++b) {
      std::vector<std::string> de = tokens(task.src_vocab(), chunk[b].src);
      std::vector<std::string> reference = tokens(task.tgt_vocab(), chunk[b].tgt);
      std::vector<int64_t> ids(d.tokens[b].begin(), std::find(d.tokens[b].begin(), d.tokens[b].end(), Vocab::kEos));
      std::vector<std::string> en = tokens(task.tgt_vocab(), ids);
      const int64_t v = find_verb(de, true), t = find_verb(en, false);
      const bool participle =
          std::any_of(std::begin(kVerbs), std::end(kVerbs), [&](const Verb& x) { return x.participle == de[v]; });
      Tally& tally = place[participle ? 0 : de[v + 1] == "." || de[v + 1] == "," ? 1 : 2];
      ++tally.sentences;
      if (t < 0) {  // no verb written: wrong, and left out of the columns after `sentences`
        if (first_wrong.empty()) first_wrong = task.src_vocab().decode(chunk[b].src);
        continue;
      }
      const std::vector<real>& row = d.attention[b][t];
      const int64_t largest = std::max_element(row.begin(), row.end()) - row.begin();
      const bool peak = largest == v, right = en[t] == reference[find_verb(reference, false)];
      const bool noun = largest == find(de, pairings[pairing_of(task, chunk[b])].second);
      if (!right && first_wrong.empty()) first_wrong = task.src_vocab().decode(chunk[b].src);
      for (Tally* x : {&tally, peak ? &on_verb : noun ? &on_noun : &elsewhere}) {
        ++x->written;
        x->weight += row[v];
        x->peak += peak;
        x->right += right;
      }
    }
  }
  std::printf(
      "held-out pairs: the output step that writes the English verb (eat, ate, reads, ...), its\n"
      "weight on the German verb, and whether it writes the right verb\n");
  std::printf("%-38s %9s %7s %8s %8s %8s\n", "the German verb", "sentences", "verbs", "weight", "largest", "right");
  auto row = [](const char* what, const Tally& x, bool all) {
    const real n = static_cast<real>(std::max<int64_t>(x.written, 1));
    std::printf("%-38s %9s %7lld %8.3f %7.1f%% %7.1f%%\n", what, all ? std::to_string(x.sentences).c_str() : "",
                static_cast<long long>(x.written), x.weight / n, 100 * static_cast<real>(x.peak) / n,
                100 * static_cast<real>(x.right) / n);
  };
  for (int k = 0; k < 3; ++k) row(kPlaces[k], place[k], true);
  row("  largest weight on the German verb", on_verb, false);
  row("  largest weight on the noun", on_noun, false);
  row("  largest weight elsewhere", elsewhere, false);
  std::printf(
      "(verbs: outputs that write one; weight: the mean weight on the German verb at that step;\n"
      "largest: how often it gets the row's largest weight; right: the English verb is the reference's)\n\n");
  return first_wrong;
}

// Section 5: the grammar written to files and trained through the data path, as `heed data`
// and `heed train --data ... --valid ...` do, then scored with BLEU and perplexity beside exact.
void show_data(const TranslateTask& task, const Budget& bud, const std::string& dir) {
  std::printf("== 5. the same grammar as a file of pairs\n");
  std::filesystem::create_directories(dir);
  auto write_pairs = [&](const std::vector<Example>& pairs, const std::string& path) {
    std::string text;
    for (const Example& e : pairs) text += task.src_vocab().decode(e.src) + "\t" + task.tgt_vocab().decode(e.tgt) + "\n";
    write_text_file(path, text);
  };
  const std::string train_file = dir + "/translate_train.tsv", held_file = dir + "/translate_held_out.tsv";
  write_pairs(task.train_pairs(), train_file);
  write_pairs(task.held_out(), held_file);
  DataOptions opt;  // heed train --data's defaults: no lower-casing, --min-count 1, --max-len 50
  opt.valid_path = held_file;
  const DataTask data(train_file, opt);
  std::printf("read %lld training pairs and %lld validation pairs; vocabularies %lld and %lld (with <unk>)\n",
              static_cast<long long>(data.train_counts().pairs), static_cast<long long>(data.valid().counts.pairs),
              static_cast<long long>(data.src_vocab().size()), static_cast<long long>(data.tgt_vocab().size()));
  std::printf("first line: %s\n", (task.src_vocab().decode(task.train_pairs()[0].src) + " <TAB> " +
                                    task.tgt_vocab().decode(task.train_pairs()[0].tgt)).c_str());
  std::fflush(stdout);
  Generator gen(kSeed);
  Seq2Seq model(config(data, "additive"), gen);
  TrainOptions t;  // as train_run: heed train's defaults
  t.steps = bud.data_steps;
  t.batch = 32;
  t.seed = kDataSeed;
  const real start = cpu_seconds();
  train(model, data, t);
  std::fprintf(stderr, "tutorial-11: the data model trained in %.0f s of CPU\n", cpu_seconds() - start);
  const PairScore r = score_pairs(model, data.tgt_vocab(), data.valid(), bud.data_scored, bud.data_scored);
  std::printf("additive, %lld steps, on the first %lld held-out pairs:\n", static_cast<long long>(t.steps),
              static_cast<long long>(r.pairs));
  std::printf("  exact %.3f   token %.3f   BLEU %.4f   perplexity %.3f\n", r.acc.exact(), r.acc.token(), r.bleu,
              r.perplexity);
  // What BLEU rewards that exact does not: the first three outputs that are not exact, beside
  // their references, with how many of their 4-grams the reference holds.
  std::printf("outputs that are not exact (4-grams found in the reference / 4-grams of the output):\n");
  int shown = 0;
  for (int64_t i = 0; i < r.pairs && shown < 3; ++i) {
    const std::vector<std::string>& out = r.outputs[i];
    const std::vector<std::string>& ref = data.valid().references[i];
    if (out == ref) continue;
    int64_t found = 0, grams = 0;
    for (size_t k = 0; k + 4 <= out.size(); ++k, ++grams)
      for (size_t m = 0; m + 4 <= ref.size(); ++m)
        if (std::equal(out.begin() + k, out.begin() + k + 4, ref.begin() + m)) {
          ++found;
          break;
        }
    auto joined = [](const std::vector<std::string>& w) {
      std::string s;
      for (const std::string& x : w) s += (s.empty() ? "" : " ") + x;
      return s;
    };
    std::printf("  reference: %s\n  output:    %s   (%lld/%lld)\n", joined(ref).c_str(), joined(out).c_str(),
                static_cast<long long>(found), static_cast<long long>(grams));
    ++shown;
  }
  if (shown == 0) std::printf("  none\n");
  std::printf("\n");
}

const std::vector<std::string> kSections = {"grammar", "training", "accuracy", "attention", "data"};

int run(bool quick, const std::string& dir, const chapter::Args& args) {
  auto wanted = [&](const std::string& name) { return args.wants(name); };
  const Budget bud = budget(quick);
  const TranslateTask task;
  if (wanted("grammar")) show_grammar(task);
  if (!wanted("training") && !wanted("accuracy") && !wanted("attention")) {
    if (wanted("data")) show_data(task, bud, dir);
    return 0;
  }
  std::fflush(stdout);

  std::vector<Run> runs;
  for (const char* name : kModels) {
    Generator gen(kSeed);
    runs.push_back(Run{name, std::make_unique<Seq2Seq>(config(task, name), gen), {}});
  }
  const real start = cpu_seconds();
  for (Run& r : runs) train_run(r, task, bud);
  std::fprintf(stderr, "tutorial-11: both trained in %.0f s of CPU\n", cpu_seconds() - start);
  if (wanted("training")) show_training(runs, bud);
  if (wanted("accuracy")) show_accuracy(runs, task, bud);
  if (wanted("attention")) {
    std::filesystem::create_directories(dir);
    const Seq2Seq& additive = *runs[1].model;
    std::printf("== 4. where the English verb looks (additive)\n");
    show_matrix(additive, task, TranslateTask::kSeedSource, dir + "/seed.svg", "additive: the seed sentence");
    show_key_step(additive, task, TranslateTask::kSeedSource);
    show_matrix(additive, task, TranslateTask::kTwinSource, dir + "/twin.svg", "additive: its held-out twin");
    const std::string wrong = show_verbs(additive, task, bud);
    std::printf("the first held-out pair whose English verb is wrong:\n");
    if (wrong.empty())
      std::printf("  none\n");
    else
      show_matrix(additive, task, wrong, dir + "/wrong_verb.svg", "additive: a wrong verb");
  }
  if (wanted("data")) show_data(task, bud, dir);
  std::fprintf(stderr, "tutorial-11: %.0f s of CPU in all\n", cpu_seconds());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  heed::tune_allocator();  // keep freed tensors with the process (tensor/tensor.h)
  chapter::Args args;
  if (!chapter::read_args(argc, argv, kSections, "tutorial-11",
                          "usage: tutorial-11 [--quick] [--out DIR] [grammar|training|accuracy|attention|data ...]",
                          args))
    return 2;
  try {
    return run(args.quick, args.dir.empty() ? "build/ch11" : args.dir, args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tutorial-11: %s\n", e.what());
    return 2;
  }
}
