#include "viz/film.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "io/json.h"
#include "tensor/math.h"
#include "viz/film_page.h"
#include "viz/heatmap.h"
#include "viz/html.h"
#include "viz/svg.h"

namespace heed {

void check_film(const Film& film) {
  if (film.frames.empty()) throw Error("html_film: the film has no frames");
  if (film.source.empty()) throw Error("html_film: the example has no source tokens");
  for (std::size_t k = 0; k < film.frames.size(); ++k) {
    const FilmFrame& f = film.frames[k];
    const std::string at = "html_film: frame " + std::to_string(k) + " (step " + std::to_string(f.step) + ")";
    if (k > 0 && f.step <= film.frames[k - 1].step)
      throw Error(at + " does not come after step " + std::to_string(film.frames[k - 1].step));
    if (f.output.size() != film.reference.size())
      throw Error(at + " has " + std::to_string(f.output.size()) + " output tokens, the reference " +
                  std::to_string(film.reference.size()));
    if (!(f.exact >= 0 && f.exact <= 1))
      throw Error(at + ": " + (film.curve.empty() ? std::string("exact accuracy") : film.curve) + " is not in [0, 1]");
    if (f.values.size() != film.columns.size())
      throw Error(at + " has " + std::to_string(f.values.size()) + " values for " + std::to_string(film.columns.size()) +
                  " columns");
    check_attention(at, film.source, f.output, f.weights);
  }
}

namespace {

std::string fmt(const char* format, real v) {
  char out[40];
  std::snprintf(out, sizeof out, format, v);
  return out;
}
std::string px(real v) { return fmt("%.1f", v); }

// The curves: training loss (log scale) above held-out exact accuracy, steps across; a line
// and a dot per panel (classes "now" and "dot") mark the current snapshot, moved by the script.
// `xs` gets each frame's x, `loss_y` and `exact_y` its y in each panel (NaN: no point).
struct Panel {
  real top, height;
};
constexpr real kChartW = 380, kLeft = 52, kRight = 16, kPanelH = 130, kGap = 46;

std::string curves(const Film& film, std::vector<real>& xs, std::vector<real>& loss_y, std::vector<real>& exact_y) {
  const real last = static_cast<real>(std::max<int64_t>(1, film.frames.back().step));
  const real first = static_cast<real>(film.frames.front().step);
  const real plot_w = kChartW - kLeft - kRight;
  const Panel loss_panel{30, kPanelH}, exact_panel{30 + kPanelH + kGap, kPanelH};
  const real height = exact_panel.top + kPanelH + 40;
  auto x_of = [&](real step) { return kLeft + plot_w * (step - first) / std::max<real>(1, last - first); };

  real lo = INFINITY, hi = -INFINITY;  // the loss axis: whole decades around the finite losses
  for (const FilmFrame& f : film.frames)
    if (std::isfinite(f.loss) && f.loss > 0) {
      lo = std::min(lo, f.loss);
      hi = std::max(hi, f.loss);
    }
  const bool have_loss = lo <= hi;
  // The decades: d_lo = floor(log10 lo), d_hi = ceil(log10 hi) (viz/svg.h's decade_of, by comparison).
  const real d_lo = have_loss ? decade_of(lo) : -1;
  const real d_hi = have_loss ? decade_of(hi) + (power_of_ten(decade_of(hi)) < hi ? 1 : 0) : 1;
  const real kLn10 = math::log(real(10));
  const real decades = std::max<real>(1, d_hi - d_lo);
  auto loss_to_y = [&](real v) {
    return loss_panel.top + loss_panel.height * (1 - (math::log(v) / kLn10 - d_lo) / decades);
  };
  auto exact_to_y = [&](real v) { return exact_panel.top + exact_panel.height * (1 - v); };

  std::string o = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + px(kChartW) + " " + px(height) +
                  "\" width=\"" + px(kChartW) + "\" height=\"" + px(height) +
                  "\" font-family=\"sans-serif\" font-size=\"12\" class=\"heed-curves\">\n";
  o += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  std::string loss_path, exact_path;
  for (const FilmFrame& f : film.frames) {
    const real x = x_of(static_cast<real>(f.step));
    xs.push_back(x);
    const bool finite = std::isfinite(f.loss) && f.loss > 0;
    loss_y.push_back(finite ? loss_to_y(f.loss) : NAN);
    if (finite) loss_path += (loss_path.empty() ? "M" : " L") + px(x) + " " + px(loss_y.back());
    exact_y.push_back(exact_to_y(f.exact));
    exact_path += (exact_path.empty() ? "M" : " L") + px(x) + " " + px(exact_y.back());
  }
  // Steps across: 1, 2 or 5 times a power of ten apart, about four intervals.
  const real raw = std::max<real>(1, (last - first) / 4), mag = power_of_ten(decade_of(raw));
  const real tick = std::max<real>(1, mag * (raw / mag < 1.5 ? 1 : raw / mag < 3.5 ? 2 : raw / mag < 7.5 ? 5 : 10));
  std::vector<real> step_ticks;
  for (real s = std::ceil(first / tick) * tick; s <= last; s += tick) step_ticks.push_back(s);
  auto panel = [&](const Panel& p, const std::string& title, const std::string& path, const std::string& colour,
                   const std::vector<std::pair<real, std::string>>& ticks) {
    o += "<text x=\"" + px(kLeft) + "\" y=\"" + px(p.top - 10) + "\" font-weight=\"bold\" fill=\"#222\">" +
         xml_escape(title) + "</text>\n";
    o += "<rect x=\"" + px(kLeft) + "\" y=\"" + px(p.top) + "\" width=\"" + px(plot_w) + "\" height=\"" +
         px(p.height) + "\" fill=\"none\" stroke=\"#bbb\"/>\n";
    for (const auto& [y, text] : ticks)
      o += "<line x1=\"" + px(kLeft - 4) + "\" y1=\"" + px(y) + "\" x2=\"" + px(kLeft + plot_w) + "\" y2=\"" + px(y) +
           "\" stroke=\"#eee\"/><text x=\"" + px(kLeft - 7) + "\" y=\"" + px(y) +
           "\" dy=\"0.35em\" text-anchor=\"end\" fill=\"#444\">" + text + "</text>\n";
    for (real s : step_ticks)
      o += "<text x=\"" + px(x_of(s)) + "\" y=\"" + px(p.top + p.height + 15) +
           "\" text-anchor=\"middle\" fill=\"#444\">" + fmt("%.0f", s) + "</text>\n";
    if (!path.empty())
      o += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"1.8\"/>\n";
    o += "<line class=\"now\" x1=\"" + px(kLeft) + "\" y1=\"" + px(p.top) + "\" x2=\"" + px(kLeft) + "\" y2=\"" +
         px(p.top + p.height) + "\" stroke=\"#d55e00\" stroke-width=\"1.5\"/>\n";
    o += "<circle class=\"dot\" cx=\"" + px(kLeft) + "\" cy=\"" + px(p.top) + "\" r=\"4\" fill=\"#d55e00\"/>\n";
  };
  std::vector<std::pair<real, std::string>> loss_ticks;
  for (real d = d_lo; d <= d_lo + decades; ++d) {
    const real tick = power_of_ten(static_cast<int>(d));
    loss_ticks.push_back({loss_to_y(tick), fmt("%g", tick)});
  }
  panel(loss_panel, have_loss ? "training loss (log scale)" : "training loss (none yet)", loss_path, "#0072b2",
        loss_ticks);
  panel(exact_panel, film.curve.empty() ? "held-out exact accuracy" : film.curve, exact_path, "#009e73",
        {{exact_to_y(0), "0"}, {exact_to_y(0.5), "0.5"}, {exact_to_y(1), "1"}});
  o += "<text x=\"" + px(kLeft + plot_w / 2) + "\" y=\"" + px(height - 6) +
       "\" text-anchor=\"middle\" fill=\"#444\">training step</text>\n</svg>\n";
  return o;
}

std::string json_numbers(const std::vector<real>& xs, const char* format) {
  std::string o = "[";
  for (std::size_t i = 0; i < xs.size(); ++i) o += (i ? "," : "") + (std::isfinite(xs[i]) ? fmt(format, xs[i]) : "null");
  return o + "]";
}

std::string json_strings(const std::vector<std::string>& tokens) {
  std::string o = "[";
  for (std::size_t i = 0; i < tokens.size(); ++i) o += (i ? "," : "") + json_quote(tokens[i], JsonQuoting::kScript);
  return o + "]";
}

// The page's data: per frame its step, loss, exact, output tokens (as indices into `words`)
// and weights in thousandths, row after row.
std::string film_data(const Film& film, const std::vector<real>& xs, const std::vector<real>& loss_y,
                      const std::vector<real>& exact_y) {
  std::vector<std::string> words;
  std::map<std::string, int> index;
  std::string outs = "[", weights = "[", steps = "[";
  std::vector<real> losses, exacts;
  for (std::size_t k = 0; k < film.frames.size(); ++k) {
    const FilmFrame& f = film.frames[k];
    steps += (k ? "," : "") + std::to_string(f.step);
    losses.push_back(f.loss);
    exacts.push_back(f.exact);
    outs += k ? ",[" : "[";
    for (std::size_t t = 0; t < f.output.size(); ++t) {
      auto [it, fresh] = index.emplace(f.output[t], static_cast<int>(words.size()));
      if (fresh) words.push_back(f.output[t]);
      outs += (t ? "," : "") + std::to_string(it->second);
    }
    outs += "]";
    weights += k ? ",\n[" : "\n[";
    bool first = true;
    for (const auto& row : f.weights)
      for (real w : row) {
        weights += (first ? "" : ",") + std::to_string(std::lround(w * 1000));
        first = false;
      }
    weights += "]";
  }
  std::string scale = "[";
  for (int k = 0; k <= 8; ++k) scale += (k ? ",\"" : "\"") + weight_colour(k / 8.0) + "\"";
  // "shows" only for a chosen matrix: the default film's page keeps its bytes.
  std::string shows =
      film.shows.empty() ? "" : "\"shows\":" + json_quote(film.shows, JsonQuoting::kScript) + ",\n";
  // Likewise the notes and the values (the decoder-only film's), only when there are some.
  bool notes = false;
  for (const FilmFrame& f : film.frames) notes = notes || !f.note.empty();
  if (notes) {
    std::vector<std::string> lines;
    for (const FilmFrame& f : film.frames) lines.push_back(f.note);
    shows += "\"notes\":" + json_strings(lines) + ",\n";
  }
  if (!film.columns.empty()) {
    shows += "\"columns\":" + json_strings(film.columns) + ",\n\"values\":[";
    for (std::size_t k = 0; k < film.frames.size(); ++k)
      shows += (k ? ",\n" : "\n") + json_numbers(film.frames[k].values, "%.17g");
    shows += "],\n";
  }
  return "var FILM = {" + shows + "\"source\":" + json_strings(film.source) + ",\n\"reference\":" + json_strings(film.reference) +
         ",\n\"scale\":" + scale + "],\n\"steps\":" + steps + "],\n\"loss\":" + json_numbers(losses, "%.5g") +
         ",\n\"exact\":" + json_numbers(exacts, "%.4g") + ",\n\"x\":" + json_numbers(xs, "%.1f") +
         ",\n\"loss_y\":" + json_numbers(loss_y, "%.1f") + ",\n\"exact_y\":" + json_numbers(exact_y, "%.1f") +
         ",\n\"words\":" + json_strings(words) + ",\n\"out\":" + outs + "],\n\"w\":" + weights + "]};\n";
}

}  // namespace

std::string html_film(const Film& film) {
  check_film(film);
  // The heatmap's left margin must fit the widest token any frame writes in each row.
  std::vector<std::string> widest = film.reference;
  for (const FilmFrame& f : film.frames)
    for (std::size_t t = 0; t < f.output.size(); ++t)
      if (f.output[t].size() > widest[t].size()) widest[t] = f.output[t];
  const FilmFrame& first = film.frames.front();
  std::vector<real> xs, loss_y, exact_y;
  std::string chart = curves(film, xs, loss_y, exact_y);

  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  o += "<title>" + xml_escape(film.title) + "</title>\n";
  o += std::string(film_page::kStyle) + film_page::kErrorCatcher + "</head>\n<body>\n";
  o += "<h1>" + xml_escape(film.title) + "</h1>\n";
  o += "<p class=\"caption\">" + xml_escape(film.caption) + "</p>\n";
  o += "<div class=\"controls\"><button id=\"play\" type=\"button\">\u25b6 play</button>";
  o += "<input id=\"slider\" type=\"range\" min=\"0\" max=\"" + std::to_string(film.frames.size() - 1) +
       "\" value=\"0\" step=\"1\" aria-label=\"snapshot\"><span id=\"now\"></span></div>\n";
  o += "<div class=\"panes\">\n<figure id=\"matrix\">\n" +
       svg_heatmap_element(film.source, widest, first.weights, film.title,
                           film.across.empty() ? AxisCaptions{} : AxisCaptions{film.across, film.down}) +
       "</figure>\n";
  o += "<figure id=\"curves\">\n" + chart + "</figure>\n</div>\n";
  if (!film.hint.empty()) o += "<p class=\"hint\">" + xml_escape(film.hint) + "</p>\n";
  else o += "<p class=\"hint\">Rows are what the model wrote for the source, at each step of greedy decoding "
       "(in orange where it differs from the reference, <b>" +
       xml_escape([&] {
         std::string r;
         for (const auto& t : film.reference) r += (r.empty() ? "" : " ") + t;
         return r;
       }()) +
       "</b>); columns are the source tokens; darker cells got more attention. Drag the slider, use the "
       "arrow keys on it, or press play.</p>\n";
  o += "<script>\n" + film_data(film, xs, loss_y, exact_y) + film_page::kScript + "</script>\n";
  if (std::any_of(film.frames.begin(), film.frames.end(), [](const FilmFrame& f) { return !f.note.empty(); }))
    o += std::string("<script>\n") + film_page::kNotesScript + "</script>\n";
  o += "</body>\n</html>\n";
  return o;
}

Film read_film(const std::string& html) {
  const std::string open = "var FILM = ";
  const size_t start = html.find(open), end = html.find("};\n", start == std::string::npos ? 0 : start);
  if (start == std::string::npos || end == std::string::npos) throw Error("read_film: no film data in the page");
  const Json data = parse_json(std::string_view(html).substr(start + open.size(), end + 1 - start - open.size()));
  auto member = [&](const char* key) -> const Json& {
    const Json* m = data.is_object() ? data.find(key) : nullptr;
    if (!m) throw Error(std::string("read_film: the film data has no '") + key + "'");
    return *m;
  };
  auto strings = [](const Json& a) {
    std::vector<std::string> out;
    for (const Json& e : a.as_array()) out.push_back(e.as_string());
    return out;
  };
  Film film;
  if (const Json* shows = data.is_object() ? data.find("shows") : nullptr) film.shows = shows->as_string();
  const Json* notes = data.is_object() ? data.find("notes") : nullptr;
  const Json* values = data.is_object() ? data.find("values") : nullptr;
  if (const Json* columns = data.is_object() ? data.find("columns") : nullptr) {
    for (const Json& c : columns->as_array()) film.columns.push_back(c.as_string());
    if (!values) throw Error("read_film: the film data has columns but no 'values'");
  }
  film.source = strings(member("source"));
  film.reference = strings(member("reference"));
  const std::vector<std::string> words = strings(member("words"));
  const Json::Array &steps = member("steps").as_array(), &loss = member("loss").as_array(),
                    &exact = member("exact").as_array(), &out = member("out").as_array(), &w = member("w").as_array();
  const size_t n = steps.size(), S = film.source.size();
  if (loss.size() != n || exact.size() != n || out.size() != n || w.size() != n ||
      (notes && notes->as_array().size() != n) || (values && values->as_array().size() != n))
    throw Error("read_film: the film data's arrays differ in length");
  for (size_t k = 0; k < n; ++k) {
    FilmFrame f;
    f.step = steps[k].as_int();
    f.loss = loss[k].is_null() ? NAN : loss[k].as_real();
    f.exact = exact[k].as_real();
    if (notes) f.note = notes->as_array()[k].as_string();
    if (values)
      for (const Json& v : values->as_array()[k].as_array()) f.values.push_back(v.is_null() ? NAN : v.as_real());
    for (const Json& i : out[k].as_array()) {
      const int64_t id = i.as_int();
      if (id < 0 || id >= static_cast<int64_t>(words.size())) throw Error("read_film: frame " + std::to_string(k) + ": word " + std::to_string(id) + " of " + std::to_string(words.size()));
      f.output.push_back(words[static_cast<size_t>(id)]);
    }
    const Json::Array& flat = w[k].as_array();
    if (flat.size() != f.output.size() * S)
      throw Error("read_film: frame " + std::to_string(k) + " has " + std::to_string(flat.size()) + " weights for " +
                  std::to_string(f.output.size()) + " x " + std::to_string(S));
    for (size_t t = 0; t < f.output.size(); ++t) {
      f.weights.emplace_back();
      for (size_t i = 0; i < S; ++i) f.weights.back().push_back(flat[t * S + i].as_real() / 1000);
    }
    film.frames.push_back(std::move(f));
  }
  check_film(film);
  return film;
}

std::string film_csv(const Film& film) {
  if (film.columns.empty()) throw Error("film_csv: the film keeps no numbers but its loss and accuracy");
  std::string o = "step,loss";
  for (const std::string& c : film.columns) o += "," + c;
  o += "\n";
  auto number = [](real v) { return std::isfinite(v) ? fmt("%.17g", v) : std::string(); };
  for (const FilmFrame& f : film.frames) {
    o += std::to_string(f.step) + "," + (std::isfinite(f.loss) ? fmt("%.5g", f.loss) : std::string());  // as the page keeps it
    for (real v : f.values) o += "," + number(v);
    o += "\n";
  }
  return o;
}

}  // namespace heed
