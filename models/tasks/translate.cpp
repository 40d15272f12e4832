#include "models/tasks/translate.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstring>
#include <unordered_map>

#include "tensor/tensor.h"

namespace heed {

namespace {

using Words = std::vector<std::string>;

Words operator+(Words a, const Words& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The grammar's tables.

// Agreement classes: a finite verb has one form for each.
enum Person { k1Sg, k2Sg, k3Sg, k1Pl };
using Forms = std::array<const char*, 4>;  // indexed by Person

struct Subject {
  const char* de;
  const char* en;
  Person person;
};
const Subject kSubjects[] = {
    {"ich", "i", k1Sg}, {"du", "you", k2Sg}, {"er", "he", k3Sg}, {"sie", "she", k3Sg}, {"wir", "we", k1Pl}};

const Forms kHaben = {"habe", "hast", "hat", "haben"};
const Forms kSein = {"bin", "bist", "ist", "sind"};
const Forms kGlauben = {"glaube", "glaubst", "glaubt", "glauben"};
const Forms kBe = {"am", "are", "is", "are"};
const Forms kDo = {"do", "do", "does", "do"};
const Forms kThink = {"think", "think", "thinks", "think"};

struct Verb {
  const char* infinitive;  // essen
  Forms present;           // ich esse, du isst, er isst, wir essen
  const char* participle;  // gegessen: the perfect is haben + participle
  const char* en_base;     // eat
  const char* en_3sg;      // eats
  const char* en_past;     // ate: the German perfect becomes the English simple past
};
const Verb kVerbs[] = {
    {"essen", {"esse", "isst", "isst", "essen"}, "gegessen", "eat", "eats", "ate"},
    {"trinken", {"trinke", "trinkst", "trinkt", "trinken"}, "getrunken", "drink", "drinks", "drank"},
    {"sehen", {"sehe", "siehst", "sieht", "sehen"}, "gesehen", "see", "sees", "saw"},
    {"kaufen", {"kaufe", "kaufst", "kauft", "kaufen"}, "gekauft", "buy", "buys", "bought"},
    {"lesen", {"lese", "liest", "liest", "lesen"}, "gelesen", "read", "reads", "read"},
    {"schreiben", {"schreibe", "schreibst", "schreibt", "schreiben"}, "geschrieben", "write", "writes",
     "wrote"},
};

enum Gender { kMasculine, kFeminine, kNeuter };
const char* const kIndefinite[] = {"einen", "eine", "ein"};  // accusative, by Gender
const char* const kDefinite[] = {"den", "die", "das"};
const char* const kNegative[] = {"keinen", "keine", "kein"};

struct Noun {
  const char* de;
  Gender gender;
  const char* en;
};
const Noun kNouns[] = {
    {"brot", kNeuter, "sandwich"}, {"apfel", kMasculine, "apple"},   {"suppe", kFeminine, "soup"},
    {"kuchen", kMasculine, "cake"}, {"banane", kFeminine, "banana"}, {"ei", kNeuter, "egg"},
    {"kaffee", kMasculine, "coffee"}, {"tee", kMasculine, "tea"},    {"saft", kMasculine, "juice"},
    {"buch", kNeuter, "book"},       {"zeitung", kFeminine, "newspaper"}, {"brief", kMasculine, "letter"},
};

// Which verb takes which object; the held-out pairings never occur in training. Each verb and
// each noun keeps at least one training pairing, so every word is seen in training.
struct Pairing {
  const char* verb;  // infinitive
  const char* noun;
  bool held_out;
};
const Pairing kPairings[] = {
    {"essen", "brot", false},    {"essen", "apfel", false},   {"essen", "suppe", false},
    {"essen", "kuchen", true},   {"essen", "banane", false},  {"essen", "ei", false},
    {"trinken", "kaffee", false}, {"trinken", "tee", true},   {"trinken", "saft", false},
    {"sehen", "apfel", false},   {"sehen", "kuchen", false},  {"sehen", "buch", true},
    {"sehen", "brief", false},   {"kaufen", "brot", false},   {"kaufen", "apfel", false},
    {"kaufen", "kuchen", false}, {"kaufen", "saft", false},   {"kaufen", "tee", false},
    {"kaufen", "buch", false},   {"kaufen", "zeitung", true}, {"lesen", "buch", false},
    {"lesen", "zeitung", false}, {"lesen", "brief", true},    {"schreiben", "buch", false},
    {"schreiben", "brief", false},
};

// States: "ich habe (keinen) hunger" / "ich bin (nicht) satt" -> "i am (not) hungry / full".
struct State {
  const char* de;
  bool with_haben;  // haben + noun, negated by keinen; otherwise sein + adjective, negated by nicht
  const char* en;
};
const State kStates[] = {{"hunger", true, "hungry"}, {"durst", true, "thirsty"}, {"satt", false, "full"}};

// The object may be indefinite, definite, negated by kein, or definite and negated by nicht.
enum ObjectForm { kIndefiniteObject, kDefiniteObject, kKeinObject, kNichtObject };
constexpr ObjectForm kObjectForms[] = {kIndefiniteObject, kDefiniteObject, kKeinObject, kNichtObject};

const Noun& find_noun(const char* de) {
  for (const Noun& n : kNouns)
    if (std::strcmp(n.de, de) == 0) return n;
  assert(false && "unknown noun in kPairings");
  return kNouns[0];
}

const Verb& find_verb(const char* infinitive) {
  for (const Verb& v : kVerbs)
    if (std::strcmp(v.infinitive, infinitive) == 0) return v;
  assert(false && "unknown verb in kPairings");
  return kVerbs[0];
}

struct Clause {
  Words de, en;
};

// A clause with a subject, a verb and its object, e.g. ich + essen + apfel.
struct ObjectClause {
  const Subject& subject;
  const Verb& verb;
  const Noun& noun;
  ObjectForm form;
  bool perfect;

  Words object_de() const {
    const char* article = form == kIndefiniteObject ? kIndefinite[noun.gender]
                          : form == kKeinObject    ? kNegative[noun.gender]
                                                   : kDefinite[noun.gender];
    Words w = {article, noun.de};
    if (form == kNichtObject) w.push_back("nicht");  // den apfel nicht (gegessen)
    return w;
  }
  const char* finite_de() const {
    return perfect ? kHaben[subject.person] : verb.present[subject.person];
  }
  // English: subject, verb phrase, object ("i did not eat the apple").
  Words en() const {
    bool negated = form == kKeinObject || form == kNichtObject;
    Person p = subject.person;
    Words vp = perfect ? (negated ? Words{"did", "not", verb.en_base} : Words{verb.en_past})
                       : (negated ? Words{kDo[p], "not", verb.en_base}
                                  : Words{p == k3Sg ? verb.en_3sg : verb.en_base});
    bool vowel = std::strchr("aeiou", noun.en[0]) != nullptr;
    const char* article = (form == kIndefiniteObject || form == kKeinObject) ? (vowel ? "an" : "a") : "the";
    return Words{subject.en} + vp + Words{article, noun.en};
  }
  Words tail_de() const { return perfect ? Words{verb.participle} : Words{}; }

  // V2 main clause: ich habe den apfel nicht gegessen.
  Clause main() const { return {Words{subject.de, finite_de()} + object_de() + tail_de(), en()}; }
  // V2 after a fronted adverb, subject after the verb: gestern habe ich ... gegessen.
  Clause fronted(const char* adverb_de, const char* adverb_en) const {
    return {Words{adverb_de, finite_de(), subject.de} + object_de() + tail_de(), Words{adverb_en} + en()};
  }
  // Verb-final subordinate clause: weil ich den apfel nicht gegessen habe.
  Clause subordinate(const char* conj_de, const char* conj_en) const {
    Words verbs = perfect ? Words{verb.participle, kHaben[subject.person]}
                          : Words{verb.present[subject.person]};
    return {Words{conj_de, subject.de} + object_de() + verbs, Words{conj_en} + en()};
  }
};

// A state clause: ich habe keinen hunger / weil ich nicht satt bin -> i am not hungry / full.
struct StateClause {
  const Subject& subject;
  const State& state;
  bool negated;

  Words phrase_de() const {
    if (!negated) return {state.de};
    return {state.with_haben ? "keinen" : "nicht", state.de};
  }
  const char* finite_de() const { return (state.with_haben ? kHaben : kSein)[subject.person]; }
  Words en() const {
    Words w = {subject.en, kBe[subject.person]};
    if (negated) w.push_back("not");
    w.push_back(state.en);
    return w;
  }
  Clause main() const { return {Words{subject.de, finite_de()} + phrase_de(), en()}; }
  Clause subordinate(const char* conj_de, const char* conj_en) const {
    return {Words{conj_de, subject.de} + phrase_de() + Words{finite_de()}, Words{conj_en} + en()};
  }
};

// Every sentence of the grammar, in a fixed order. Four shapes, each with one object clause:
//   1. simple:        ich esse einen apfel .  /  gestern habe ich den apfel nicht gegessen .
//                     (each also fronted: heute + present, gestern + perfect)
//   2. state, weil:   ich habe keinen hunger , weil ich ein brot gegessen habe .
//   3. glauben, dass: du glaubst , dass er keinen kaffee trinkt .   (-> you think that he ...)
//   4. object, weil:  wir kaufen das buch , weil wir durst haben .
// Each sentence goes to emit(german, english, held_out) as it is made.
template <class Emit>
void enumerate_grammar(Emit emit) {
  auto add = [&](Clause c, const Pairing& pairing) {
    c.de.push_back(".");
    c.en.push_back(".");
    emit(c.de, c.en, pairing.held_out);
  };
  auto join = [](const Clause& a, const Words& de_sep, const Words& en_sep, const Clause& b) {
    return Clause{a.de + de_sep + b.de, a.en + en_sep + b.en};
  };
  for (const Subject& s : kSubjects)
    for (const Pairing& p : kPairings)
      for (ObjectForm form : kObjectForms)
        for (bool perfect : {false, true}) {
          ObjectClause c{s, find_verb(p.verb), find_noun(p.noun), form, perfect};
          add(c.main(), p);
          add(perfect ? c.fronted("gestern", "yesterday") : c.fronted("heute", "today"), p);
        }
  for (const Subject& s : kSubjects)
    for (const State& state : kStates)
      for (bool negated : {false, true})
        for (const Pairing& p : kPairings)
          for (ObjectForm form : kObjectForms)
            for (bool perfect : {false, true}) {
              ObjectClause c{s, find_verb(p.verb), find_noun(p.noun), form, perfect};
              Clause state_main = StateClause{s, state, negated}.main();
              add(join(state_main, {","}, {","}, c.subordinate("weil", "because")), p);
            }
  for (const Subject& s1 : kSubjects)
    for (const Subject& s2 : kSubjects)
      for (const Pairing& p : kPairings)
        for (ObjectForm form : kObjectForms)
          for (bool perfect : {false, true}) {
            ObjectClause c{s2, find_verb(p.verb), find_noun(p.noun), form, perfect};
            Clause main{{s1.de, kGlauben[s1.person]}, {s1.en, kThink[s1.person]}};
            add(join(main, {","}, {}, c.subordinate("dass", "that")), p);
          }
  for (const Subject& s : kSubjects)
    for (const Pairing& p : kPairings)
      for (ObjectForm form : kObjectForms)
        for (bool perfect : {false, true})
          for (const State& state : kStates)
            for (bool negated : {false, true}) {
              ObjectClause c{s, find_verb(p.verb), find_noun(p.noun), form, perfect};
              Clause because = StateClause{s, state, negated}.subordinate("weil", "because");
              add(join(c.main(), {","}, {","}, because), p);
            }
}

// Words -> ids, growing the word list in order of first appearance (ids start after specials).
class WordIndex {
 public:
  std::vector<int64_t> encode(const Words& words) {
    std::vector<int64_t> ids;
    for (const std::string& w : words) {
      auto [it, added] = index_.try_emplace(w, static_cast<int64_t>(words_.size()) + Vocab::kNumSpecials);
      if (added) words_.push_back(w);
      ids.push_back(it->second);
    }
    return ids;
  }
  Vocab vocab() const { return Vocab(words_); }

 private:
  Words words_;
  std::unordered_map<std::string, int64_t> index_;
};

}  // namespace

TranslateTask::TranslateTask() {
  WordIndex de, en;
  enumerate_grammar([&](const Words& german, const Words& english, bool held_out) {
    Example e{de.encode(german), en.encode(english)};
    std::vector<Example>& list = held_out ? held_out_ : train_;
    if (held_out) held_out_by_length_[static_cast<int64_t>(e.src.size())].push_back(list.size());
    list.push_back(std::move(e));
  });
  src_vocab_ = de.vocab();
  tgt_vocab_ = en.vocab();
  min_len_ = max_len_ = static_cast<int64_t>(train_.front().src.size());
  for (const Example& e : train_) {
    min_len_ = std::min(min_len_, static_cast<int64_t>(e.src.size()));
    max_len_ = std::max(max_len_, static_cast<int64_t>(e.src.size()));
    max_target_len_ = std::max(max_target_len_, static_cast<int64_t>(e.tgt.size()));
  }
}

std::vector<std::pair<std::string, std::string>> TranslateTask::held_out_combinations() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Pairing& p : kPairings)
    if (p.held_out) out.emplace_back(p.verb, p.noun);
  return out;
}

