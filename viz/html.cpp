#include "viz/html.h"

#include <cstdio>

#include "io/json.h"
#include "viz/heatmap.h"
#include "viz/svg.h"

namespace heed {

namespace {

std::string json_string(const std::string& s) { return json_quote(s, JsonQuoting::kScript); }

std::string json_strings(const std::vector<std::string>& tokens) {
  std::string out = "[";
  for (std::size_t i = 0; i < tokens.size(); ++i) out += (i ? "," : "") + json_string(tokens[i]);
  return out + "]";
}

std::string json_weights(const std::vector<std::vector<real>>& weights) {
  std::string out = "[";
  for (std::size_t t = 0; t < weights.size(); ++t) {
    out += t ? ",\n[" : "\n[";
    for (std::size_t s = 0; s < weights[t].size(); ++s) {
      char value[32];
      std::snprintf(value, sizeof value, "%.17g", weights[t][s]);
      out += (s ? "," : "") + std::string(value);
    }
    out += "]";
  }
  return out + "]";
}

std::string chips(const std::vector<std::string>& tokens, bool output) {
  std::string out;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    out += output ? "<span class=\"tok out\" tabindex=\"0\" data-row=\"" + std::to_string(i) + "\">"
                  : "<span class=\"tok src\" data-col=\"" + std::to_string(i) + "\">";
    out += "<span class=\"t\">" + xml_escape(tokens[i]) + "</span><span class=\"w\"></span></span>";
  }
  return out;
}

const char* const kStyle = R"css(<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
  margin:24px;color:#222;background:#fff}
h1{font-size:20px;margin:0 0 4px}
.hint{color:#555;margin:0 0 14px;font-size:14px}
.sentence{display:flex;flex-wrap:wrap;align-items:flex-start;gap:4px;margin:6px 0}
.role{width:60px;flex:none;color:#666;font-size:13px;padding-top:7px}
.tok{display:inline-flex;flex-direction:column;align-items:center;min-width:26px;
  padding:4px 6px 2px;border:1px solid #c8c8c8;border-radius:4px;background:#fff;font-size:15px}
.tok .w{font-size:11px;height:13px;opacity:.85;font-variant-numeric:tabular-nums}
.out{cursor:pointer}
.tok.out:focus,.tok.out.sel{outline:2px solid #d55e00;outline-offset:1px}
#detail{min-height:20px;font-size:14px;margin:10px 0 14px}
figure{margin:0;overflow-x:auto}
figure svg{max-width:100%;height:auto}
svg text.out:focus{outline:none;text-decoration:underline}
svg text.sel{font-weight:bold;fill:#d55e00}
svg text.src.hot{font-weight:bold}
svg .cell.dim{opacity:.35}
</style>
)css";

// Plain ES2015, no libraries. HEED holds the data; select(t) shows output token t.
const char* const kScript = R"js(
(function () {
  "use strict";
  var d = HEED;
  function all(q) { return Array.prototype.slice.call(document.querySelectorAll(q)); }
  var srcChips = all("#source .tok"), outChips = all("#output .tok");
  var cells = all("figure .cell"), srcLabels = all("figure text.src");
  var outLabels = all("figure text.out");
  var detail = document.getElementById("detail"), mark = document.querySelector("figure .rowmark");
  function rowOf(el) { return Number(el.getAttribute("data-row")); }
  function hex(c) { return [1, 3, 5].map(function (k) { return parseInt(c.substr(k, 2), 16); }); }
  var scale = d.scale.map(hex);
  function colour(w) {  // the heatmap's scale: anchors at 0, 1/8, ..., 1, linear in between
    var x = Math.min(Math.max(w, 0), 1) * (scale.length - 1);
    var k = Math.min(scale.length - 2, Math.floor(x)), f = x - k;
    var c = scale[k].map(function (v, i) { return Math.round(v + f * (scale[k + 1][i] - v)); });
    return "rgb(" + c.join(",") + ")";
  }
  function select(t) {
    if (!(t >= 0 && t < d.output.length)) return;
    var row = d.weights[t];
    srcChips.forEach(function (c, s) {
      c.style.background = colour(row[s]);
      c.style.color = row[s] > 0.55 ? "#fff" : "#222";
      c.querySelector(".w").textContent = row[s].toFixed(2);
    });
    outChips.forEach(function (c, i) { c.classList.toggle("sel", i === t); });
    outLabels.forEach(function (l, i) { l.classList.toggle("sel", i === t); });
    srcLabels.forEach(function (l, s) { l.classList.toggle("hot", row[s] >= 0.25); });
    cells.forEach(function (c) { c.classList.toggle("dim", rowOf(c) !== t); });
    var first = document.querySelector("figure .cell[data-row=\"" + t + "\"]");
    if (mark && first) {
      mark.setAttribute("y", Number(first.getAttribute("y")) - 1);
      mark.setAttribute("visibility", "visible");
    }
    var order = row.map(function (w, s) { return s; });
    order.sort(function (a, b) { return row[b] - row[a]; });
    var parts = [], mass = 0;
    for (var k = 0; k < order.length && k < 4 && mass < 0.9 && row[order[k]] >= 0.05; ++k) {
      parts.push("\u201c" + d.source[order[k]] + "\u201d " + row[order[k]].toFixed(2));
      mass += row[order[k]];
    }
    detail.textContent = "\u201c" + d.output[t] + "\u201d (output " + (t + 1) + ") looked at " +
        (parts.length ? parts.join(", ") : "no source token with weight 0.05 or more");
  }
  function hook(el, t) {
    ["mouseenter", "focus", "click"].forEach(function (e) {
      el.addEventListener(e, function () { select(t); });
    });
  }
  outChips.forEach(function (c, t) {
    hook(c, t);
    c.addEventListener("keydown", function (e) {
      var step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
      if (step && outChips[t + step]) { outChips[t + step].focus(); e.preventDefault(); }
    });
  });
  outLabels.forEach(function (l, t) { hook(l, t); });
  cells.forEach(function (c) { hook(c, rowOf(c)); });
  var start = parseInt(location.hash.slice(1), 10);
  if (start >= 0) select(start);
})();
)js";

}  // namespace

std::string html_explorer(const std::vector<std::string>& source,
                          const std::vector<std::string>& output,
                          const std::vector<std::vector<real>>& weights, const std::string& title) {
  check_attention("html_explorer", source, output, weights);
  std::string scale = "[";
  for (int k = 0; k <= 8; ++k) scale += (k ? ",\"" : "\"") + weight_colour(k / 8.0) + "\"";
  scale += "]";

  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  o += "<title>" + xml_escape(title) + "</title>\n" + kStyle + "</head>\n<body>\n";
  o += "<h1>" + xml_escape(title) + "</h1>\n";
  o +=
      "<p class=\"hint\">Hover, tap or Tab to an output token (or a cell of the heatmap): each "
      "source token is shaded by the weight it received, and the weight is written under it.</p>\n";
  o += "<div class=\"sentence\" id=\"source\"><span class=\"role\">source</span>" +
       chips(source, false) + "</div>\n";
  o += "<div class=\"sentence\" id=\"output\"><span class=\"role\">output</span>" +
       chips(output, true) + "</div>\n";
  o += "<p id=\"detail\"></p>\n<figure>\n" + svg_heatmap_element(source, output, weights, title) +
       "</figure>\n";
  o += "<script>\nvar HEED = {\"title\":" + json_string(title) +
       ",\n\"source\":" + json_strings(source) + ",\n\"output\":" + json_strings(output) +
       ",\n\"scale\":" + scale + ",\n\"weights\":" + json_weights(weights) + "};\n" + kScript +
       "</script>\n</body>\n</html>\n";
  return o;
}

}  // namespace heed
