// The report of a sweep (viz/sweep_report.h): the points read from --json lines, the tables,
// and the chart's geometry -- every line runs left to right, the ticks cover the data, every
// point lies inside the plot, the document is well-formed. Made-up times: nothing is timed here.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/heed_cli.h"
#include "tests/support/xml_check.h"
#include "viz/sweep_report.h"

using namespace heed;

namespace {

SweepPoint point(const std::string& program, const std::string& model, const std::string& dtype, int64_t len, real ms) {
  SweepPoint p;
  p.program = program;
  p.model = model;
  p.dtype = dtype;
  p.embed = 32;
  p.hidden = 64;
  p.batch = 32;
  p.len = len;
  p.ms = ms;
  p.ms_p10 = ms * 0.9;
  p.ms_p90 = ms * 1.2;
  p.tokens_per_second = 32 * (len + 1) / (ms / 1000);
  p.gflops = 1.5;
  p.step_mb = 2.25;
  return p;
}

// Points of two models from two programs, deliberately out of order.
std::vector<SweepPoint> scrambled() {
  return {point("heed", "additive", "float64", 40, 66.3),   point("heed", "additive", "float64", 5, 7.1),
          point("pytorch", "additive", "float32", 20, 30.5), point("heed", "plain", "float64", 20, 21.3),
          point("heed", "additive", "float64", 20, 35.6),  point("pytorch", "additive", "float32", 5, 9.0),
          point("heed", "plain", "float64", 5, 8.9),       point("pytorch", "additive", "float32", 40, 71.0),
          point("heed", "plain", "float64", 40, 32.4)};
}

std::vector<real> numbers(const std::string& text, const std::regex& re) {
  std::vector<real> out;
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) out.push_back(std::stod((*it)[1]));
  return out;
}

}  // namespace

