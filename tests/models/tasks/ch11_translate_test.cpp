// The toy German->English grammar of docs/models.md: the seed pair, the held-out split by
// combination, vocabulary coverage, size, and agreement in both languages; a short training
// that learns something the untrained model does not; and chapter 11's text.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "models/evaluate.h"
#include "models/seq2seq.h"
#include "models/train.h"
#include "models/tasks/translate.h"
#include "tests/support/chapter_check.h"

using namespace heed;

namespace {

// Built once: the grammar takes tens of milliseconds to enumerate.
const TranslateTask& task() {
  static const TranslateTask t;
  return t;
}

std::vector<std::string> words(const Vocab& vocab, const std::vector<int64_t>& ids) {
  std::vector<std::string> out;
  for (int64_t id : ids) out.push_back(vocab.token(id));
  return out;
}

bool has(const std::vector<std::string>& sentence, const std::set<std::string>& any) {
  for (const std::string& w : sentence)
    if (any.count(w)) return true;
  return false;
}

// The test's own account of each verb's forms and each noun's translation, independent of
// translate.cpp, to recognise a (verb, noun) combination in either language.
const std::map<std::string, std::set<std::string>> kGermanVerbForms = {
    {"essen", {"esse", "isst", "essen", "gegessen"}},
    {"trinken", {"trinke", "trinkst", "trinkt", "trinken", "getrunken"}},
    {"sehen", {"sehe", "siehst", "sieht", "sehen", "gesehen"}},
    {"kaufen", {"kaufe", "kaufst", "kauft", "kaufen", "gekauft"}},
    {"lesen", {"lese", "liest", "lesen", "gelesen"}},
    {"schreiben", {"schreibe", "schreibst", "schreibt", "schreiben", "geschrieben"}},
};
const std::map<std::string, std::set<std::string>> kEnglishVerbForms = {
    {"essen", {"eat", "eats", "ate"}},   {"trinken", {"drink", "drinks", "drank"}},
    {"sehen", {"see", "sees", "saw"}},   {"kaufen", {"buy", "buys", "bought"}},
    {"lesen", {"read", "reads"}},        {"schreiben", {"write", "writes", "wrote"}},
};
const std::map<std::string, std::string> kNounTranslation = {
    {"brot", "sandwich"}, {"apfel", "apple"}, {"suppe", "soup"},   {"kuchen", "cake"},
    {"banane", "banana"}, {"ei", "egg"},      {"kaffee", "coffee"}, {"tee", "tea"},
    {"saft", "juice"},    {"buch", "book"},   {"zeitung", "newspaper"}, {"brief", "letter"},
};

// Does the pair contain the combination (verb, noun), in German and in English?
std::pair<bool, bool> contains(const Example& e, const std::pair<std::string, std::string>& combo) {
  std::vector<std::string> de = words(task().src_vocab(), e.src), en = words(task().tgt_vocab(), e.tgt);
  bool in_de = has(de, kGermanVerbForms.at(combo.first)) && has(de, {combo.second});
  bool in_en = has(en, kEnglishVerbForms.at(combo.first)) && has(en, {kNounTranslation.at(combo.second)});
  return {in_de, in_en};
}

// Splits a sentence into clauses at the given separators; returns how many agreement checks
// passed and fails the test case on any that does not. `finite` maps a verb form to the
// subjects it agrees with; a form in `after_not_only` is free after "not" (do not eat).
int64_t check_agreement(const std::vector<std::string>& sentence, const std::set<std::string>& separators,
                        const std::set<std::string>& subjects,
                        const std::map<std::string, std::set<std::string>>& finite) {
  int64_t checks = 0;
  std::vector<std::string> clause;
  auto check_clause = [&]() {
    std::string subject;
    for (const std::string& w : clause)
      if (subjects.count(w)) {
        INFO("two subjects in one clause: ", subject, " and ", w);
        REQUIRE(subject.empty());
        subject = w;
      }
    if (subject.empty()) return;  // an adverb-free remainder such as the final "."
    for (size_t i = 0; i < clause.size(); ++i) {
      auto it = finite.find(clause[i]);
      if (it == finite.end() || (i > 0 && clause[i - 1] == "not")) continue;
      INFO("'", subject, "' with '", clause[i], "'");
      REQUIRE(it->second.count(subject));
      ++checks;
    }
    clause.clear();
  };
  for (const std::string& w : sentence) {
    if (separators.count(w)) {
      check_clause();
      clause.clear();
    } else {
      clause.push_back(w);
    }
  }
  check_clause();
  return checks;
}

const std::set<std::string> kSg1 = {"ich"}, kSg2 = {"du"}, kSg3 = {"er", "sie"}, kPl1 = {"wir"};
const std::set<std::string> kSg2Sg3 = {"du", "er", "sie"};
const std::map<std::string, std::set<std::string>> kGermanFinite = {
    {"habe", kSg1},    {"hast", kSg2},       {"hat", kSg3},      {"haben", kPl1},   {"bin", kSg1},
    {"bist", kSg2},    {"ist", kSg3},        {"sind", kPl1},     {"glaube", kSg1},  {"glaubst", kSg2},
    {"glaubt", kSg3},  {"glauben", kPl1},    {"esse", kSg1},     {"isst", kSg2Sg3}, {"essen", kPl1},
    {"trinke", kSg1},  {"trinkst", kSg2},    {"trinkt", kSg3},   {"trinken", kPl1}, {"sehe", kSg1},
    {"siehst", kSg2},  {"sieht", kSg3},      {"sehen", kPl1},    {"kaufe", kSg1},   {"kaufst", kSg2},
    {"kauft", kSg3},   {"kaufen", kPl1},     {"lese", kSg1},     {"liest", kSg2Sg3}, {"lesen", kPl1},
    {"schreibe", kSg1}, {"schreibst", kSg2}, {"schreibt", kSg3}, {"schreiben", kPl1},
};
const std::set<std::string> kEnNot3 = {"i", "you", "we"}, kEn3 = {"he", "she"};
const std::map<std::string, std::set<std::string>> kEnglishFinite = {
    {"am", {"i"}},        {"are", {"you", "we"}}, {"is", kEn3},       {"do", kEnNot3},   {"does", kEn3},
    {"think", kEnNot3},   {"thinks", kEn3},       {"eat", kEnNot3},   {"eats", kEn3},    {"drink", kEnNot3},
    {"drinks", kEn3},     {"see", kEnNot3},       {"sees", kEn3},     {"buy", kEnNot3},  {"buys", kEn3},
    {"write", kEnNot3},   {"writes", kEn3},       {"reads", kEn3},
};

}  // namespace

