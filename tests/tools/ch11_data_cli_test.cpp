// Your own data through the real program: heed data writes a task as pairs, heed train --data
// trains on them and scores its validation split, eval --data scores a file with the
// checkpoint's vocabularies and tokenizer, predict reads free text, and bad data stops a run
// before anything is saved.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/json.h"
#include "tests/support/heed_cli.h"

using namespace heed;
namespace fs = std::filesystem;

namespace {

const std::string kSmall = " --embed 8 --hidden 12 --batch 8 --eval-samples 1000 ";

void spit(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }
bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

}  // namespace

TEST_SUITE("ch11_translation") {
  TEST_CASE("heed data writes translate's splits in order and toy tasks as draws, one source<TAB>target a line") {
    Scratch s("data-cmd");
    CliRun train = s.heed("data --task translate --out " + s.path("train.tsv"));
    CliRun held = s.heed("data --task translate --split held-out --out " + s.path("held.tsv"));
    CliRun rev = s.heed("data --task reverse --count 50 --min-len 3 --max-len 3 --out " + s.path("rev.tsv"));
    INFO(train.err << held.err << rev.err);
    REQUIRE(train.status == 0);
    REQUIRE(held.status == 0);
    REQUIRE(rev.status == 0);
    CHECK(contains(train.out, "wrote 15200 pairs of translate"));
    CHECK(count_lines(slurp(s.path("train.tsv"))) == 15200);
    CHECK(count_lines(slurp(s.path("held.tsv"))) == 3800);
    const std::string r = slurp(s.path("rev.tsv"));
    CHECK(count_lines(r) == 50);
    // reverse: the target is the source backwards, e.g. "3 1 4\t4 1 3".
    const std::string first = r.substr(0, r.find('\n'));
    const std::string src = first.substr(0, first.find('\t')), tgt = first.substr(first.find('\t') + 1);
    CHECK(std::string(src.rbegin(), src.rend()) == tgt);
    CHECK(s.heed("data --task translate --count 3 --out " + s.path("three.tsv")).status == 0);
    CHECK(count_lines(slurp(s.path("three.tsv"))) == 3);
    CliRun no_out = s.heed("data --task copy");
    CHECK(no_out.status == 2);
    CHECK(contains(no_out.err, "--out FILE is required"));
    // german is a language (--model decoder), not pairs: refused before anything is written.
    CliRun german = s.heed("data --task german --out " + s.path("german.tsv"));
    CHECK(german.status == 2);
    CHECK(contains(german.err, "--task german is sentences to model, not source-target pairs"));
    CHECK_FALSE(std::filesystem::exists(s.path("german.tsv")));
  }

  TEST_CASE("heed train --data: vocabularies and counts reported, BLEU and perplexity on validation, eval --data agrees") {
    Scratch s("data-train");
    REQUIRE(s.heed("data --task reverse --count 400 --min-len 3 --max-len 6 --out " + s.path("train.tsv")).status == 0);
    REQUIRE(s.heed("data --task reverse --count 40 --seed 9 --min-len 3 --max-len 8 --out " + s.path("valid.tsv")).status == 0);
    const std::string model = s.path("m.safetensors");
    CliRun t = s.heed("train --data " + s.path("train.tsv") + " --valid " + s.path("valid.tsv") +
                      " --max-len 7 --steps 30 --json" + kSmall + "--save " + model + " --film " + s.path("film.html"));
    INFO(t.out << t.err);
    REQUIRE(t.status == 0);
    CHECK(contains(t.out, "on data, 30 steps"));
    CHECK(contains(t.out, "400 lines, 0 pairs longer than --max-len 7 skipped"));
    CHECK(contains(t.out, "training 400 pairs, validation"));
    CHECK(contains(t.out, "vocabularies: source 14, target 14"));  // 3 specials, <unk>, the digits 0-9
    CHECK(fs::file_size(s.path("film.html")) > 1000);  // the film watches the first validation pair
    Json j = t.json();
    REQUIRE(j.find("bleu") != nullptr);
    REQUIRE(j.find("perplexity") != nullptr);
    const real bleu = j.find("bleu")->as_real(), ppl = j.find("perplexity")->as_real();
    CHECK(bleu >= 0);
    CHECK(bleu <= 1);
    CHECK(ppl > 1);
    CHECK(ppl < 14);  // better than a uniform guess over the target vocabulary after 30 steps
    // The checkpoint holds the vocabularies and settings: eval --data of the validation file
    // reads it as train did and gets the same figures.
    CliRun e = s.heed("eval --load " + model + " --data " + s.path("valid.tsv") + " --json");
    INFO(e.err);
    REQUIRE(e.status == 0);
    Json ej = e.json();
    CHECK(ej.find("bleu")->as_real() == bleu);
    CHECK(ej.find("perplexity")->as_real() == ppl);
    CHECK(ej.find("exact")->as_real() == j.find("exact")->as_real());
    CHECK(ej.find("pairs")->as_real() + ej.find("skipped")->as_real() == 40);  // lengths 8 skipped
    // A data model is scored on a file, not by length; a toy model cannot read a data file.
    CliRun no_data = s.heed("eval --load " + model);
    CHECK(no_data.status == 2);
    CHECK(contains(no_data.err, "was trained on a data file: give the pairs to score with --data FILE"));
    CliRun lengths = s.heed("eval --load " + model + " --data " + s.path("valid.tsv") + " --lengths 3");
    CHECK(lengths.status == 2);
    CHECK(contains(lengths.err, "--lengths does not apply to --data"));
    REQUIRE(s.heed("train --task reverse --steps 0 --embed 4 --hidden 4 --save " + s.path("rev.safetensors")).status == 0);
    CliRun toy = s.heed("eval --load " + s.path("rev.safetensors") + " --data " + s.path("valid.tsv"));
    CHECK(toy.status == 2);
    CHECK(contains(toy.err, "was trained on task reverse"));
  }

  TEST_CASE("heed train --data --resume reads the file again and ends byte-identical; a changed file is refused") {
    Scratch s("data-resume");
    REQUIRE(s.heed("data --task sort --count 200 --min-len 3 --max-len 6 --out " + s.path("train.tsv")).status == 0);
    const std::string run = "train --data " + s.path("train.tsv") + " --valid-fraction 0.2 --min-count 2 --lower"
                            " --schedule constant" + kSmall;
    CliRun whole = s.heed(run + "--steps 20 --save " + s.path("whole.safetensors"));
    CliRun half = s.heed(run + "--steps 10 --save " + s.path("part.safetensors"));
    INFO(whole.err << half.err);
    REQUIRE(whole.status == 0);
    REQUIRE(half.status == 0);
    CliRun rest = s.heed("train --resume " + s.path("part.safetensors") + " --steps 20");
    INFO(rest.out << rest.err);
    REQUIRE(rest.status == 0);
    CHECK(slurp(s.path("part.safetensors")) == slurp(s.path("whole.safetensors")));
    // A file moved is given with --data; a file changed is refused, naming both fingerprints.
    fs::rename(s.path("train.tsv"), s.path("moved.tsv"));
    CliRun lost = s.heed("train --resume " + s.path("part.safetensors") + " --steps 30");
    CHECK(lost.status == 2);
    CHECK(contains(lost.err, "if the file has moved, give it with --data FILE"));
    spit(s.path("changed.tsv"), slurp(s.path("moved.tsv")) + "1 2\t1 2\n");
    CliRun changed = s.heed("train --resume " + s.path("part.safetensors") + " --steps 30 --data " + s.path("changed.tsv"));
    CHECK(changed.status == 2);
    CHECK(contains(changed.err, "is not the file the run trained on (FNV-1a fingerprint"));
    CliRun moved = s.heed("train --resume " + s.path("part.safetensors") + " --steps 30 --data " + s.path("moved.tsv"));
    INFO(moved.err);
    CHECK(moved.status == 0);
  }

  TEST_CASE("heed train --data with the transformer; predict reads free text with the model's tokenizer and <unk>") {
    Scratch s("data-predict");
    spit(s.path("pairs.tsv"), "Guten Morgen!\tGood morning!\nGute Nacht.\tGood night.\nDanke.\tThanks.\n");
    const std::string model = s.path("t.safetensors");
    CliRun t = s.heed("train --data " + s.path("pairs.tsv") + " --valid-fraction 0 --lower --model transformer "
                      "--embed 8 --heads 2 --ff 16 --layers 1 --batch 3 --steps 5 --save " + model);
    INFO(t.out << t.err);
    REQUIRE(t.status == 0);
    CHECK(contains(t.out, "validation: no pairs to score"));
    CliRun p = s.heed("predict --load " + model + " \"GUTEN Abend!\"");
    INFO(p.err);
    REQUIRE(p.status == 0);
    CHECK(contains(p.out, "not in the vocabulary, read as <unk>: abend"));
    CHECK(contains(p.out, "source: GUTEN Abend!"));
  }

  TEST_CASE("heed train --data: bad data stops the run before anything is saved, naming the line") {
    Scratch s("data-bad");
    const std::string model = s.path("m.safetensors");
    spit(s.path("bad.tsv"), "a b\tc d\nno tab\n");
    CliRun bad = s.heed("train --data " + s.path("bad.tsv") + " --steps 5" + kSmall + "--save " + model);
    CHECK(bad.status == 2);
    CHECK(contains(bad.err, "bad.tsv: line 2 (byte 8): has no tab"));
    CHECK_FALSE(fs::exists(model));
    spit(s.path("empty.tsv"), "");
    CliRun empty = s.heed("train --data " + s.path("empty.tsv") + " --steps 5 --save " + model);
    CHECK(empty.status == 2);
    CHECK(contains(empty.err, "no pairs (the file is empty)"));
    CHECK_FALSE(fs::exists(model));
    CliRun both = s.heed("train --data " + s.path("bad.tsv") + " --task copy");
    CHECK(both.status == 2);
    CHECK(contains(both.err, "--task does not apply to --data"));
    CliRun stray = s.heed("train --min-count 2");
    CHECK(stray.status == 2);
    CHECK(contains(stray.err, "--min-count is for --data FILE"));
    // The data file is an input: --save may not replace it.
    spit(s.path("good.tsv"), "a b\tc d\n");
    CliRun same = s.heed("train --data " + s.path("good.tsv") + " --steps 1 --save " + s.path("good.tsv"));
    CHECK(same.status == 2);
    CHECK(slurp(s.path("good.tsv")) == "a b\tc d\n");
  }
}