TEST_SUITE("bench_sweep") {
  TEST_CASE("svg_sweep_chart: lines left to right, ticks covering the data, points inside the plot, well-formed") {
    const std::vector<SweepPoint> points = scrambled();
    const std::string svg = svg_sweep_chart(points, "len");
    std::string error;
    CHECK_MESSAGE(xml_well_formed(svg, &error), error);
    // One line and one legend entry per model and source, named by both.
    const std::regex polyline("<polyline points=\"([^\"]*)\"");
    std::vector<std::vector<std::pair<real, real>>> lines;
    for (std::sregex_iterator it(svg.begin(), svg.end(), polyline), end; it != end; ++it) {
      std::vector<std::pair<real, real>> line;
      const std::string pts = (*it)[1];
      const std::regex pair_re("([0-9.]+),([0-9.]+)");
      for (std::sregex_iterator p(pts.begin(), pts.end(), pair_re), e; p != e; ++p)
        line.push_back({std::stod((*p)[1]), std::stod((*p)[2])});
      lines.push_back(line);
    }
    REQUIRE(lines.size() == 3);
    for (const auto& line : lines) {
      CHECK(line.size() == 3);
      for (size_t i = 1; i < line.size(); ++i) CHECK(line[i].first > line[i - 1].first);  // monotone in x
    }
    for (const char* name : {">additive (heed float64)<", ">plain (heed float64)<", ">additive (PyTorch float32)<"})
      CHECK_MESSAGE(svg.find(name) != std::string::npos, name);
    // The axes' captions, with units, and the fixed sizes in the title.
    CHECK(svg.find(">source length L (tokens; the target is L + 1)<") != std::string::npos);
    CHECK(svg.find(">ms per training step (median)<") != std::string::npos);
    CHECK(svg.find("(E 32, H 64, B 32, one thread)") != std::string::npos);
    // The ticks cover the data: x from at most 5 to at least 40, y from at most 7.1 to at least 71.
    const std::vector<real> x_ticks = numbers(svg, std::regex("text-anchor=\"middle\" stroke=\"none\">([-0-9.]+)<"));
    const std::vector<real> y_ticks = numbers(svg, std::regex("text-anchor=\"end\" stroke=\"none\">([-0-9.]+)<"));
    REQUIRE(x_ticks.size() >= 2);
    REQUIRE(y_ticks.size() >= 2);
    CHECK(*std::min_element(x_ticks.begin(), x_ticks.end()) <= 5);
    CHECK(*std::max_element(x_ticks.begin(), x_ticks.end()) >= 40);
    CHECK(*std::min_element(y_ticks.begin(), y_ticks.end()) <= 7.1);
    CHECK(*std::max_element(y_ticks.begin(), y_ticks.end()) >= 71.0);
    // Every point lies inside the axes' box (the path "M left,top V bottom H right").
    std::smatch box;
    REQUIRE(std::regex_search(svg, box, std::regex("<path d=\"M([0-9.]+),([0-9.]+) V([0-9.]+) H([0-9.]+)\"")));
    const real left = std::stod(box[1]), top = std::stod(box[2]), bottom = std::stod(box[3]), right = std::stod(box[4]);
    for (const auto& line : lines)
      for (const auto& [x, y] : line) {
        CHECK(x >= left - 0.05);
        CHECK(x <= right + 0.05);
        CHECK(y >= top - 0.05);
        CHECK(y <= bottom + 0.05);
      }
    // A colour per model: heed's and PyTorch's additive lines share one, plain has another;
    // the sources differ by dash.
    const std::regex stroke("<polyline points=\"[^\"]*\" fill=\"none\" stroke=\"(#[0-9a-f]{6})\"");
    std::vector<std::string> colours;
    for (std::sregex_iterator it(svg.begin(), svg.end(), stroke), end; it != end; ++it) colours.push_back((*it)[1]);
    REQUIRE(colours.size() == 3);  // additive heed, additive PyTorch, plain heed (models in order of appearance)
    CHECK(colours[0] == colours[1]);
    CHECK(colours[0] != colours[2]);
  }

  TEST_CASE("sweep_table: a row per point, every row as wide as the header; the comparison divides like for like") {
    const std::vector<SweepPoint> points = scrambled();
    const std::string t = sweep_table(points, "len");
    CHECK(count_lines(t) == 2 + static_cast<int>(points.size()));
    CHECK(t.rfind("| program | model | dtype | L | ms/step | p10-p90 ms | tokens/s | GFLOP/s | step MB |\n", 0) == 0);
    const size_t bars = std::count(t.begin(), t.begin() + static_cast<long>(t.find('\n')), '|');
    for (size_t start = 0; start < t.size();) {
      size_t end = t.find('\n', start);
      CHECK(static_cast<size_t>(std::count(t.begin() + static_cast<long>(start), t.begin() + static_cast<long>(end), '|')) == bars);
      start = end + 1;
    }
    CHECK(t.find("| heed | additive | float64 | 40 | 66.30 | 59.67-79.56 | 19789 | 1.50 | 2.2 |") != std::string::npos);
    // One program: no program column.
    CHECK(sweep_table({point("heed", "dot", "float32", 7, 1)}, "len").rfind("| model | dtype | L |", 0) == 0);

    // The comparison: a row per model and value, sorted by value; a heed column, a PyTorch column,
    // no ratio (different dtypes) until PyTorch float64 is there too.
    std::vector<SweepPoint> both = points;
    both.push_back(point("pytorch", "additive", "float64", 20, 71.2));
    const std::string c = sweep_comparison_table(both, "len");
    CHECK(c.rfind("| model | L | heed float64 ms | PyTorch float64 ms | PyTorch float32 ms | heed float64 / PyTorch "
                  "float64 |\n",
                  0) == 0);
    CHECK(c.find("| additive | 5 | 7.10 | - | 9.00 | - |\n| additive | 20 | 35.60 | 71.20 | 30.50 | 0.50 |\n"
                 "| additive | 40 | 66.30 | - | 71.00 | - |\n| plain | 5 |") != std::string::npos);
  }

  TEST_CASE("read_sweep_points and swept_dimension: arrays and objects by line, errors naming line and field") {
    const std::string heed_obj =
        R"({"program":"heed","model":"dot","dtype":"float64","embed":8,"hidden":8,"batch":4,"len":3,"ms_per_step":1.5,)"
        R"("ms_p10":1,"ms_p90":2,"tokens_per_second":100,"gflops_per_second":0.5,"step_peak_mb":0.25})";
    std::string torch_obj = heed_obj;
    torch_obj.replace(torch_obj.find("heed"), 4, "pytorch");
    torch_obj.replace(torch_obj.find("\"len\":3"), 7, "\"len\":6");
    const std::vector<SweepPoint> p = read_sweep_points("[" + heed_obj + "]\n\n" + torch_obj + "\n");
    REQUIRE(p.size() == 2);
    CHECK(sweep_source(p[0]) == "heed float64");
    CHECK(sweep_source(p[1]) == "PyTorch float64");
    CHECK(p[1].len == 6);
    CHECK(p[0].ms == 1.5);
    CHECK(swept_dimension(p) == "len");
    CHECK_THROWS_WITH_AS(swept_dimension({p[0], p[0]}), doctest::Contains("do not differ in len, hidden or batch"), Error);
    SweepPoint wide = p[1];
    wide.hidden = 16;
    CHECK_THROWS_WITH_AS(swept_dimension({p[0], wide}), doctest::Contains("more than one of len, hidden, batch and embed (len, hidden)"),
                         Error);
    SweepPoint wider = wide;
    wider.embed = 16;
    CHECK_THROWS_WITH_AS(swept_dimension({p[0], wider, wider}),
                         doctest::Contains("(len, hidden, embed)"), Error);  // each named once
    CHECK_THROWS_WITH_AS(swept_dimension({}), doctest::Contains("sweep: no points"), Error);
    CHECK_THROWS_WITH_AS(read_sweep_points(heed_obj + "\nnot json\n"), doctest::Contains("line 2: json: "), Error);
    std::string no_ms = heed_obj;
    no_ms.replace(no_ms.find("\"ms_per_step\""), 13, "\"ms\"");
    CHECK_THROWS_WITH_AS(read_sweep_points(no_ms), doctest::Contains("line 1: sweep point: no 'ms_per_step'"), Error);
    CHECK_THROWS_WITH_AS(read_sweep_points("[1]"), doctest::Contains("expected a JSON object"), Error);
  }
}