TEST_SUITE("ch11_translation") {
  TEST_CASE("the grammar contains the seed pair, in training; its twin is held out") {
    const TranslateTask& t = task();
    std::vector<int64_t> seed = t.src_vocab().encode(TranslateTask::kSeedSource);
    CHECK(t.split_of(seed) == TranslateTask::Split::kTrain);
    CHECK(t.tgt_vocab().decode(t.target(seed)) ==
          std::string("i am not hungry , because i ate a sandwich ."));
    CHECK(std::string(TranslateTask::kSeedSource) ==
          "ich habe keinen hunger , weil ich ein brot gegessen habe .");
    std::vector<int64_t> twin = t.src_vocab().encode(TranslateTask::kTwinSource);
    CHECK(t.split_of(twin) == TranslateTask::Split::kHeldOut);
    CHECK(t.tgt_vocab().decode(t.target(twin)) == TranslateTask::kTwinTarget);
  }

  TEST_CASE("thousands of distinct pairs; sizes and lengths") {
    const TranslateTask& t = task();
    CHECK(t.train_pairs().size() == 15200);
    CHECK(t.held_out().size() == 3800);
    CHECK(t.src_vocab().size() == 79);  // 76 German words + 3 specials
    CHECK(t.tgt_vocab().size() == 58);  // 55 English words + 3 specials
    CHECK(t.min_len() == 5);
    CHECK(t.max_len() == 13);
    CHECK(t.max_target_len() == 13);
    std::set<std::vector<int64_t>> sources;
    for (const auto* list : {&t.train_pairs(), &t.held_out()})
      for (const Example& e : *list) {
        sources.insert(e.src);
        REQUIRE(e.src.size() >= 5);
        REQUIRE(e.src.size() <= 13);
        REQUIRE(e.tgt.size() >= 5);
        REQUIRE(e.tgt.size() <= 13);
      }
    CHECK(sources.size() == 19000);  // no German sentence twice: translation is a function
  }

  TEST_CASE("the held-out split shares no held-out combination with training") {
    const TranslateTask& t = task();
    auto combos = TranslateTask::held_out_combinations();
    REQUIRE(combos.size() == 5);
    for (const Example& e : t.train_pairs())
      for (const auto& combo : combos) {
        auto [in_de, in_en] = contains(e, combo);
        INFO(t.src_vocab().decode(e.src), " holds ", combo.first, " + ", combo.second);
        REQUIRE(!in_de);
        REQUIRE(!in_en);
      }
    std::map<std::pair<std::string, std::string>, int64_t> per_combo;
    for (const Example& e : t.held_out()) {
      int64_t found = 0;
      for (const auto& combo : combos) {
        auto [in_de, in_en] = contains(e, combo);
        REQUIRE(in_de == in_en);
        if (in_de) {
          ++found;
          ++per_combo[combo];
        }
      }
      INFO(t.src_vocab().decode(e.src));
      REQUIRE(found == 1);
      REQUIRE(t.split_of(e.src) == TranslateTask::Split::kHeldOut);
    }
    for (const auto& combo : combos) CHECK(per_combo[combo] == 760);  // every shape of sentence
  }

  TEST_CASE("every word, held-out ones included, is in the vocabularies and in training") {
    const TranslateTask& t = task();
    std::set<int64_t> seen_de, seen_en;
    for (const Example& e : t.train_pairs()) {
      seen_de.insert(e.src.begin(), e.src.end());
      seen_en.insert(e.tgt.begin(), e.tgt.end());
    }
    for (int64_t id = Vocab::kNumSpecials; id < t.src_vocab().size(); ++id) {
      INFO(t.src_vocab().token(id));
      CHECK(seen_de.count(id));
    }
    for (int64_t id = Vocab::kNumSpecials; id < t.tgt_vocab().size(); ++id) {
      INFO(t.tgt_vocab().token(id));
      CHECK(seen_en.count(id));
    }
    for (const Example& e : t.held_out()) {
      for (int64_t id : e.src) REQUIRE(seen_de.count(id));
      for (int64_t id : e.tgt) REQUIRE(seen_en.count(id));
      // Ids round-trip through the vocabularies' strings.
      REQUIRE(t.src_vocab().encode(t.src_vocab().decode(e.src)) == e.src);
      REQUIRE(t.tgt_vocab().encode(t.tgt_vocab().decode(e.tgt)) == e.tgt);
    }
  }

  TEST_CASE("agreement: every finite verb agrees with its clause's subject, in both languages") {
    const TranslateTask& t = task();
    int64_t de_checks = 0, en_checks = 0;
    for (const auto* list : {&t.train_pairs(), &t.held_out()})
      for (const Example& e : *list) {
        std::vector<std::string> de = words(t.src_vocab(), e.src), en = words(t.tgt_vocab(), e.tgt);
        INFO(t.src_vocab().decode(e.src), " -> ", t.tgt_vocab().decode(e.tgt));
        de_checks += check_agreement(de, {",", "."}, {"ich", "du", "er", "sie", "wir"}, kGermanFinite);
        en_checks += check_agreement(en, {",", ".", "that"}, {"i", "you", "he", "she", "we"}, kEnglishFinite);
      }
    CHECK(de_checks >= 19000);  // at least one finite verb per sentence
    CHECK(en_checks >= 10000);  // English simple pasts (ate, did) carry no agreement
  }

  TEST_CASE("spot checks: pairs the grammar must produce, and sentences it must not") {
    const TranslateTask& t = task();
    const std::pair<const char*, const char*> pairs[] = {
        {"ich esse einen apfel .", "i eat an apple ."},
        {"ich habe einen apfel gegessen .", "i ate an apple ."},
        {"du hast keinen hunger , weil du ein brot gegessen hast .",
         "you are not hungry , because you ate a sandwich ."},
        {"er isst den apfel nicht .", "he does not eat the apple ."},
        {"sie hat das buch nicht gelesen .", "she did not read the book ."},
        {"gestern haben wir keinen kaffee getrunken .", "yesterday we did not drink a coffee ."},
        {"heute sieht er den brief .", "today he sees the letter ."},
        {"du glaubst , dass sie das buch liest .", "you think that she reads the book ."},
        {"wir sind nicht satt , weil wir die suppe nicht gegessen haben .",
         "we are not full , because we did not eat the soup ."},
        {"ich kaufe ein buch , weil ich keinen durst habe .", "i buy a book , because i am not thirsty ."},
    };
    for (const auto& pair : pairs) {
      const char* de = pair.first;  // not a structured binding: clang 14 cannot capture one in INFO
      const char* en = pair.second;
      INFO(de);
      std::vector<int64_t> src = t.src_vocab().encode(de);
      CHECK(t.split_of(src) != TranslateTask::Split::kNone);
      CHECK(t.tgt_vocab().decode(t.target(src)) == en);
    }
    for (const char* wrong : {"er habe hunger .", "ich isst einen apfel .", "ich habe ein apfel gegessen .",
                              "ich habe hunger , weil ich ein brot habe gegessen ."}) {
      INFO(wrong);
      std::vector<int64_t> src = t.src_vocab().encode(wrong);
      CHECK(t.split_of(src) == TranslateTask::Split::kNone);
      CHECK_THROWS_WITH_AS(t.target(src), doctest::Contains("is not a sentence of the grammar"), Error);
    }
    CHECK_THROWS_WITH_AS(t.src_vocab().encode("ich esse pizza ."), doctest::Contains("unknown token 'pizza'"),
                         Error);
  }

  TEST_CASE("sampling: training pairs for training, held-out pairs for evaluation, by seed") {
    const TranslateTask& t = task();
    Generator a(9), b(9);
    for (int i = 0; i < 200; ++i) {
      Example e = t.sample(a);
      REQUIRE(t.split_of(e.src) == TranslateTask::Split::kTrain);
      REQUIRE(e.src == t.sample(b).src);
      Example h = t.sample_held_out(a);
      REQUIRE(t.split_of(h.src) == TranslateTask::Split::kHeldOut);
      REQUIRE(h.src == t.sample_held_out(b).src);
    }
    for (int64_t len : {5, 9, 13}) {
      Example e = t.sample(a, len);
      CHECK(static_cast<int64_t>(e.src.size()) == len);
      CHECK(t.split_of(e.src) == TranslateTask::Split::kHeldOut);
    }
    CHECK_THROWS_WITH_AS(t.sample(a, 4),
                         doctest::Contains("translate: no held-out sentence has 4 tokens (lengths: 5,"), Error);
    CHECK_THROWS_WITH_AS(t.sample(a, 14), doctest::Contains("has 14 tokens"), Error);
  }

  TEST_CASE("make_task builds translate; its batches pad source and target separately") {
    std::unique_ptr<Task> t = make_task("translate", 10, 1, 5);  // the numbers are ignored
    CHECK(t->name() == "translate");
    CHECK(t->src_vocab().size() == 79);
    Generator gen(1);
    Batch b = sample_batch(*t, gen, 8);
    CHECK(b.batch == 8);
    for (int64_t i = 0; i < 8; ++i) {
      CHECK(b.tgt_out[i * b.tgt_len + b.tgt_lengths[i] - 1] == Vocab::kEos);
      CHECK(b.lengths[i] <= b.src_len);
    }
  }
}

