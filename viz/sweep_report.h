// How the cost of a training step grows with one dimension of the work (source length, hidden
// size or batch): the points of `heed bench --sweep` and of reference/pytorch/bench_step.py
// --sweep, read from their --json objects, as Markdown tables and as one SVG line chart of
// ms/step against the swept value. Only formatting: the timing is tools/bench_cmd.cpp's.
#pragma once

#include <string>
#include <vector>

#include "io/json.h"
#include "tensor/tensor.h"

namespace heed {

// One timed configuration, as `heed bench --json` (program "heed") or bench_step.py (program
// "pytorch") reports it.
struct SweepPoint {
  std::string program, model, dtype;
  int64_t embed = 0, hidden = 0, batch = 0, len = 0;
  int64_t layers = 0, heads = 0;  // the transformer's ("layers", "heads"); 0 for the recurrent models
  real ms = 0, ms_p10 = 0, ms_p90 = 0;  // median, 10th and 90th percentile of a step
  real tokens_per_second = 0, gflops = 0, step_mb = 0;
};

// The dimensions a sweep can vary, as --sweep names them.
inline const std::vector<std::string> kSweepDimensions = {"len", "hidden", "batch"};

// A point from one --json object; heed::Error names a missing or mistyped field. An object
// without "program" is heed's (heed bench before it said so).
SweepPoint sweep_point(const Json& j);
// Every point of `text`: JSON objects or arrays of them, one per line (blank lines skipped).
// Throws heed::Error "line 3: ..." on anything else.
std::vector<SweepPoint> read_sweep_points(const std::string& text);

// The point's value of `dim` (one of kSweepDimensions).
int64_t sweep_value(const SweepPoint& p, const std::string& dim);
// The one dimension whose value differs between the points; heed::Error when none or several
// do (the points are not one sweep).
std::string swept_dimension(const std::vector<SweepPoint>& points);

// "heed float64", "PyTorch float32": who measured a point, in which dtype.
std::string sweep_source(const SweepPoint& p);

// One row per point, in the order given: | model | dtype | <dim> | ms/step | p10-p90 ms |
// tokens/s | GFLOP/s | step MB |, with a program column when the points come from several.
std::string sweep_table(const std::vector<SweepPoint>& points, const std::string& dim);

// One row per model and value (sorted by value), one ms/step column per source present (heed
// float64, PyTorch float64, heed float32, PyTorch float32, in that order), and heed's time over
// PyTorch's in the same dtype where both are there. "-" where a source has no such point.
std::string sweep_comparison_table(const std::vector<SweepPoint>& points, const std::string& dim);

// ms/step (y) against the swept value (x), one line per model and source, drawn by
// svg_line_chart: a colour per model, a dash and marker per source, every line's points sorted
// by x, the legend naming model, program and dtype, the title the sizes held fixed.
std::string svg_sweep_chart(const std::vector<SweepPoint>& points, const std::string& dim);

}  // namespace heed
