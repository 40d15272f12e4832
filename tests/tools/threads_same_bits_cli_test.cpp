// Identical bits for every thread count, through the command line as a user runs it: the same
// training with --threads 1, 2, 3 and 8 (more threads than this machine may have cores) writes
// byte-identical checkpoints and prints the same losses, accuracies and evaluation; eval and
// predict (beam search) on it print the same numbers. The sizes are chosen so that the threaded
// paths run: H 256 makes the recurrent product (48 x 768 x 256) and the input projections cut
// into tiles, batch 48 the GRU's and the LSTM's step rows, and the additive score's rows, into
// pieces (tensor/gemm.cpp, nn/rnn_cell.cpp, nn/attention.cpp). And --threads and HEED_THREADS are
// reported (heed --version, bench, every --json line) and checked. make tsan runs this suite
// under ThreadSanitizer.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "tests/support/heed_cli.h"

using namespace heed;

namespace {

// The lines of a training's stdout that hold results, without the times: "step 3/4  loss 2.30
// acc 0.241  lr 0.00225" (the rate and time left cut off), and the held-out line.
std::string results(const std::string& out) {
  std::istringstream in(out);
  std::string kept;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("step ", 0) == 0) kept += line.substr(0, line.find("steps/s") == std::string::npos
                                                               ? line.size()
                                                               : line.rfind("  ", line.find("steps/s"))) + "\n";
    if (line.rfind("held-out:", 0) == 0) kept += line + "\n";
  }
  return kept;
}

}  // namespace

TEST_SUITE("threads_same_bits") {
  TEST_CASE("threads: training, eval and beam search give the same bits with 1, 2, 3 and 8 threads") {
    Scratch s("threads-same-bits");
    const std::string train = "train --task reverse --model additive --embed 32 --hidden 256 --batch 48 "
                              "--min-len 3 --max-len 6 --steps 4 --eval-samples 48 --seed 5 --json";
    std::string bytes, printed, evaluated, predicted;
    for (int t : {1, 2, 3, 8}) {
      CAPTURE(t);
      const std::string n = std::to_string(t), model = s.path("m" + n + ".safetensors");
      CliRun r = s.heed(train + " --threads " + n + " --save " + model);
      REQUIRE(r.status == 0);
      REQUIRE(r.json().find("threads") != nullptr);
      CHECK(r.json().find("threads")->as_int() == t);
      CHECK(results(r.err + r.out).find("step 4/4") != std::string::npos);
      CliRun e = s.heed("eval --load " + model + " --lengths 3,6,9 --samples 30 --threads " + n);
      CliRun p = s.heed("predict --load " + model + " --beam 3 --json --threads " + n + " \"1 2 3 4 5\"");
      REQUIRE(e.status == 0);
      REQUIRE(p.status == 0);
      CHECK(p.json().find("threads")->as_int() == t);
      Json pj = p.json();
      pj.set("threads", 0);  // the one field that may differ
      if (t == 1) {
        bytes = slurp(model);
        printed = results(r.err + r.out);
        evaluated = e.out;
        predicted = pj.dump();
        REQUIRE(!bytes.empty());
        continue;
      }
      CHECK(slurp(model) == bytes);  // the checkpoint, byte for byte
      CHECK(results(r.err + r.out) == printed);
      CHECK(e.out == evaluated);
      CHECK(pj.dump() == predicted);  // the output, its attention and its score, to the last digit
    }
  }

  TEST_CASE("threads: an LSTM with general attention trains to the same bytes with 1, 3 and 8 threads") {
    Scratch s("threads-same-bits-lstm");
    const std::string train = "train --task reverse --model general --cell lstm --embed 32 --hidden 256 --batch 48 "
                              "--min-len 3 --max-len 6 --steps 3 --eval-samples 48 --seed 6";
    std::string bytes, printed;
    for (int t : {1, 3, 8}) {
      CAPTURE(t);
      const std::string model = s.path("m" + std::to_string(t) + ".safetensors");
      CliRun r = s.heed(train + " --threads " + std::to_string(t) + " --save " + model);
      REQUIRE(r.status == 0);
      if (t == 1) {
        bytes = slurp(model);
        printed = results(r.err + r.out);
        REQUIRE(!bytes.empty());
        continue;
      }
      CHECK(slurp(model) == bytes);
      CHECK(results(r.err + r.out) == printed);
    }
  }

  TEST_CASE("heed --threads and HEED_THREADS: reported by --version and bench, refused when not a count") {
    Scratch s("threads-cli");
    CliRun v = s.heed("--version", "HEED_THREADS=3");
    CHECK(v.status == 0);
    CHECK(v.out.find("kernels, 3 threads)") != std::string::npos);
    CHECK(s.heed("--version", "HEED_THREADS=1").out.find(", 1 thread)") != std::string::npos);
    CliRun b = s.heed("bench --model plain --embed 4 --hidden 4 --batch 2 --len 3 --steps 2 --warmup 0 --json --threads 2",
                      "HEED_THREADS=5");  // the flag wins
    CHECK(b.status == 0);
    CHECK(b.out.find("kernels, 2 threads") != std::string::npos);
    CHECK(b.json().find("threads")->as_int() == 2);
    for (const char* bad : {"--threads 0", "--threads -3", "--threads 257", "--threads two", "--threads=1.5",
                            "--threads 2 --threads 2", "--threads"}) {
      CAPTURE(bad);
      CliRun r = s.heed(std::string("bench --steps 1 ") + bad);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(r.err.rfind("heed bench: --threads", 0) == 0);
    }
    CliRun env = s.heed("train --steps 1", "HEED_THREADS=lots");
    CHECK(env.status == 2);
    CHECK(env.err == "heed train: HEED_THREADS 'lots': not a number; it must be a whole number from 1 to 256\n");
    CliRun version = s.heed("--version", "HEED_THREADS=0");
    CHECK(version.status == 2);
    CHECK(version.err == "heed: HEED_THREADS 0: out of range; it must be a whole number from 1 to 256\n");
  }
}
