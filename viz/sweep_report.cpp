// The tables and the chart of a sweep (viz/sweep_report.h).
#include "viz/sweep_report.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "viz/svg.h"

namespace heed {
namespace {

const Json& member(const Json& j, const std::string& key) {
  const Json* v = j.find(key);
  if (v == nullptr) throw Error("sweep point: no '" + key + "' in " + j.dump());
  return *v;
}

real number(const Json& j, const std::string& key) {
  const Json& v = member(j, key);
  if (!v.is_number()) throw Error("sweep point: '" + key + "' is not a number in " + j.dump());
  return v.as_real();
}

int64_t whole(const Json& j, const std::string& key) {
  const Json& v = member(j, key);
  if (!v.is_int() || v.as_int() < 1) throw Error("sweep point: '" + key + "' is not a positive whole number in " + j.dump());
  return v.as_int();
}

std::string text(const Json& j, const std::string& key) {
  const Json& v = member(j, key);
  if (!v.is_string()) throw Error("sweep point: '" + key + "' is not a string in " + j.dump());
  return v.as_string();
}

std::string fmt(const char* format, real v) {
  char out[64];
  std::snprintf(out, sizeof out, format, v);
  return out;
}

// The captions of a swept dimension: the table's column, the chart's axis.
std::string column_name(const std::string& dim) { return dim == "len" ? "L" : dim == "hidden" ? "H" : "B"; }
std::string axis_caption(const std::string& dim) {
  return dim == "len"      ? "source length L (tokens; the target is L + 1)"
         : dim == "hidden" ? "hidden size H (units)"
                           : "batch size B (sequences)";
}

// The models in the order they first appear.
std::vector<std::string> models_of(const std::vector<SweepPoint>& points) {
  std::vector<std::string> out;
  for (const SweepPoint& p : points)
    if (std::find(out.begin(), out.end(), p.model) == out.end()) out.push_back(p.model);
  return out;
}

// The sources present, heed and PyTorch of each dtype side by side, double first.
std::vector<std::string> sources_of(const std::vector<SweepPoint>& points) {
  std::vector<std::string> out;
  for (const char* s : {"heed float64", "PyTorch float64", "heed float32", "PyTorch float32"})
    for (const SweepPoint& p : points)
      if (sweep_source(p) == s) {
        out.push_back(s);
        break;
      }
  for (const SweepPoint& p : points)  // anything else, after them
    if (std::find(out.begin(), out.end(), sweep_source(p)) == out.end()) out.push_back(sweep_source(p));
  return out;
}

}  // namespace

SweepPoint sweep_point(const Json& j) {
  if (!j.is_object()) throw Error("sweep point: expected a JSON object, got " + j.dump());
  SweepPoint p;
  p.program = j.find("program") ? text(j, "program") : "heed";
  p.model = text(j, "model");
  p.dtype = text(j, "dtype");
  p.embed = whole(j, "embed");
  p.hidden = whole(j, "hidden");
  p.batch = whole(j, "batch");
  p.len = whole(j, "len");
  if (p.model == "transformer" && j.find("layers")) {  // heed bench's transformer points say their sizes
    p.layers = whole(j, "layers");
    p.heads = whole(j, "heads");
  }
  p.ms = number(j, "ms_per_step");
  p.ms_p10 = number(j, "ms_p10");
  p.ms_p90 = number(j, "ms_p90");
  p.tokens_per_second = number(j, "tokens_per_second");
  p.gflops = number(j, "gflops_per_second");
  p.step_mb = number(j, "step_peak_mb");
  return p;
}

std::vector<SweepPoint> read_sweep_points(const std::string& text) {
  std::vector<SweepPoint> out;
  size_t start = 0;
  for (int line = 1; start < text.size(); ++line) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view s(text.data() + start, end - start);
    start = end + 1;
    if (s.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    try {
      Json j = parse_json(s);
      if (j.is_array())
        for (const Json& e : j.as_array()) out.push_back(sweep_point(e));
      else
        out.push_back(sweep_point(j));
    } catch (const Error& e) {
      throw Error("line " + std::to_string(line) + ": " + e.what());
    }
  }
  return out;
}

int64_t sweep_value(const SweepPoint& p, const std::string& dim) {
  if (dim == "len") return p.len;
  if (dim == "hidden") return p.hidden;
  if (dim == "batch") return p.batch;
  throw Error("sweep: unknown dimension '" + dim + "' (choose len, hidden or batch)");
}

std::string swept_dimension(const std::vector<SweepPoint>& points) {
  if (points.empty()) throw Error("sweep: no points");
  std::vector<std::string> varied;
  for (const std::string& dim : kSweepDimensions)
    for (const SweepPoint& p : points)
      if (sweep_value(p, dim) != sweep_value(points.front(), dim)) {
        varied.push_back(dim);
        break;
      }
  for (const SweepPoint& p : points)
    if (p.embed != points.front().embed) {
      varied.push_back("embed");
      break;
    }
  if (varied.size() == 1) return varied.front();
  if (varied.empty()) throw Error("sweep: the points do not differ in len, hidden or batch");
  std::string list;
  for (const std::string& d : varied) list += (list.empty() ? "" : ", ") + d;
  throw Error("sweep: the points differ in more than one of len, hidden, batch and embed (" + list + ")");
}

std::string sweep_source(const SweepPoint& p) {
  return (p.program == "pytorch" ? std::string("PyTorch") : p.program) + " " + p.dtype;
}

std::string sweep_table(const std::vector<SweepPoint>& points, const std::string& dim) {
  bool programs = false;
  for (const SweepPoint& p : points) programs |= p.program != points.front().program;
  std::string o = std::string(programs ? "| program " : "") + "| model | dtype | " + column_name(dim) +
                  " | ms/step | p10-p90 ms | tokens/s | GFLOP/s | step MB |\n";
  o += std::string(programs ? "|---" : "") + "|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (const SweepPoint& p : points) {
    if (programs) o += "| " + p.program + " ";
    o += "| " + p.model + " | " + p.dtype + " | " + std::to_string(sweep_value(p, dim)) + " | " + fmt("%.2f", p.ms) +
         " | " + fmt("%.2f", p.ms_p10) + "-" + fmt("%.2f", p.ms_p90) + " | " + fmt("%.0f", p.tokens_per_second) +
         " | " + fmt("%.2f", p.gflops) + " | " + fmt("%.1f", p.step_mb) + " |\n";
  }
  return o;
}