// A linear scan: this serves predict and tests, not the training loop.
const Example* TranslateTask::find(const std::vector<int64_t>& src, Split* split) const {
  for (Split s : {Split::kTrain, Split::kHeldOut})
    for (const Example& e : s == Split::kTrain ? train_ : held_out_)
      if (e.src == src) {
        if (split) *split = s;
        return &e;
      }
  if (split) *split = Split::kNone;
  return nullptr;
}

TranslateTask::Split TranslateTask::split_of(const std::vector<int64_t>& src) const {
  Split split;
  find(src, &split);
  return split;
}

Example TranslateTask::sample(Generator& gen) const {
  return train_[gen.randint(0, static_cast<int64_t>(train_.size()) - 1)];
}

Example TranslateTask::sample(Generator& gen, int64_t length) const {
  auto it = held_out_by_length_.find(length);
  if (it == held_out_by_length_.end()) {
    std::string lengths;
    for (const auto& [len, indices] : held_out_by_length_)
      lengths += (lengths.empty() ? "" : ", ") + std::to_string(len);
    throw Error("translate: no held-out sentence has " + std::to_string(length) +
                " tokens (lengths: " + lengths + ")");
  }
  const std::vector<size_t>& indices = it->second;
  return held_out_[indices[gen.randint(0, static_cast<int64_t>(indices.size()) - 1)]];
}

