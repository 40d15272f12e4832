// The toy tasks of docs/models.md: vocabulary, targets, lengths, padding, seeding, validation.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "models/tasks/tasks.h"
#include "models/tasks/vocab.h"

using namespace heed;

namespace {

std::string run(const Task& task, const std::string& source) {
  return task.tgt_vocab().decode(task.target(task.src_vocab().encode(source)));
}

}  // namespace

TEST_SUITE("ch06_seq2seq") {
  TEST_CASE("symbol vocabulary: specials at 0, 1, 2, symbol k at id k + 3") {
    Vocab v = Vocab::symbols(10);
    CHECK(v.size() == 13);
    CHECK(v.id("<pad>") == Vocab::kPad);
    CHECK(v.id("<bos>") == Vocab::kBos);
    CHECK(v.id("<eos>") == Vocab::kEos);
    CHECK(v.id("0") == 3);
    CHECK(v.id("9") == 12);
    CHECK(v.token(7) == "4");
    CHECK(v.encode("3 1 4 1 5") == std::vector<int64_t>{6, 4, 7, 4, 8});
    CHECK(v.encode("  3\t1\n4  ") == std::vector<int64_t>{6, 4, 7});
    CHECK(v.decode({1, 6, 4, 7, 2, 0}) == "<bos> 3 1 4 <eos> <pad>");
    CHECK(v.decode(v.encode("9 0 9")) == "9 0 9");
    CHECK(v.decode({}) == "");
  }

  TEST_CASE("vocabulary errors name the token and what the vocabulary holds") {
    Vocab v = Vocab::symbols(10);
    CHECK_THROWS_WITH_AS(v.id("10"), "unknown token '10' (vocabulary: 0 .. 9)", Error);
    CHECK_THROWS_WITH_AS(v.encode("3 x 4"), "unknown token 'x' (vocabulary: 0 .. 9)", Error);
    CHECK_THROWS_WITH_AS(v.encode(""), doctest::Contains("encode: empty text"), Error);
    CHECK_THROWS_WITH_AS(v.encode(" \t\n"), doctest::Contains("encode: empty text"), Error);
    CHECK_THROWS_WITH_AS(v.encode("3 <eos>"), doctest::Contains("'<eos>' is a special token"), Error);
    CHECK_THROWS_WITH_AS(v.token(13), doctest::Contains("id 13 is out of range (0 .. 12)"), Error);
    CHECK_THROWS_WITH_AS(v.token(-1), doctest::Contains("id -1 is out of range"), Error);
    CHECK_THROWS_WITH_AS(Vocab::symbols(0), doctest::Contains("V = 0"), Error);

    Vocab words({"ich", "habe", "hunger"});
    CHECK(words.size() == 6);
    CHECK(words.id("hunger") == 5);
    CHECK(words.encode("ich habe hunger") == std::vector<int64_t>{3, 4, 5});
    CHECK_THROWS_WITH_AS(words.id("durst"), "unknown token 'durst' (vocabulary: 3 words: ich habe hunger)",
                         Error);
    CHECK_THROWS_WITH_AS(Vocab({"a", "b", "a"}), doctest::Contains("word 'a' appears twice"), Error);
    CHECK_THROWS_WITH_AS(Vocab({"a", "<bos>"}), doctest::Contains("name of a special token"), Error);
    CHECK_THROWS_WITH_AS(Vocab({"a b"}), doctest::Contains("contains whitespace"), Error);
  }

  TEST_CASE("each task's target for a known source") {
    CopyTask copy(10, 1, 10);
    ReverseTask reverse(10, 1, 10);
    SortTask sort(10, 1, 10);
    CHECK(run(copy, "3 1 4 1 5") == "3 1 4 1 5");
    CHECK(run(reverse, "3 1 4 1 5") == "5 1 4 1 3");
    CHECK(run(sort, "3 1 4 1 5") == "1 1 3 4 5");
    CHECK(run(reverse, "7") == "7");
    CHECK(run(sort, "9 8 7 0") == "0 7 8 9");
    // Ids outside the symbols are not a source.
    CHECK_THROWS_WITH_AS(reverse.target({3, 13}),
                         doctest::Contains("source id 13 is not a symbol (ids 3 .. 12)"), Error);
    CHECK_THROWS_WITH_AS(reverse.target({2}), doctest::Contains("source id 2 is not a symbol"), Error);
    CHECK_THROWS_WITH_AS(copy.target({}), doctest::Contains("copy: empty source"), Error);
  }

  TEST_CASE("samples: lengths within bounds, every length and symbol seen, targets right") {
    ReverseTask task(6, 3, 7);
    SortTask sort(6, 3, 7);
    Generator gen(7);
    std::set<size_t> lengths;
    std::set<int64_t> symbols;
    for (int i = 0; i < 500; ++i) {
      Example e = task.sample(gen);
      REQUIRE(e.src.size() >= 3);
      REQUIRE(e.src.size() <= 7);
      lengths.insert(e.src.size());
      for (int64_t id : e.src) {
        REQUIRE(id >= 3);
        REQUIRE(id <= 8);
        symbols.insert(id);
      }
      std::vector<int64_t> reversed(e.src.rbegin(), e.src.rend());
      REQUIRE(e.tgt == reversed);
      Example s = sort.sample(gen);
      REQUIRE(std::is_sorted(s.tgt.begin(), s.tgt.end()));
      REQUIRE(std::is_permutation(s.src.begin(), s.src.end(), s.tgt.begin(), s.tgt.end()));
    }
    CHECK(lengths == std::set<size_t>{3, 4, 5, 6, 7});
    CHECK(symbols.size() == 6);
    CHECK(task.min_len() == 3);
    CHECK(task.max_len() == 7);
    CHECK(task.max_target_len() == 7);
    CHECK(task.num_symbols() == 6);
  }

  TEST_CASE("sample(gen, length): any length up to the limit, for extrapolation") {
    CopyTask task(10, 5, 10);
    Generator gen(3);
    for (int64_t len : {1, 5, 10, 40}) {
      Example e = task.sample(gen, len);
      CHECK(static_cast<int64_t>(e.src.size()) == len);
      CHECK(e.tgt == e.src);
    }
    CHECK_THROWS_WITH_AS(task.sample(gen, 0), "copy: length 0 is out of range (1 .. 1000)", Error);
    CHECK_THROWS_WITH_AS(task.sample(gen, 1001), doctest::Contains("length 1001 is out of range"), Error);
  }

  TEST_CASE("sampling follows the pinned order: length first, then symbols left to right") {
    ReverseTask task(10, 5, 30);
    Generator gen(2024), ref(2024);
    for (int i = 0; i < 20; ++i) {
      Example e = task.sample(gen);
      int64_t len = ref.randint(5, 30);
      std::vector<int64_t> src(len);
      for (int64_t& id : src) id = ref.randint(0, 9) + 3;
      REQUIRE(e.src == src);
    }
  }

  TEST_CASE("determinism: the same seed gives the same examples, another seed others") {
    auto draw = [](uint64_t seed) {
      SortTask task(10, 2, 12);
      Generator gen(seed);
      std::vector<int64_t> all;
      for (int i = 0; i < 50; ++i) {
        Example e = task.sample(gen);
        all.insert(all.end(), e.src.begin(), e.src.end());
        all.push_back(-1);
      }
      return all;
    };
    CHECK(draw(11) == draw(11));
    CHECK(draw(11) != draw(12));
  }

  TEST_CASE("make_batch: PAD padding, BOS/EOS shifted targets, lengths") {
    // Sources "3 1" and "4 1 5 9"; targets as the reverse task makes them.
    std::vector<Example> examples = {{{6, 4}, {4, 6}}, {{7, 4, 8, 12}, {12, 8, 4, 7}}};
    Batch b = make_batch(examples);
    CHECK(b.batch == 2);
    CHECK(b.src_len == 4);
    CHECK(b.tgt_len == 5);
    CHECK(b.src == std::vector<int64_t>{6, 4, 0, 0, /**/ 7, 4, 8, 12});
    CHECK(b.lengths == std::vector<int64_t>{2, 4});
    CHECK(b.tgt_in == std::vector<int64_t>{1, 4, 6, 0, 0, /**/ 1, 12, 8, 4, 7});
    CHECK(b.tgt_out == std::vector<int64_t>{4, 6, 2, 0, 0, /**/ 12, 8, 4, 7, 2});
    CHECK(b.tgt_lengths == std::vector<int64_t>{3, 5});

    // Source and target lengths are independent (translate): an empty target is only EOS.
    Batch c = make_batch({{{3, 3, 3}, {}}});
    CHECK(c.src_len == 3);
    CHECK(c.tgt_len == 1);
    CHECK(c.tgt_in == std::vector<int64_t>{1});
    CHECK(c.tgt_out == std::vector<int64_t>{2});
    CHECK(c.tgt_lengths == std::vector<int64_t>{1});

    CHECK_THROWS_WITH_AS(make_batch({}), "make_batch: no examples", Error);
    CHECK_THROWS_WITH_AS(make_batch({{{3}, {3}}, {{}, {3}}}), "make_batch: example 1 has an empty source",
                         Error);
    CHECK_THROWS_WITH_AS(make_batch({{{3, 0}, {3}}}),
                         doctest::Contains("example 0: source holds the special id 0"), Error);
    CHECK_THROWS_WITH_AS(make_batch({{{3}, {3, 2}}}),
                         doctest::Contains("example 0: target holds the special id 2"), Error);
  }

  TEST_CASE("sample_batch: every row is a valid padded example of the task") {
    ReverseTask task(10, 2, 9);
    Generator gen(5);
    Batch b = sample_batch(task, gen, 16);
    CHECK(b.batch == 16);
    CHECK(b.src.size() == static_cast<size_t>(16 * b.src_len));
    CHECK(b.tgt_in.size() == static_cast<size_t>(16 * b.tgt_len));
    CHECK(b.src_len == *std::max_element(b.lengths.begin(), b.lengths.end()));
    for (int64_t i = 0; i < b.batch; ++i) {
      int64_t S = b.lengths[i];
      CHECK(b.tgt_lengths[i] == S + 1);  // reverse: L = S
      for (int64_t s = 0; s < b.src_len; ++s) {
        int64_t id = b.src[i * b.src_len + s];
        CHECK((s < S ? id >= 3 : id == Vocab::kPad));
      }
      for (int64_t t = 0; t < S; ++t)  // y_t = x_{S-1-t}
        CHECK(b.tgt_out[i * b.tgt_len + t] == b.src[i * b.src_len + S - 1 - t]);
      CHECK(b.tgt_out[i * b.tgt_len + S] == Vocab::kEos);
      CHECK(b.tgt_in[i * b.tgt_len] == Vocab::kBos);
    }
    CHECK_THROWS_WITH_AS(sample_batch(task, gen, 0), doctest::Contains("--batch 0 must be at least 1"),
                         Error);
  }

  TEST_CASE("parameter validation names the flag and the value") {
    CHECK_THROWS_WITH_AS(ReverseTask(0, 1, 5), "reverse: --vocab 0 is out of range (1 .. 10000)", Error);
    CHECK_THROWS_WITH_AS(CopyTask(10001, 1, 5), "copy: --vocab 10001 is out of range (1 .. 10000)", Error);
    CHECK_THROWS_WITH_AS(SortTask(10, 0, 5), "sort: --min-len 0 is out of range (1 .. 1000)", Error);
    CHECK_THROWS_WITH_AS(SortTask(10, 1, 5000), "sort: --max-len 5000 is out of range (1 .. 1000)", Error);
    CHECK_THROWS_WITH_AS(ReverseTask(10, 6, 5), "reverse: --min-len 6 is greater than --max-len 5", Error);
    CHECK_NOTHROW(ReverseTask(1, 1, 1));
    CHECK_NOTHROW(ReverseTask(10000, 1000, 1000));
  }

  TEST_CASE("make_task: names, and unknown names listed") {
    for (const char* name : {"copy", "reverse", "sort"}) {
      std::unique_ptr<Task> task = make_task(name, 12, 2, 4);
      CHECK(task->name() == name);
      CHECK(task->src_vocab().size() == 15);
      CHECK(task->tgt_vocab().size() == 15);
      CHECK(task->min_len() == 2);
      CHECK(task->max_len() == 4);
    }
    CHECK(make_task("reverse", 10, 1, 5)->target({6, 4, 7}) == std::vector<int64_t>{7, 4, 6});
    CHECK_THROWS_WITH_AS(make_task("revrese", 10, 1, 5),
                         "unknown task 'revrese' (tasks: copy, reverse, sort, repeat, translate, german)", Error);
    CHECK_THROWS_WITH_AS(make_task("copy", 10, 3, 2), doctest::Contains("--min-len 3 is greater"), Error);
  }
}
