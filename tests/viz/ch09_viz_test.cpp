// Chapter 09: pictures of attention. The terminal heatmap's shading, the SVG heatmap and line
// chart (well-formed per our own XML checker, every token named and escaped), the checker
// itself, and the self-contained HTML explorer.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "tests/support/precision.h"
#include "tests/support/xml_check.h"
#include "viz/heatmap.h"
#include "viz/html.h"
#include "viz/svg.h"

using heed::real;
using Matrix = std::vector<std::vector<real>>;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The display column of byte `at` of a UTF-8 line.
std::size_t column(const std::string& line, std::size_t at) {
  std::size_t col = 0;
  for (std::size_t i = 0; i < at; ++i) col += (static_cast<unsigned char>(line[i]) & 0xC0) != 0x80;
  return col;
}

Matrix identity(std::size_t n) {
  Matrix m(n, std::vector<real>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) m[i][i] = 1.0;
  return m;
}

// Tokens that must be escaped in XML, a non-ASCII one, and one that would end a <script>.
const std::vector<std::string> kAwkwardSource = {"<eos>", "a&b", "\"q\"", "it's", "über"};
const std::vector<std::string> kAwkwardOutput = {"x", "</script>", "y>z"};
const Matrix kAwkwardWeights = {
    {0.1, 0.2, 0.3, 0.15, 0.25}, {0.0, 0.0, 1.0, 0.0, 0.0}, {0.875, 0.125, 0.0, 0.0, 0.0}};

}  // namespace