TEST_SUITE("bench_sweep") {
  TEST_CASE("svg_sweep_chart's title gives the sizes of the models drawn: no H for the transformer") {
    std::vector<SweepPoint> points = {point("heed", "transformer", "float64", 5, 3.0),
                                      point("heed", "transformer", "float64", 10, 5.0)};
    for (SweepPoint& p : points) {
      p.layers = 2;
      p.heads = 4;
    }
    const std::string alone = svg_sweep_chart(points, "len");
    CHECK(alone.find("(D 32, 2 layers, 4 heads, B 32, one thread)") != std::string::npos);
    CHECK(alone.find("H 64") == std::string::npos);
    // Beside a recurrent model, each kind's sizes, named.
    points.push_back(point("heed", "additive", "float64", 5, 4.0));
    const std::string both = svg_sweep_chart(points, "len");
    CHECK(both.find("(transformer D 32, 2 layers, 4 heads; E 32, H 64, B 32, one thread)") != std::string::npos);
    // The recurrent models' title is as it was.
    CHECK(svg_sweep_chart(scrambled(), "batch").find("(E 32, L 40, H 64, one thread)") != std::string::npos);
    // heed bench --json's transformer points carry their layers and heads.
    SweepPoint read = sweep_point(parse_json(R"({"model": "transformer", "dtype": "float64", "embed": 16, "hidden": 64,
        "batch": 4, "len": 5, "layers": 3, "heads": 2, "ms_per_step": 1, "ms_p10": 1, "ms_p90": 1,
        "tokens_per_second": 1, "gflops_per_second": 1, "step_peak_mb": 1})"));
    CHECK(read.layers == 3);
    CHECK(read.heads == 2);
  }

  TEST_CASE("heed bench --sweep: a point per model and value, the table, one JSON array, the chart; --from reads it back") {
    Scratch s("sweep");
    const std::string svg = s.path("len.svg"), points = s.path("points.json");
    CliRun r = s.heed("bench --sweep len=2,4 --model plain,dot --embed 4 --hidden 4 --batch 2 --steps 1 --warmup 0 --json --svg " +
                      svg);
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(r.err.empty());
    const Json j = r.json();
    REQUIRE(j.is_array());
    REQUIRE(j.size() == 4);
    const char* models[] = {"plain", "plain", "dot", "dot"};
    const int64_t lens[] = {2, 4, 2, 4};
    for (size_t i = 0; i < 4; ++i) {
      const Json& p = j.as_array()[i];
      CHECK(p.find("model")->as_string() == models[i]);
      CHECK(p.find("len")->as_int() == lens[i]);
      CHECK(p.find("hidden")->as_int() == 4);
      CHECK(p.find("program")->as_string() == "heed");
      CHECK(p.find("dtype")->as_string() == kRealName);
    }
    CHECK(r.out.find("| model | dtype | L | ms/step |") != std::string::npos);
    CHECK(r.out.find(std::string("| dot | ") + kRealName + " | 4 | ") != std::string::npos);
    const std::string chart = slurp(svg);
    std::string error;
    CHECK_MESSAGE(xml_well_formed(chart, &error), error);
    CHECK(chart.find(std::string(">dot (heed ") + kRealName + ")<") != std::string::npos);

    // --from: the same points, with one more program's, side by side.
    {
      std::string torch = j.as_array()[3].dump();
      torch.replace(torch.find("\"heed\""), 6, "\"pytorch\"");
      std::ofstream(points) << j.dump() << "\n" << torch << "\n";
    }
    CliRun f = s.heed("bench --from " + points + " --svg " + s.path("from.svg"));
    INFO(f.err);
    REQUIRE(f.status == 0);
    CHECK(f.out.find(std::string("heed ") + kRealName + " ms | PyTorch " + kRealName + " ms |") != std::string::npos);
    CHECK(f.out.find(" | 1.00 |\n") != std::string::npos);  // dot at 4: the same time on both sides
    CHECK(xml_well_formed(slurp(s.path("from.svg"))));
  }

  TEST_CASE("heed bench --decode: a line per step 8, 16, ... N for any model; training's flags refused with it") {
    Scratch s("decode");
    CliRun r = s.heed("bench --decode 32 --model transformer --embed 8 --batch 2 --len 3 --steps 1");
    INFO(r.err);
    REQUIRE(r.status == 0);
    for (const char* step : {"step    8:", "step   16:", "step   32:"}) CHECK(r.out.find(step) != std::string::npos);
    CHECK(r.out.find("step   64:") == std::string::npos);
    CHECK(s.heed("bench --decode 8 --model additive --embed 4 --hidden 4 --batch 2 --len 3 --steps 1").status == 0);
    CliRun j = s.heed("bench --decode 8 --json");
    CHECK(j.status == 2);
    CHECK(j.err.find("--decode times decoding alone; --json is for training steps") != std::string::npos);
    CHECK(s.heed("bench --decode 4").status == 2);  // below 8
  }
}
