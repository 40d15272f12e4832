// The fixed text of the film's page (viz/film_page.h): style, error catcher, player script.
#include "viz/film_page.h"

namespace heed::film_page {

const char* const kStyle = R"css(<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
  margin:24px;color:#222;background:#fff}
h1{font-size:20px;margin:0 0 4px}
.caption{color:#555;margin:0 0 12px;font-size:14px}
.controls{display:flex;align-items:center;gap:12px;margin:8px 0 12px;flex-wrap:wrap}
#play{font-size:15px;min-width:84px;padding:4px 10px}
#slider{flex:1;min-width:220px;max-width:640px}
#now{font-variant-numeric:tabular-nums;font-size:15px;min-width:300px}
.panes{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}
figure{margin:0;overflow-x:auto}
figure svg{max-width:100%;height:auto}
svg text.out.wrong{fill:#d55e00;font-weight:bold}
.hint{color:#555;font-size:14px;max-width:760px}
</style>
)css";

const char* const kErrorCatcher = R"js(<script>
window.HEED_ERRORS = [];
window.addEventListener("error", function (e) { HEED_ERRORS.push("error: " + e.message); });
(function () {
  var original = console.error;
  console.error = function () {
    HEED_ERRORS.push("console.error: " + Array.prototype.join.call(arguments, " "));
    return original.apply(console, arguments);
  };
})();
window.addEventListener("load", function () {
  setTimeout(function () {
    var p = document.createElement("pre");
    p.id = "errors";
    p.textContent = HEED_ERRORS.join("\n");
    p.setAttribute("data-count", String(HEED_ERRORS.length));
    p.hidden = HEED_ERRORS.length === 0;
    document.body.appendChild(p);
  }, 3000);
});
</script>
)js";

const char* const kScript = R"js(
(function () {
  "use strict";
  var f = FILM, S = f.source.length, T = f.reference.length, N = f.steps.length;
  function all(q) { return Array.prototype.slice.call(document.querySelectorAll(q)); }
  var cells = [];
  all("#matrix .cell").forEach(function (c) {
    cells[Number(c.getAttribute("data-row")) * S + Number(c.getAttribute("data-col"))] = c;
  });
  var labels = all("#matrix text.out"), slider = document.getElementById("slider");
  var play = document.getElementById("play"), now = document.getElementById("now");
  var lines = all("#curves .now"), dots = all("#curves .dot");
  function hex(c) { return [1, 3, 5].map(function (k) { return parseInt(c.substr(k, 2), 16); }); }
  var scale = f.scale.map(hex);
  function colour(w) {  // the heatmaps' scale: anchors at 0, 1/8, ..., 1, linear in between
    var x = Math.min(Math.max(w, 0), 1) * (scale.length - 1);
    var k = Math.min(scale.length - 2, Math.floor(x)), g = x - k;
    var c = scale[k].map(function (v, i) { return Math.round(v + g * (scale[k + 1][i] - v)); });
    return "rgb(" + c.join(",") + ")";
  }
  var current = -1, timer = null;
  function show(k) {
    k = Math.max(0, Math.min(N - 1, k));
    current = k;
    slider.value = String(k);
    var w = f.w[k], out = f.out[k];
    for (var t = 0; t < T; ++t) {
      var word = f.words[out[t]];
      labels[t].textContent = word;
      labels[t].classList.toggle("wrong", word !== f.reference[t]);
      for (var s = 0; s < S; ++s) {
        var v = w[t * S + s] / 1000, c = cells[t * S + s];
        c.setAttribute("fill", colour(v));
        c.querySelector("title").textContent = word + " \u2192 " + f.source[s] + ": " + v.toFixed(3);
      }
    }
    var loss = f.loss[k] === null ? "\u2013" : f.loss[k].toFixed(4);
    now.textContent = "step " + f.steps[k] + " of " + f.steps[N - 1] + "  \u00b7  loss " + loss +
        "  \u00b7  held-out exact " + f.exact[k].toFixed(2);
    var ys = [f.loss_y[k], f.exact_y[k]];
    lines.forEach(function (l) { l.setAttribute("x1", f.x[k]); l.setAttribute("x2", f.x[k]); });
    dots.forEach(function (d, i) {
      d.setAttribute("cx", f.x[k]);
      d.setAttribute("cy", ys[i] === null ? -10 : ys[i]);
      d.setAttribute("visibility", ys[i] === null ? "hidden" : "visible");
    });
  }
  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.textContent = "\u25b6 play";
  }
  function start() {
    if (current >= N - 1) show(0);
    play.textContent = "\u275a\u275a pause";
    timer = setInterval(function () {
      if (current >= N - 1) stop(); else show(current + 1);
    }, Math.max(40, Math.min(200, 8000 / N)));
  }
  slider.max = String(N - 1);
  slider.addEventListener("input", function () { stop(); show(Number(slider.value)); });
  play.addEventListener("click", function () { if (timer === null) start(); else stop(); });
  var hash = location.hash.slice(1);
  var at = /^step=(\d+)$/.exec(hash), k0 = 0;
  if (at) {  // the snapshot nearest the step asked for
    for (var k = 0; k < N; ++k)
      if (Math.abs(f.steps[k] - Number(at[1])) < Math.abs(f.steps[k0] - Number(at[1]))) k0 = k;
  }
  show(k0);
  if (hash === "selftest") selftest();

  // Moves the slider as a person would (an input event), compares the drawn matrix, plays for
  // a while, and ends on the last snapshot; writes what it saw into #selftest.
  function selftest() {
    function drawn() { return cells.map(function (c) { return c.getAttribute("fill"); }); }
    function move(k) { slider.value = String(k); slider.dispatchEvent(new Event("input")); }
    move(0);
    var before = drawn();
    move(N - 1);
    var after = drawn(), changed = 0;
    for (var i = 0; i < before.length; ++i) changed += before[i] !== after[i];
    var marker = lines[0].getAttribute("x1");
    move(0);
    play.click();
    setTimeout(function () {
      var played = current;
      stop();
      move(N - 1);
      var r = document.createElement("pre");
      r.id = "selftest";
      r.setAttribute("data-cells", String(cells.length));
      r.setAttribute("data-changed", String(changed));
      r.setAttribute("data-marker", marker);
      r.setAttribute("data-played", String(played));
      r.setAttribute("data-frame", String(current));
      r.textContent = "cells " + cells.length + ", changed by the slider " + changed + ", played to " + played;
      document.body.appendChild(r);
    }, 1000);
  }
})();
)js";

const char* const kNotesScript = R"js(
(function () {
  "use strict";
  var notes = FILM.notes, now = document.getElementById("now"), slider = document.getElementById("slider");
  function note() {  // the slider holds the frame shown: the player sets it before it writes #now
    var text = notes[Number(slider.value)];
    if (now.textContent !== text) now.textContent = text;  // (this write fires once more, and stops here)
  }
  new MutationObserver(note).observe(now, {childList: true, characterData: true, subtree: true});
  note();
})();
)js";

}  // namespace heed::film_page
