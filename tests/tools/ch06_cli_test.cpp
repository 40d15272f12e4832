// Chapter 06: the heed command line, run as a user runs it (build/heed, from the repo root;
// $HEED_BUILD/heed when set, as make sanitize does).
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/support/heed_cli.h"

using namespace heed;

TEST_SUITE("ch06_seq2seq") {
  TEST_CASE("heed train, eval, predict and bench: the happy path with --json") {
    Scratch s("cli");
    std::string model = s.path("m.safetensors");
    CliRun t = s.heed("train --task reverse --model additive --min-len 3 --max-len 5 --embed 8 --hidden 12 --batch 8 "
                   "--steps 20 --eval-samples 50 --save " + model + " --json");
    INFO(t.err);
    REQUIRE(t.status == 0);
    Json j = t.json();
    for (const char* key : {"task", "model", "cell", "dtype", "steps", "seconds", "loss", "exact", "token", "tokens_per_second"})
      CHECK_MESSAGE(j.find(key) != nullptr, key);
    CHECK(j.find("dtype")->as_string() == kRealName);  // "float64", or "float32" in the float build
    CHECK(j.find("task")->as_string() == "reverse");
    CHECK(j.find("steps")->as_int() == 20);
    CHECK(std::filesystem::exists(model));

    CliRun e = s.heed("eval --load " + model + " --lengths 3,7 --samples 20 --json");
    INFO(e.err);
    REQUIRE(e.status == 0);
    Json ej = e.json();
    CHECK(ej.find("dtype")->as_string() == kRealName);
    const Json::Array& rows = ej.find("by_length")->as_array();
    REQUIRE(rows.size() == 2);
    CHECK(rows[1].find("length")->as_int() == 7);
    CHECK(rows[1].find("n")->as_int() == 20);
    CHECK(rows[0].find("exact")->as_real() >= 0);

    CliRun p = s.heed("predict --load " + model + " --json \"3 1 4 1 5\"");
    INFO(p.err);
    REQUIRE(p.status == 0);
    Json pj = p.json();
    CHECK(pj.find("source")->as_array().size() == 5);
    size_t outputs = pj.find("output")->as_array().size();
    CHECK(outputs >= 1);
    CHECK(pj.find("attention")->as_array().size() == outputs);
    CHECK(pj.find("attention")->as_array()[0].as_array().size() == 5);
    CHECK(pj.find("log_prob")->as_real() <= 0);
    CHECK(pj.find("dtype")->as_string() == kRealName);

    CliRun b = s.heed("bench --model dot --embed 8 --hidden 8 --batch 4 --len 3 --steps 2 --warmup 0 --json");
    INFO(b.err);
    REQUIRE(b.status == 0);
    for (const char* key : {"model", "dtype", "embed", "hidden", "batch", "len", "ms_per_step", "tokens_per_second", "peak_rss_mb"})
      CHECK_MESSAGE(b.json().find(key) != nullptr, key);
    CHECK(b.json().find("dtype")->as_string() == kRealName);
    CHECK(b.out.find(std::string(" ") + kRealName + " E 8 H 8") != std::string::npos);  // the text line too
  }

  TEST_CASE("heed: bad flags and values give one line on stderr and exit status 2") {
    Scratch s("cli");
    const char* bad[] = {
        "train --steps",                 // missing value
        "train --steps -1",              // out of range
        "train --steps ten",             // not a number
        "train --stepz 10",              // unknown flag
        "train --steps 5 --steps 6",     // repeated
        "train --model perceiver",       // unknown choice
        "train --min-len 9 --max-len 3", // inconsistent
        "train --lr -1",                 // negative
        "train --hidden 1000000000",     // absurd size
        "train --model additive --input-feeding",  // input feeding is Luong's
        "eval",                          // --load missing
        "eval --load /nonexistent/x.safetensors",
        "predict --load /nonexistent/x.safetensors \"1 2\"",
        "frobnicate",
    };
    for (const char* args : bad) {
      CliRun r = s.heed(args);
      INFO("heed " << std::string(args) << " -> status " << r.status << ", stderr: " << r.err);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(r.err.rfind("heed", 0) == 0);
    }
  }

  TEST_CASE("heed predict rejects unknown tokens clearly") {
    Scratch s("cli");
    std::string model = s.path("m.safetensors");
    REQUIRE(s.heed("train --model plain --min-len 2 --max-len 3 --embed 4 --hidden 4 --batch 2 --steps 2 --eval-samples 2 "
                   "--save " + model).status == 0);
    CliRun r = s.heed("predict --load " + model + " \"3 1 42\"");
    CHECK(r.status == 2);
    CHECK(r.err.find("unknown token '42'") != std::string::npos);
    CliRun empty = s.heed("predict --load " + model + " \"  \"");
    CHECK(empty.status == 2);
    CHECK(count_lines(empty.err) == 1);
    CliRun help = s.heed("train --help");
    CHECK(help.status == 0);
    CHECK(help.out.find("--model") != std::string::npos);
  }
}
