// The figures' drawing code: viz/diagram (boxes and arrows, and a recorded graph laid out).
#include <doctest/doctest.h>

#include "autograd/functions.h"
#include "tests/support/xml_check.h"
#include "viz/diagram.h"

using namespace heed;

TEST_SUITE("ch02_autograd") {
  TEST_CASE("graph_diagram: one box per node, below every op that uses it, one arrow per input pair") {
    Var x(Tensor::scalar(3), true);
    Var f = x * x + x;  // add(mul(x, x), x)
    Diagram d = graph_diagram(f, {{x.node(), "x"}}, "x*x + x");
    REQUIRE(d.boxes.size() == 3);
    // add at the top, mul under it, x under mul (its lowest user).
    CHECK(d.boxes[0].label == "add\n[]");
    CHECK(d.boxes[0].row == 0);
    CHECK(d.boxes[1].label == "mul\n[]");
    CHECK(d.boxes[1].row == 1);
    CHECK(d.boxes[2].label == "x (leaf)\n[]");
    CHECK(d.boxes[2].row == 2);
    CHECK(d.boxes[2].rounded);
    // mul -> add, x -> add, x -> mul labelled x2 (used twice).
    REQUIRE(d.arrows.size() == 3);
    int twice = 0;
    for (const DiagramArrow& a : d.arrows) twice += a.label == "x2" && a.from == 2 && a.to == 1;
    CHECK(twice == 1);
  }

  TEST_CASE("svg_diagram: well-formed, labels escaped, a bad arrow refused") {
    Diagram d;
    d.title = "a < b & c";
    int a = d.add({"<eos>", 0, 0});
    int b = d.add({"two\nlines", 1, 1});
    d.arrow(a, b, "e_1 = 0.5");
    std::string svg = svg_diagram(d);
    std::string error;
    CHECK_MESSAGE(xml_well_formed(svg, &error), error);
    CHECK(svg.find("&lt;eos&gt;") != std::string::npos);
    CHECK(svg.find("a &lt; b &amp; c") != std::string::npos);
    d.arrow(a, 7);
    CHECK_THROWS_WITH_AS(svg_diagram(d), doctest::Contains("box 7"), Error);
  }
}
