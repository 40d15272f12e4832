// A film of attention while a model learns: snapshots of one fixed example's attention matrix
// (and the training loss and held-out accuracy) taken every few steps, written as one
// self-contained HTML page (inline CSS, JS and SVG; no network) with a slider and a play button
// to scrub through training; the current step is marked on the curves.
// "#step=N" at the end of the URL opens the snapshot nearest step N; "#selftest" moves the
// slider from the first snapshot to the last and back, then writes what it saw into the page
// (an element with id "selftest"), for the headless-browser test.
// Takes plain data: viz/ knows nothing of models.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace heed {

struct FilmFrame {
  int64_t step = 0;                        // training steps done when it was taken
  real loss = 0;                           // mean training loss since the previous frame (NaN: none)
  real exact = 0;                          // held-out exact accuracy, in [0, 1]
  std::vector<std::string> output;         // (T) the tokens the model wrote for the example
  std::vector<std::vector<real>> weights;  // (T, S) their attention
  // What the page writes above the matrix for this frame; empty: the step, the loss and the
  // held-out exact accuracy (the films of encoder-decoder models).
  std::string note;
  // Numbers kept with the frame at full precision, one per Film::columns (empty: none): the
  // decoder-only film's head scores, which film_csv writes out.
  std::vector<real> values;
};

struct Film {
  std::string title;                   // e.g. "additive attention learning reverse"
  std::string caption;                 // one line under the title: model, sizes, run
  // Which matrix the frames hold when it is not the model's own attention, e.g. "cross-attention,
  // layer 0 (of 0-1), head 2 (of 0-3)" (heed train --layer/--head); empty: the model's own.
  // Kept in the page's data (only when not empty) and read back, so that a resumed run can
  // tell whether it films the same matrix.
  std::string shows;
  std::vector<std::string> source;     // (S) the example's source tokens
  std::vector<std::string> reference;  // (T) what the model should write (ending in <eos>)
  std::vector<FilmFrame> frames;       // in order of step
  // The lower curve's title when its numbers (FilmFrame::exact) are not the held-out exact
  // accuracy, e.g. "induction score, layer 1 (of 0-1), head 0"; it must lie in [0, 1] still.
  std::string curve;
  // The paragraph under the picture when it is not an encoder-decoder model's (rows written
  // for the source, columns the source tokens); empty: that one.
  std::string hint;
  // The names of each frame's `values`, e.g. "in_context_loss"; empty: the frames hold none.
  std::vector<std::string> columns;
  // What the matrix has across and down (viz/svg.h); empty: source and output.
  std::string across, down;
};

// heed::Error naming the frame when the film is empty, steps do not increase, or a frame's
// sizes differ from the source's and the reference's (weights as for terminal_heatmap), or its
// values are not one per column.
void check_film(const Film& film);

// The page. Weights are stored rounded to 1/1000 (the picture cannot show finer), so a
// 2000-step run of reverse 5-10 filmed every 10 steps takes about 100 kB.
std::string html_film(const Film& film);

// The frames of a page html_film wrote, read back from its data (so a resumed run can continue
// its film): steps, losses, accuracies and outputs as written, weights to the thousandth the
// page keeps, `shows`, the frames' notes, the columns and the values (exactly). Title, caption,
// curve and hint are not read. heed::Error when `html` holds no film data or the data does not
// fit together.
Film read_film(const std::string& html);

// The frames' numbers as CSV a reader can plot: a header "step,loss,<columns>" and one line
// per frame, each number with 17 significant digits (a loss of none is empty). heed::Error
// when the film has no columns.
std::string film_csv(const Film& film);

}  // namespace heed