TEST_SUITE("ch09_attention_matrices") {
  TEST_CASE("terminal heatmap of an identity: full shade on the diagonal, blank elsewhere") {
    std::vector<std::string> tokens = {"a", "b", "c"};
    // Short tokens fit on one header line; each row names its maximum at the end.
    CHECK(heed::terminal_heatmap(tokens, tokens, identity(3), true) ==
          "  a  b  c\n"
          "a ██◂       a 1.00\n"
          "b    ██◂    b 1.00\n"
          "c       ██◂ c 1.00\n"
          "scale: blank <0.05  ░ <0.25  ▒ <0.50  ▓ <0.75  █ up to 1   ◂ row maximum, named on the "
          "right\n");
    CHECK(heed::terminal_heatmap(tokens, tokens, identity(3), false) ==
          "  a  b  c\n"
          "a ##<       a 1.00\n"
          "b    ##<    b 1.00\n"
          "c       ##< c 1.00\n"
          "scale: blank <0.05  . <0.25  : <0.50  + <0.75  # up to 1   < row maximum, named on the "
          "right\n");
  }

  TEST_CASE("terminal heatmap: each weight band gets its own shade, in both modes") {
    std::vector<std::string> source = {"1", "2", "3", "4", "5"};
    Matrix w = {{0.0, 0.1, 0.3, 0.6, 0.9}};
    std::string ascii = heed::terminal_heatmap(source, {"o"}, w, false);
    std::string unicode = heed::terminal_heatmap(source, {"o"}, w, true);
    CHECK(lines_of(ascii).at(1) == "o    .. :: ++ ##< 5 0.90");
    CHECK(lines_of(unicode).at(1) == "o    ░░ ▒▒ ▓▓ ██◂ 5 0.90");
    // The band edges: 0.05, 0.25, 0.5 and 0.75 start the next shade.
    Matrix edges = {{0.0499, 0.05, 0.25, 0.5, 0.75}};
    CHECK(lines_of(heed::terminal_heatmap(source, {"o"}, edges, false)).at(1) ==
          "o    .. :: ++ ##< 5 0.75");
    // ASCII mode writes nothing but ASCII for the drawing.
    for (char c : ascii) CHECK(static_cast<unsigned char>(c) < 0x80);
  }

  TEST_CASE("terminal heatmap: long source tokens on a staircase above their own columns") {
    std::vector<std::string> source = {"ich", "habe", "keinen", "hunger", "gegessen"};
    std::vector<std::string> output = {"i", "am", "hungry", "eaten", "."};
    Matrix w = identity(5);
    for (bool unicode : {true, false}) {
      std::vector<std::string> lines = lines_of(heed::terminal_heatmap(source, output, w, unicode));
      REQUIRE(lines.size() == source.size() + output.size() + 1);
      const char* full = unicode ? "██" : "##";
      for (std::size_t s = 0; s < source.size(); ++s) {
        // Header line s ends with token s, written in full...
        const std::string& head = lines[s];
        REQUIRE(head.size() >= source[s].size());
        CHECK(head.compare(head.size() - source[s].size(), std::string::npos, source[s]) == 0);
        // ...starting at the display column where its cells start.
        const std::string& row = lines[source.size() + s];
        CHECK(column(head, head.size() - source[s].size()) == column(row, row.find(full)));
      }
      // Output labels are right-aligned against the grid.
      CHECK(lines[source.size()].rfind("     i ", 0) == 0);
      CHECK(lines[source.size() + 2].rfind("hungry ", 0) == 0);
    }
  }

  TEST_CASE("terminal heatmap: the row maximum is marked and named with its weight") {
    std::vector<std::string> source = {"ein", "brot", "gegessen", "habe"};
    Matrix w = {{0.05, 0.05, 0.6, 0.3}};
    std::string line = lines_of(heed::terminal_heatmap(source, {"ate"}, w, true)).back();
    std::string row = lines_of(heed::terminal_heatmap(source, {"ate"}, w, true)).at(4);
    CHECK(row == "ate ░░ ░░ ▓▓◂▒▒  gegessen 0.60");
    // An exact tie names no token: a uniform row is what an untrained model shows.
    Matrix uniform = {{0.25, 0.25, 0.25, 0.25}};
    CHECK(lines_of(heed::terminal_heatmap(source, {"ate"}, uniform, false)).at(4) ==
          "ate :: :: :: ::  tie at 0.25");
    CHECK(line.rfind("scale:", 0) == 0);
  }

  TEST_CASE("every picture validates its sizes and values, naming itself and the sizes") {
    std::vector<std::string> src = {"a", "b"}, out = {"x", "y", "z"};
    Matrix two_rows = {{0.5, 0.5}, {0.5, 0.5}};
    Matrix short_row = {{0.5, 0.5}, {1.0}, {0.5, 0.5}};
    CHECK_THROWS_WITH_AS(
        heed::terminal_heatmap(src, out, two_rows, true),
        doctest::Contains("terminal_heatmap: 2 rows of weights for 3 output tokens"), heed::Error);
    CHECK_THROWS_WITH_AS(
        heed::terminal_heatmap(src, out, short_row, false),
        doctest::Contains("terminal_heatmap: row 1 of weights has 1 values for 2 source tokens"),
        heed::Error);
    CHECK_THROWS_WITH_AS(heed::svg_heatmap(src, out, two_rows, "t"),
                         doctest::Contains("svg_heatmap: 2 rows of weights for 3 output tokens"),
                         heed::Error);
    CHECK_THROWS_WITH_AS(heed::html_explorer(src, out, short_row, "t"),
                         doctest::Contains("html_explorer: row 1 of weights has 1 values"),
                         heed::Error);
    Matrix logits = {{0.5, 0.5}, {2.5, -1.5}, {0.5, 0.5}};
    CHECK_THROWS_WITH_AS(
        heed::terminal_heatmap(src, out, logits, true),
        doctest::Contains("terminal_heatmap: weights[1][0] = 2.5 is not in [0, 1]"), heed::Error);
    Matrix nan = {{0.5, 0.5}, {0.5, 0.5}, {0.5, std::nan("")}};
    CHECK_THROWS_WITH_AS(heed::svg_heatmap(src, out, nan, "t"),
                         doctest::Contains("svg_heatmap: weights[2][1] = nan is not in [0, 1]"),
                         heed::Error);
  }

  TEST_CASE("xml_well_formed accepts good documents") {
    const char* good[] = {
        "<a/>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- c --><svg "
        "xmlns=\"http://www.w3.org/2000/svg\">"
        "<g id='x' class=\"y\"><text x=\"1\">&lt;eos&gt; &amp; &quot;&apos; &#8594; &#x2192; "
        "über</text>"
        "</g><![CDATA[ <raw> & ]]><?pi data?></svg>\n<!-- after -->\n",
        "  <root  a = \"1\"\n b='2' ><child/></root>  ",
    };
    for (const char* doc : good) {
      std::string error = "unchanged";
      INFO(std::string(doc));
      CHECK(heed::xml_well_formed(doc, &error));
      CHECK(error.empty());
    }
  }

  TEST_CASE("xml_well_formed rejects malformed documents with the byte offset of the fault") {
    struct Bad {
      const char* doc;
      const char* message;
    };
    const Bad bad[] = {
        {"<a><b></b>", "byte 10: end of document inside <a> opened at byte 0"},
        {"<a><b></a></b>", "byte 6: end tag </a> does not match <b> opened at byte 3"},
        {"<a x=1/>", "byte 5: value of attribute x is not quoted"},
        {"<a x></a>", "byte 4: attribute x in <a> has no '=value'"},
        {"<a x=\"1\"y=\"2\"/>", "byte 8: expected whitespace before an attribute"},
        {"<a x=\"1\" x=\"2\"/>", "byte 9: duplicate attribute x in <a>"},
        {"<a x=\"<\"/>", "byte 6: '<' inside the value of attribute x"},
        {"<a/><b/>", "byte 4: a second root element"},
        {"<a>&foo;</a>", "byte 3: unknown entity &foo;"},
        {"<a>fish & chips</a>", "byte 8: '&' does not start an entity reference"},
        {"<a>&#0;</a>", "byte 3: &#0; is not a character XML allows"},
        {"<a>&#xZZ;</a>", "byte 3: malformed character reference"},
        {"", "byte 0: no root element"},
        {"hello <a/>", "byte 0: text before the root element"},
        {"<a/> tail", "byte 5: text after the root element"},
        {"<a><!-- x -- y --></a>", "byte 10: '--' inside a comment"},
        {"<a/><?xml version=\"1.0\"?>",
         "byte 4: the XML declaration is only allowed at the very start"},
        {"<a>]]></a>", "byte 3: ']]>' is not allowed in text"},
        {"<a>< b</a>", "byte 4: '<' not followed by a tag name"},
        {"<a>\x01</a>", "byte 3: character U+0001 is not allowed"},
        {"<a>\xC3</a>", "byte 3: invalid UTF-8"},
        {"</a>", "byte 0: expected the root element's start tag"},
    };
    for (const Bad& b : bad) {
      std::string error;
      INFO(std::string(b.doc));
      CHECK_FALSE(heed::xml_well_formed(b.doc, &error));
      INFO(error);
      CHECK(error.find(b.message) == 0);
    }
    CHECK_FALSE(heed::xml_well_formed("<a>", nullptr));  // the error pointer is optional
  }

  TEST_CASE("svg_heatmap: well-formed, a cell with a hover title per weight, tokens escaped") {
    std::string svg =
        heed::svg_heatmap(kAwkwardSource, kAwkwardOutput, kAwkwardWeights, "attention & <friends>");
    std::string error;
    INFO(error);
    CHECK(heed::xml_well_formed(svg, &error));
    CHECK(svg.find("xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
    CHECK(svg.find("viewBox=\"0 0 ") != std::string::npos);
    CHECK(count(svg, "<rect class=\"cell\"") == 15);
    for (const char* escaped : {"&lt;eos&gt;", "a&amp;b", "&quot;q&quot;", "it&apos;s", "über",
                                "&lt;/script&gt;", "y&gt;z", "attention &amp; &lt;friends&gt;"}) {
      CHECK_MESSAGE(svg.find(escaped) != std::string::npos, std::string(escaped));
    }
    CHECK(svg.find("<eos>") == std::string::npos);
    CHECK(svg.find("<title>&lt;/script&gt; → &quot;q&quot;: 1.000</title>") != std::string::npos);
    CHECK(svg.find("<title>y&gt;z → &lt;eos&gt;: 0.875</title>") != std::string::npos);
    // The colour scale: a legend bar from 0 to 1, and the cells use the same colours.
    CHECK(svg.find("url(#heed-scale)") != std::string::npos);
    CHECK(svg.find("<stop offset=\"0.125\" stop-color=\"" + heed::weight_colour(0.125) + "\"/>") !=
          std::string::npos);
    CHECK(svg.find("fill=\"" + heed::weight_colour(1.0) + "\"><title>&lt;/script&gt;") !=
          std::string::npos);
    CHECK(heed::weight_colour(0.0) == "#f7fbff");
    CHECK(heed::weight_colour(1.0) == "#08306b");
    CHECK(heed::weight_colour(0.5) == "#6baed6");
  }

  TEST_CASE("svg_line_chart: well-formed, every series named, non-finite values skipped") {
    const real inf = std::numeric_limits<real>::infinity();
    std::vector<heed::Series> series = {
        {"plain <GRU>", {5, 10, 15, 20}, {0.95, 0.6, 0.2, 0.0}},
        {"additive & co", {5, 10, 15, 20}, {1.0, std::nan(""), 0.99, inf}},
    };
    std::string svg = heed::svg_line_chart(series, "exact accuracy by length", "length", "exact");
    std::string error;
    INFO(error);
    CHECK(heed::xml_well_formed(svg, &error));
    CHECK(svg.find("viewBox=\"0 0 ") != std::string::npos);
    CHECK(svg.find("plain &lt;GRU&gt;") != std::string::npos);
    CHECK(svg.find("additive &amp; co") != std::string::npos);
    CHECK(svg.find(">length<") != std::string::npos);
    CHECK(svg.find(">exact<") != std::string::npos);
    // The NaN breaks the second line and the infinity is dropped: three runs of points in all,
    // and no marker for either bad value.
    CHECK(count(svg, "<polyline") == 3);
    CHECK(count(svg, "<title>additive &amp; co: (") == 2);
    CHECK(count(svg, "<title>plain &lt;GRU&gt;: (") == 4);
    for (const char* bad : {"nan", "inf", "NaN", "Inf"}) CHECK(svg.find(bad) == std::string::npos);
    // Nice ticks: 5 to 20 by 5 across, 0.0 to 1.0 by 0.2 up.
    for (const char* tick : {">5<", ">10<", ">20<", ">0.0<", ">0.2<", ">1.0<"})
      CHECK_MESSAGE(svg.find(tick) != std::string::npos, std::string(tick));
    // Distinct colours per series.
    CHECK(svg.find("stroke=\"#0072b2\"") != std::string::npos);
    CHECK(svg.find("stroke=\"#d55e00\"") != std::string::npos);

    CHECK(
        heed::xml_well_formed(heed::svg_line_chart({{"empty", {1}, {std::nan("")}}}, "", "", "")));
    CHECK(heed::xml_well_formed(heed::svg_line_chart({}, "nothing", "x", "y")));
    CHECK_THROWS_WITH_AS(
        heed::svg_line_chart({{"loss", {1, 2}, {1}}}, "t", "x", "y"),
        doctest::Contains("svg_line_chart: series 'loss' has 2 x values and 1 y values"),
        heed::Error);
  }

  TEST_CASE("svg_line_chart: an x marker is a dashed line the x axis reaches, labelled; a bad one is refused") {
    const std::vector<heed::Series> series = {{"additive", {5, 10, 15, 20}, {1.0, 0.9, 0.5, 0.1}}};
    const std::string without = heed::svg_line_chart(series, "t", "length", "exact");
    // The training boundary beyond the data: the axis grows to hold it (ticks up to 30).
    const std::string svg = heed::svg_line_chart(series, "t", "length", "exact", {{30, "trained up to 30 <"}});
    std::string error;
    INFO(error);
    CHECK(heed::xml_well_formed(svg, &error));
    CHECK(count(svg, "class=\"x-marker\"") == 1);
    CHECK(svg.find(">trained up to 30 &lt;</text>") != std::string::npos);
    CHECK(svg.find(">30<") != std::string::npos);
    CHECK(without.find(">30<") == std::string::npos);
    CHECK(without.find("x-marker") == std::string::npos);
    // The line is vertical, at the x of the axis' tick 30: the tick's x1 and the marker's agree.
    const size_t tick = svg.find(">30</text>");
    REQUIRE(tick != std::string::npos);
    const size_t tick_line = svg.rfind("<line x1=\"", tick);
    const std::string tick_x = svg.substr(tick_line + 10, svg.find('"', tick_line + 10) - tick_line - 10);
    const size_t m = svg.find("<g class=\"x-marker\"><line x1=\"");
    REQUIRE(m != std::string::npos);
    const size_t mx = m + std::string("<g class=\"x-marker\"><line x1=\"").size();
    const std::string marker_x = svg.substr(mx, svg.find('"', mx) - mx);
    CHECK(marker_x == tick_x);
    CHECK(svg.find("x2=\"" + marker_x + "\"", mx) != std::string::npos);
    // A marker inside the data leaves the axes as they were.
    const std::string inside = heed::svg_line_chart(series, "t", "length", "exact", {{12, "here"}});
    CHECK(inside.find(">20<") != std::string::npos);
    CHECK(inside.find(">30<") == std::string::npos);
    CHECK_THROWS_WITH_AS(heed::svg_line_chart(series, "t", "x", "y", {{std::nan(""), "nowhere"}}),
                         doctest::Contains("svg_line_chart: the marker 'nowhere' is at x = nan"), heed::Error);
    CHECK_THROWS_AS(heed::svg_line_chart(series, "t", "x", "y", {{1e13, "far"}}), heed::Error);
  }

  TEST_CASE("html_explorer: self-contained, every token shown, weights at full precision") {
    std::string html = heed::html_explorer(kAwkwardSource, kAwkwardOutput, kAwkwardWeights, "demo");
    CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
    for (const char* escaped : {"&lt;eos&gt;", "a&amp;b", "&quot;q&quot;", "it&apos;s", "über",
                                "&lt;/script&gt;", "y&gt;z"}) {
      CHECK_MESSAGE(html.find(">" + std::string(escaped) + "</span>") != std::string::npos,
                    std::string(escaped));
    }
    // The weights as JSON at %.17g, and tokens inside the script cannot close it.
    // (The float build holds floats: their exact values, made with Python's struct from 0.1, ...)
    CHECK(html.find(heed::test::kFloatBuild
                        ? "[0.10000000149011612,0.20000000298023224,0.30000001192092896,0.15000000596046448,0.25]"
                        : "[0.10000000000000001,0.20000000000000001,0.29999999999999999,0.14999999999999999,"
                          "0.25]") != std::string::npos);
    CHECK(html.find("[0.875,0.125,0,0,0]") != std::string::npos);
    CHECK(html.find("\"\\u003ceos\\u003e\"") != std::string::npos);
    CHECK(count(html, "</script>") == 1);
    // One interactive cell per weight, one focusable output token per output (chip and label).
    CHECK(count(html, "<rect class=\"cell\"") == 15);
    CHECK(count(html, "tabindex=\"0\"") == 2 * kAwkwardOutput.size());
    // No network: nothing loaded from elsewhere; the only URL is the SVG namespace name.
    for (const char* external : {"https:", "<link", " src=", "@import", "@font-face"})
      CHECK_MESSAGE(html.find(external) == std::string::npos, std::string(external));
    CHECK(count(html, "http:") == 1);
    // The inline SVG is well-formed XML on its own.
    std::size_t begin = html.find("<svg"), end = html.find("</svg>");
    REQUIRE(end != std::string::npos);
    CHECK(heed::xml_well_formed(html.substr(begin, end + 6 - begin)));
  }

  TEST_CASE("the charts' decades come from comparisons, exact at the powers of ten (no C library log10)") {
    using heed::decade_of;
    using heed::power_of_ten;
    CHECK(power_of_ten(0) == 1);
    CHECK(power_of_ten(3) == 1000);
    CHECK(power_of_ten(-2) == heed::real(0.01));  // one rounding, as the literal
    for (int d = -12; d <= 12; ++d) {
      CAPTURE(d);
      const heed::real p = power_of_ten(d);
      CHECK(decade_of(p) == d);                                   // log10 of 1000 is 3, not 2.9999...
      CHECK(decade_of(p * heed::real(0.999)) == d - 1);
      CHECK(decade_of(p * heed::real(9.99)) == d);
    }
    CHECK(decade_of(0) == 0);  // not a positive finite number: 0, and no endless loop
    CHECK(decade_of(-5) == 0);
    CHECK(decade_of(std::numeric_limits<heed::real>::infinity()) == 0);
    CHECK(decade_of(std::numeric_limits<heed::real>::quiet_NaN()) == 0);
    CHECK(decade_of(std::numeric_limits<heed::real>::denorm_min()) < (heed::test::kFloatBuild ? -40 : -300));
  }
}
