// Reliability of the command line: every bad input a person can give heed -- a flag, a value, a
// file, a token -- ends in exactly one line on stderr that starts with "heed <command>:" and says
// what is wrong, and exit status 2. Runs the real program ($HEED_BUILD/heed, default build/heed)
// from the repository root, like ch06_cli_test.cpp. HEED_SHOW_BAD_INPUTS=1 prints every input
// with its answer.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "io/atomic_file.h"
#include "io/safetensors.h"
#include "tests/support/chapter_check.h"
#include "tests/support/heed_cli.h"

using namespace heed;

namespace {


void spit(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }



// A checkpoint rewritten with one metadata entry changed (or its tensors edited).
void rewrite(const std::string& from, const std::string& to, const std::string& key, const std::string& value) {
  SafetensorsFile f = read_safetensors(from);
  f.metadata[key] = value;
  write_safetensors(to, f.tensors, f.metadata);
}

struct BadInput {
  std::string args;
  std::string says;  // a fragment of the one line on stderr
};

}  // namespace

TEST_SUITE("reliability") {
  TEST_CASE("heed: every bad input gives one line on stderr naming the problem, and exit status 2") {
    Scratch s("bad-input");
    const std::string m = s.path("m.safetensors"), plain = s.path("plain.safetensors");
    const std::string location = s.path("location.safetensors");
    const std::string small = "--min-len 2 --max-len 4 --embed 4 --hidden 6 --batch 4 --steps 2 --eval-samples 4";
    REQUIRE(s.heed("train --model additive " + small + " --save " + m).status == 0);
    REQUIRE(s.heed("train --model plain " + small + " --save " + plain).status == 0);
    REQUIRE(s.heed("train --model location " + small + " --save " + location).status == 0);

    // Files that are not what eval and predict need.
    const std::string bytes = slurp(m);
    spit(s.path("truncated.safetensors"), bytes.substr(0, 100));  // inside the header
    spit(s.path("cut-in-data.safetensors"), bytes.substr(0, bytes.size() - 8));
    spit(s.path("empty.safetensors"), "");
    spit(s.path("text.safetensors"), "this is a text file, not a checkpoint\n");
    rewrite(plain, s.path("other-architecture.safetensors"), "model", "additive");  // plain tensors
    rewrite(m, s.path("old-format.safetensors"), "format", "heed-seq2seq-0");
    rewrite(m, s.path("huge-hidden.safetensors"), "hidden", "100000");
    rewrite(m, s.path("lying-hidden.safetensors"), "hidden", "2000");
    rewrite(m, s.path("other-vocab.safetensors"), "vocab", "5");
    rewrite(m, s.path("bad-number.safetensors"), "min_len", "two");
    rewrite(m, s.path("trailing-letters.safetensors"), "min_len", "12abc");  // the CLI's own rule
    rewrite(m, s.path("trailing-embed.safetensors"), "embed", "4abc");
    rewrite(m, s.path("zero-min-len.safetensors"), "min_len", "0");  // the key is named, not a flag
    rewrite(m, s.path("huge-vocab.safetensors"), "vocab", "99999999");
    write_safetensors(s.path("not-heed.safetensors"), {{"w", Tensor({2}, {1, 2})}}, {{"source", "elsewhere"}});
    {
      SafetensorsFile f = read_safetensors(m);
      f.tensors[2].value[0] = std::numeric_limits<real>::quiet_NaN();
      write_safetensors(s.path("nan.safetensors"), f.tensors, f.metadata);
    }
    std::string long_source;
    for (int i = 0; i < 65; ++i) long_source += "1 ";
    std::string very_long_source;
    for (int i = 0; i < 1001; ++i) very_long_source += "1 ";

    const std::vector<BadInput> table = {
        // Flags and values.
        {"train --steps", "heed train: --steps needs a value"},
        {"train --task=", "heed train: --task needs a value"},
        {"train --steps -1", "--steps: -1 is out of range [0, 100000000]"},
        {"train --steps -5", "--steps: -5 is out of range"},
        {"train --steps ten", "--steps: 'ten' is not a whole number"},
        {"train --steps 1.5", "--steps: '1.5' is not a whole number"},
        {"train --steps 12abc", "heed train: --steps: '12abc' is not a whole number"},
        {"train --steps \" 12\"", "--steps: ' 12' is not a whole number"},
        {"train --steps +12", "--steps: '+12' is not a whole number"},
        {"train --stepz 10", "unknown flag --stepz (see heed train --help)"},
        {"train -s 10", "unknown flag -s"},
        {"train --steps 5 --steps 6", "--steps is given twice"},
        {"train --json --json", "--json is given twice"},
        {"train --json=yes", "--json takes no value"},
        {"train extra", "unexpected argument 'extra'"},
        {"train --model perceiver", "--model: 'perceiver' is not one of plain, additive, general"},
        {"train --task summarise", "--task: 'summarise' is not one of copy, reverse, sort, repeat, translate"},
        {"train --min-len 9 --max-len 3", "--min-len 9 is greater than --max-len 3"},
        {"train --max-len 0", "--max-len: 0 is out of range [1, 1000]"},
        {"train --max-len 5000", "--max-len: 5000 is out of range [1, 1000]"},
        {"train --lr -1", "--lr: -1 is out of range (0"},
        {"train --lr 0", "--lr: 0 is out of range (0"},
        {"train --lr 1e6", "--lr: 1e6 is out of range (0"},
        {"train --lr nan", "--lr: 'nan' is not a finite number"},
        {"train --lr inf", "--lr: 'inf' is not a finite number"},
        {"train --vocab 0", "--vocab: 0 is out of range [1, 10000]"},
        {"train --vocab 100000", "--vocab: 100000 is out of range [1, 10000]"},
        {"train --embed -3", "--embed: -3 is out of range [1, 4096]"},
        {"train --hidden 0", "--hidden: 0 is out of range [1, 4096]"},
        {"train --hidden 1000000000", "--hidden: 1000000000 is out of range [1, 4096]"},
        {"train --hidden 99999999999999999999", "--hidden: 99999999999999999999 is out of range"},
        {"train --batch 1e9", "--batch: '1e9' is not a whole number"},
        {"train --hidden 4096 --embed 4096", "parameters (embed 4096, hidden 4096, vocabularies 13 and 13) exceed the limit"},
        {"train --batch 100000 --max-len 1000", "would need about"},
        {"train --steps 1 --save " + s.path("missing/m.safetensors"), "--save: check_writable: "},
        {"train --steps 1 --save " + s.folder(), "is a folder; give a file name"},
        {"bench --len 0", "heed bench: --len: 0 is out of range"},
        {"bench --batch 100000 --len 1000", "would need about"},
        // heed bench --sweep and --from (tools/bench_sweep.cpp).
        {"bench --sweep width=1,2", "heed bench: --sweep: unknown dimension 'width' (choose len, hidden or batch"},
        {"bench --sweep len", "--sweep len: no values (give them as --sweep len=5,10,20)"},
        {"bench --sweep len=", "--sweep len: no values"},
        {"bench --sweep len=5,,10", "--sweep len: '' is not a whole number"},
        {"bench --sweep len=5,ten", "--sweep len: 'ten' is not a whole number"},
        {"bench --sweep len=2.5", "--sweep len: '2.5' is not a whole number"},
        {"bench --sweep len=0,5", "--sweep len: 0 is out of range [1, 1000]"},
        {"bench --sweep hidden=-8", "--sweep hidden: -8 is out of range [1, 4096]"},
        {"bench --sweep len=5000", "--sweep len: 5000 is out of range [1, 1000]"},
        {"bench --sweep len=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "--sweep len: 17 values; at most 16 a sweep"},
        {"bench --sweep len=10,5", "--sweep len: the values must increase (5 after 10)"},
        {"bench --sweep len=5,5", "the values must increase (5 after 5)"},
        {"bench --sweep len=5 --len 5", "--sweep len and --len both set len; give one"},
        {"bench --sweep batch=1,100000 --len 1000", "--sweep batch=100000 (additive): train: a step of 100000 sequences"},
        {"bench --sweep len=5 --model plain --layers 2", "--sweep len=5 (plain): --layers is for --model transformer or decoder, not plain"},
        {"bench --sweep hidden=8,16 --model transformer", "--sweep hidden: the transformer has no hidden size"},
        {"bench --sweep len=5 --model plain,perceiver", "--model: 'perceiver' is not one of plain, additive"},
        {"bench --sweep len=5 --model plain,plain", "--model: plain is given twice"},
        {"bench --model plain,dot", "--model: several models need --sweep"},
        {"bench --svg " + s.path("a.svg"), "--svg needs --sweep or --from"},
        {"bench --sweep len=5 --watch", "--watch does not combine with --sweep"},
        {"bench --sweep len=5 --svg " + s.folder(), "is a folder; give a file name"},
        {"bench --sweep len=5 --svg " + s.path("missing/a.svg"), "a.svg"},
        {"bench --from " + s.path("absent.json"), "--from " + s.path("absent.json") + ": cannot open"},
        {"bench --from " + s.path("text.safetensors"), "text.safetensors: line 1: json: "},
        {"bench --from " + s.path("empty.safetensors"), "no points in the file"},
        {"bench --from " + s.path("empty.safetensors") + " --sweep len=5", "--from and --sweep: give one"},
        {"frobnicate", "heed: unknown command 'frobnicate'"},
        // Files.
        {"eval", "heed eval: --load FILE is required"},
        {"eval --load", "--load needs a value"},
        {"eval --load " + s.path("absent.safetensors"), "cannot open: No such file or directory"},
        {"eval --load " + s.folder(), "is a folder, not a file"},
        {"eval --load " + s.path("empty.safetensors"), "file is 0 bytes, too short for the 8-byte header size"},
        {"eval --load " + s.path("text.safetensors"), "text.safetensors: not a safetensors file"},
        {"eval --load " + s.path("truncated.safetensors"), "bytes that follow the size field"},
        {"eval --load " + s.path("cut-in-data.safetensors"), "run past the end of the"},
        {"eval --load " + s.path("not-heed.safetensors"), "not a heed model checkpoint (its metadata has no 'format')"},
        {"eval --load " + s.path("old-format.safetensors"), "format 'heed-seq2seq-0' is not heed-seq2seq-2"},
        {"eval --load " + s.path("other-architecture.safetensors"),
         "the file does not match the module; missing from the file: attention."},
        {"eval --load " + s.path("huge-hidden.safetensors"), "hidden is 100000, must be in [1, 4096]"},
        {"eval --load " + s.path("lying-hidden.safetensors"), "parameters, more than its"},
        {"eval --load " + s.path("other-vocab.safetensors"), "do not fit task reverse"},
        {"eval --load " + s.path("bad-number.safetensors"), "metadata 'min_len': 'two' is not a whole number"},
        {"eval --load " + s.path("trailing-letters.safetensors"), "metadata 'min_len': '12abc' is not a whole number"},
        {"eval --load " + s.path("trailing-embed.safetensors"), "model config: 'embed': '4abc' is not a whole number"},
        {"eval --load " + s.path("zero-min-len.safetensors"), "metadata 'min_len': 0 is out of range [1, 1000]"},
        {"eval --load " + s.path("huge-vocab.safetensors"), "metadata 'vocab': 99999999 is out of range [1, 10000]"},
        {"eval --load " + s.path("nan.safetensors"), "holds nan at flat index 0"},
        {"predict --load " + s.path("absent.safetensors") + " \"1 2\"", "cannot open"},
        // Values of eval and predict.
        {"eval --load " + m + " --lengths", "--lengths needs a value"},
        {"eval --load " + m + " --lengths 5,,7", "--lengths: '' is not a whole number"},
        {"eval --load " + m + " --lengths 5,x", "--lengths: 'x' is not a whole number"},
        {"eval --load " + m + " --lengths 0", "--lengths: 0 is out of range [1, 1000]"},
        {"eval --load " + m + " --samples 0", "--samples: 0 is out of range"},
        {"predict --load " + m, "give the source tokens"},
        {"predict --load " + m + " \"3 1 42\"", "unknown token '42' (vocabulary: 0 .. 9)"},
        {"predict --load " + m + " \"3 one 4\"", "unknown token 'one'"},
        {"predict --load " + m + " \"\"", "encode: empty text"},
        {"predict --load " + m + " \"   \"", "encode: empty text"},
        {"predict --load " + m + " \"3 <eos> 4\"", "'<eos>' is a special token"},
        {"predict --load " + m + " \"1 2\" \"3 4\"", "too many arguments; quote the source tokens as one argument"},
        // Location attention has a weight per source position (64 of them); additive reads any length.
        {"predict --load " + location + " \"" + long_source + "\"",
         "the source has 65 tokens; this model reads at most 64 (location attention has a weight per source position)"},
        {"predict --load " + m + " \"" + very_long_source + "\"", "the source has 1001 tokens; predict reads at most 1000"},
        {"predict --load " + plain + " --svg " + s.path("a.svg") + " \"1 2\"", "--svg: the plain model has no attention"},
        {"predict --load " + m + " --svg " + s.path("missing/a.svg") + " \"1 2\"", "a.svg"},
    };
    const bool show = std::getenv("HEED_SHOW_BAD_INPUTS") != nullptr;  // prints the table with the answers
    for (const BadInput& bad : table) {
      CliRun r = s.heed(bad.args);
      if (show) std::printf("heed %s\n  -> %d: %s", bad.args.c_str(), r.status, r.err.c_str());
      INFO("heed " << bad.args << "\n  -> status " << r.status << ", stderr: " << r.err);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(r.err.rfind("heed", 0) == 0);
      CHECK(r.err.find(bad.says) != std::string::npos);
    }
    // --save into a missing folder fails before training starts, not after.
    CliRun r = s.heed("train --steps 100000 --save " + s.path("missing/m.safetensors"));
    CHECK(r.status == 2);
    CHECK(r.out.empty());
  }

  TEST_CASE("heed: a flag whose lower end is allowed takes it, in double and in float (0 is not refused)") {
    // These were once parsed as lo < x with lo = -1e-300, which a float build rounds to -0: 0 > -0
    // is false, and 0 was refused there (tools/args.h, number_from).
    Scratch s("lower-end");
    const std::string tiny = " --min-len 3 --max-len 4 --embed 8 --batch 4 --steps 2 --eval-samples 4";
    for (const std::string& args : {"train --clip 0 --hidden 8" + tiny, "train --label-smoothing 0 --hidden 8" + tiny,
                                    "train --model transformer --layers 1 --heads 1 --dropout 0" + tiny}) {
      CliRun r = s.heed(args);
      INFO("heed " << args << "\n  -> status " << r.status << ", stderr: " << r.err);
      CHECK(r.status == 0);
    }
    const std::string file = s.path("m.safetensors");
    REQUIRE(s.heed("train --model decoder --attention-only --task repeat --layers 1 --heads 1" + tiny + " --save " + file)
                .status == 0);
    CliRun r = s.heed("sample --load " + file + " --prompt \"3\" --temperature 0");
    INFO(r.err);
    CHECK(r.status == 0);
    CliRun negative = s.heed("sample --load " + file + " --prompt \"3\" --temperature -0.5");
    CHECK(negative.status == 2);
    CHECK(negative.err.find("--temperature: -0.5 is out of range [0") != std::string::npos);
  }

  TEST_CASE("heed train: a NaN stops the run at the next step with exit status 2, and nothing is saved") {
    Scratch s("bad-input");
    const std::string model = s.path("m.safetensors");
    CliRun r = s.heed_with_faults("train --embed 4 --hidden 6 --batch 4 --steps 10 --save " + model, "HEED_FAULT_NAN_AFTER_STEP=3");
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("heed train: step 4: the loss is nan (not finite); the largest parameter value is nan, in out.bias; "
                     "lower --lr") != std::string::npos);
    CHECK(r.err.find("step 3/10") != std::string::npos);  // the progress lines before it
    CHECK(!std::filesystem::exists(model));
    CHECK(std::filesystem::is_empty(s.folder()));  // no temporary file either
  }
}
