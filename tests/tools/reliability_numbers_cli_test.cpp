// Numbers on the command line are read one way (docs/cli.md, "Flags and values"): decimal digits
// and nothing else, for --threads and HEED_THREADS as for every other count ("+2" is refused as
// "+3" is for --steps); a number too long for any integer is out of range, not "not a number";
// and a range is printed as the user writes numbers ("[0, 1000]", not "[0.000000, 1000.000000]").
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/support/heed_cli.h"

using namespace heed;

TEST_SUITE("reliability") {
  TEST_CASE("heed: --threads and HEED_THREADS take decimal digits only; ranges print as numbers are written") {
    Scratch s("numbers");
    struct Case {
      std::string args, env, says;
    };
    const std::vector<Case> cases = {
        {"bench --threads +2 --help", "", "--threads '+2': not a number"},
        {"train --threads=+1 --help", "", "--threads '+1': not a number"},
        {"predict --threads ' 2' --help", "", "not a number"},
        {"bench --help", "HEED_THREADS=+3", "HEED_THREADS '+3': not a number"},
        {"train --threads 99999999999999999999 --help", "", "--threads 99999999999999999999: out of range"},
        {"bench --help", "HEED_THREADS=99999999999999999999", "HEED_THREADS 99999999999999999999: out of range"},
        {"train --steps +3", "", "'+3' is not a whole number"},
        {"sample --load x --prompt a --temperature 5000", "", "--temperature: 5000 is out of range [0, 1000]"},
        {"train --lr 20", "", "--lr: 20 is out of range (0, 10]"},
        {"train --dropout 1 --model transformer", "", "--dropout: 1 is out of range [0, 0.99]"},
        {"train --clip 2e6", "", "--clip: 2e6 is out of range [0, 1000000]"},
    };
    for (const Case& c : cases) {
      CliRun r = s.heed(c.args, c.env);
      INFO(c.env << " heed " << c.args << " -> " << r.status << ": " << r.err << r.out);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(r.err.find(c.says) != std::string::npos);
    }
  }
}