Example TranslateTask::sample_held_out(Generator& gen) const {
  return held_out_[gen.randint(0, static_cast<int64_t>(held_out_.size()) - 1)];
}

std::vector<int64_t> TranslateTask::target(const std::vector<int64_t>& src) const {
  const Example* e = find(src, nullptr);
  if (!e) {
    std::string text;
    for (int64_t id : src)
      text += (text.empty() ? "" : " ") + (id >= 0 && id < src_vocab_.size() ? src_vocab_.token(id) : "?");
    throw Error("translate: '" + text + "' is not a sentence of the grammar");
  }
  return e->tgt;
}

GermanTask::GermanTask() {
  for (const Example& e : grammar_.train_pairs()) split_.emplace(e.src, TranslateTask::Split::kTrain);
  for (const Example& e : grammar_.held_out()) split_.emplace(e.src, TranslateTask::Split::kHeldOut);
}

Example GermanTask::sentence(const Example& pair) {
  Example e;
  e.src = pair.src;
  e.tgt = pair.src;
  return e;
}

Example GermanTask::sample(Generator& gen) const { return sentence(grammar_.sample(gen)); }
Example GermanTask::sample(Generator& gen, int64_t length) const { return sentence(grammar_.sample(gen, length)); }
Example GermanTask::sample_held_out(Generator& gen) const { return sentence(grammar_.sample_held_out(gen)); }

TranslateTask::Split GermanTask::in_grammar(const std::vector<int64_t>& words) const {
  auto it = split_.find(words);
  return it == split_.end() ? TranslateTask::Split::kNone : it->second;
}

std::vector<int64_t> GermanTask::target(const std::vector<int64_t>& src) const {
  if (in_grammar(src) == TranslateTask::Split::kNone) grammar_.target(src);  // its error names the sentence
  return src;
}

}  // namespace heed
