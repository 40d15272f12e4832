// The fixed text of the film's page (viz/film.h's html_film): its style sheet and its two
// scripts, kept apart from the code that lays out the page and writes its data, so that
// viz/film.cpp reads as that logic. Plain CSS and ES2015, no libraries, nothing fetched.
//
// The script's contract with the page html_film writes: a `var FILM = {...}` before it (the
// frames' data: source, reference, scale, steps, loss, exact, x, loss_y, exact_y, words, out,
// w); the heatmap's cells (class "cell", data-row, data-col, a <title>) and output labels
// (text.out) inside #matrix; the marker line and dot of each curve panel (.now, .dot) inside
// #curves; the controls #play, #slider and #now.
#pragma once

namespace heed::film_page {

// The <style> element of the page's <head>.
extern const char* const kStyle;

// A <script> for the <head>: records errors before anything else runs, and writes them into
// the page once it has loaded (a <pre id="errors">), so a headless browser's dump of the page
// shows them even when the main script fails.
extern const char* const kErrorCatcher;

// The player, to follow the FILM data inside the page's last <script>: show(k) draws snapshot
// k; the slider, the play button and the URL's #step=N choose k; #selftest moves the slider as
// a person would and writes what it saw into a <pre id="selftest">.
extern const char* const kScript;

// A second script, only in films whose frames carry a note (viz/film.h's FilmFrame::note):
// whenever the player writes the line above the matrix (#now), it puts the shown frame's note
// there instead. Kept apart so that the other films' pages stay as they were, byte for byte.
extern const char* const kNotesScript;

}  // namespace heed::film_page
