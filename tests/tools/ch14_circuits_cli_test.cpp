// heed eval --heads's circuit scores (tools/circuits_report.h): the table, the JSON fields, the
// composition rows with the random baseline, --scores-svg, and its refusals.
#include <doctest/doctest.h>

#include "tests/support/heed_cli.h"
#include "tests/support/xml_check.h"

using namespace heed;

TEST_SUITE("ch14_circuits_cli") {
  TEST_CASE("heed eval --heads: circuit scores per head, composition per pair with the baseline, --scores-svg") {
    Scratch s("circuits-cli");
    const std::string file = s.path("d.safetensors"), svg = s.path("scores.svg");
    CliRun t = s.heed("train --model decoder --task repeat --vocab 6 --min-len 3 --max-len 5 --embed 8 --heads 2 "
                      "--attention-only --layers 2 --steps 5 --batch 4 --eval-samples 5 --save " + file);
    REQUIRE_MESSAGE(t.status == 0, t.err);
    CliRun e = s.heed("eval --load " + file + " --samples 10 --heads --json --scores-svg " + svg);
    REQUIRE_MESSAGE(e.status == 0, e.err);
    CHECK(e.out.find("layer  head  prefix matching  copying  direct logit  induction head\n") != std::string::npos);
    CHECK(e.out.find("layer1  head1  layer2  head2      Q      K      V\n") != std::string::npos);
    CHECK(e.out.find("random heads of the same shapes (d_head 4, D 8; mean of 100 pairs, seed 42): Q ") !=
          std::string::npos);
    const Json j = e.json();
    const Json::Array& heads = j.find("heads")->as_array();
    REQUIRE(heads.size() == 4);
    for (const Json& h : heads) {
      CHECK(h.find("prefix_matching")->as_real() == h.find("induction")->as_real());  // the same score, its paper's name
      const real c = h.find("copying")->as_real();
      CHECK(c >= -1);
      CHECK(c <= 1);
      CHECK(h.find("direct_logit")->is_number());
      CHECK(h.find("induction_head")->as_bool() == (h.find("prefix_matching")->as_real() >= 0.5 && c > 0));
    }
    const Json::Array& comp = j.find("composition")->as_array();
    REQUIRE(comp.size() == 4);  // heads 0, 1 of layer 0 into heads 0, 1 of layer 1
    CHECK(comp[1].find("head2")->as_int() == 1);
    const Json* base = j.find("composition_baseline");
    REQUIRE(base);
    CHECK(base->find("samples")->as_int() == 100);
    const std::string picture = slurp(svg);
    std::string error;
    CHECK_MESSAGE(xml_well_formed(picture, &error), error);
    for (const char* title : {">prefix matching<", ">copying<", ">direct logit attribution<", ">K-composition, layer 0 into 1<"})
      CHECK_MESSAGE(picture.find(title) != std::string::npos, title);

    CliRun alone = s.heed("eval --load " + file + " --scores-svg " + s.path("x.svg"));
    CHECK(alone.status == 2);
    CHECK(count_lines(alone.err) == 1);
    CHECK(alone.err.find("--scores-svg draws the heads' scores: give --heads too") != std::string::npos);
    CliRun onto = s.heed("eval --load " + file + " --heads --scores-svg " + file);  // never over the model
    CHECK(onto.status == 2);
    CHECK(count_lines(onto.err) == 1);
  }
}