TEST_SUITE("ch11_translation") {
  TEST_CASE("a few hundred steps of training reach a held-out token accuracy an untrained model does not") {
    // Small sizes keep this under a second or two; the threshold sits between the untrained
    // model (a few per cent: it writes the same words everywhere) and the trained one.
    const TranslateTask& t = task();
    ModelConfig c;
    c.model = "additive";
    c.src_vocab = t.src_vocab().size();
    c.tgt_vocab = t.tgt_vocab().size();
    c.embed = 16;
    c.hidden = 32;
    Generator gen(1);
    Seq2Seq model(c, gen);
    constexpr real kThreshold = 0.3;
    const real untrained = evaluate_held_out(model, t, 200, 5).token();
    CHECK(untrained < kThreshold);
    TrainOptions opt;
    opt.steps = 300;
    opt.batch = 16;
    train(model, t, opt);
    const Accuracy trained = evaluate_held_out(model, t, 200, 5);
    INFO("untrained token accuracy " << untrained << ", trained " << trained.token());
    CHECK(trained.token() > kThreshold);
    CHECK(trained.n == 200);
  }

  // The chapter's full run takes minutes: make check-chapters compares its output; this checks
  // the --quick blocks and the code the chapter quotes.
  TEST_CASE("chapter 11 quotes the code it compiles") { check_chapter("tutorials/11_translation"); }
}