std::string sweep_comparison_table(const std::vector<SweepPoint>& points, const std::string& dim) {
  const std::vector<std::string> sources = sources_of(points);
  // (model, value) -> source -> ms, and the rows in model then value order.
  std::map<std::pair<std::string, int64_t>, std::map<std::string, real>> ms;
  for (const SweepPoint& p : points) ms[{p.model, sweep_value(p, dim)}][sweep_source(p)] = p.ms;
  std::vector<std::pair<std::string, std::string>> ratios;  // heed's over PyTorch's, same dtype
  for (const std::string& s : sources)
    if (s.rfind("heed ", 0) == 0) {
      std::string torch = "PyTorch " + s.substr(5);
      if (std::find(sources.begin(), sources.end(), torch) != sources.end()) ratios.push_back({s, torch});
    }
  std::string o = "| model | " + column_name(dim) + " |", rule = "|---|---:|";
  for (const std::string& s : sources) {
    o += " " + s + " ms |";
    rule += "---:|";
  }
  for (const auto& [h, t] : ratios) {
    o += " " + h + " / " + t + " |";
    rule += "---:|";
  }
  o += "\n" + rule + "\n";
  for (const std::string& model : models_of(points))
    for (const auto& [key, row] : ms) {
      if (key.first != model) continue;
      o += "| " + model + " | " + std::to_string(key.second) + " |";
      for (const std::string& s : sources) o += row.count(s) ? " " + fmt("%.2f", row.at(s)) + " |" : " - |";
      for (const auto& [h, t] : ratios)
        o += row.count(h) && row.count(t) ? " " + fmt("%.2f", row.at(h) / row.at(t)) + " |" : " - |";
      o += "\n";
    }
  return o;
}

std::string svg_sweep_chart(const std::vector<SweepPoint>& points, const std::string& dim) {
  const std::vector<std::string> models = models_of(points), sources = sources_of(points);
  std::vector<Series> series;
  for (size_t m = 0; m < models.size(); ++m)
    for (size_t s = 0; s < sources.size(); ++s) {
      std::vector<std::pair<real, real>> xy;
      for (const SweepPoint& p : points)
        if (p.model == models[m] && sweep_source(p) == sources[s])
          xy.push_back({static_cast<real>(sweep_value(p, dim)), p.ms});
      if (xy.empty()) continue;
      std::sort(xy.begin(), xy.end());  // a line runs left to right whatever order the points came in
      Series line{models[m] + " (" + sources[s] + ")", {}, {}, static_cast<int>(m), static_cast<int>(s)};
      for (const auto& [x, y] : xy) {
        line.x.push_back(x);
        line.y.push_back(y);
      }
      series.push_back(line);
    }
  // The sizes held fixed, in the title: E and H for the recurrent models, D, layers and heads for
  // the transformer (which has no H), each only where a point of its kind is drawn.
  std::string fixed;
  const SweepPoint* recurrent = nullptr;
  const SweepPoint* transformer = nullptr;
  for (const SweepPoint& p : points) {
    if (p.model == "transformer" && !transformer) transformer = &p;
    if (p.model != "transformer" && !recurrent) recurrent = &p;
  }
  if (transformer) {
    fixed = (recurrent ? "transformer D " : "D ") + std::to_string(transformer->embed);
    if (transformer->layers > 0)
      fixed += ", " + std::to_string(transformer->layers) + " layers, " + std::to_string(transformer->heads) + " heads";
    if (recurrent) fixed += "; ";
  }
  if (recurrent) fixed += "E " + std::to_string(recurrent->embed);
  for (const std::string& d : kSweepDimensions) {
    if (d == dim || (d == "hidden" && !recurrent)) continue;
    const SweepPoint& p = d == "hidden" ? *recurrent : points.front();
    fixed += ", " + column_name(d) + " " + std::to_string(sweep_value(p, d));
  }
  return svg_line_chart(series, "Time per training step against " + axis_caption(dim).substr(0, axis_caption(dim).find(" (")) +
                                    " (" + fixed + ", one thread)",
                        axis_caption(dim), "ms per training step (median)");
}

}  // namespace heed
