// The film and the pictures of a decoder-only model's heads (chapter 14's phase change), run as a
// user runs them (build/heed, from the repository root), and read back against the saved model:
//
// - heed train --model decoder --film --layer L --head K films that head's attention on the
//   film's sequence (models/analysis/heads.h's film_sequence), the matrix the model's own forward gives
//   (to the thousandth the page keeps); each frame's note names its scores and in-context loss,
//   which are the numbers the film keeps for the CSV; a resumed run continues the film;
// - heed eval --film prints the phase change (first_step_reaching, first_step_below, tested on
//   hand-made series here) and writes the CSV; heed eval --heads --svg draws layers x heads panels;
// - what does not apply is refused in one line with status 2.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "io/json.h"
#include "io/safetensors.h"
#include "models/decoder_model.h"
#include "models/analysis/heads.h"
#include "nn/checkpoint.h"
#include "tests/support/attention_matrix.h"
#include "tests/support/chapter_check.h"  // build_dir, runner
#include "tests/support/heed_cli.h"
#include "tests/support/precision.h"
#include "tests/support/tools.h"
#include "viz/film.h"

using namespace heed;

using heed::test::Matrix;
using heed::test::max_diff;
using heed::test::tol;

namespace {

// A 2-layer attention-only model of 2 heads on repeat 4-6 over 8 symbols: the film's sequence
// is a segment of 5 symbols and its repeat, 11 positions with BOS.
const std::string kModel =
    "--model decoder --task repeat --attention-only --layers 2 --heads 2 --embed 16 --vocab 8 --min-len 4 --max-len 6 ";
const std::string kPlain = "train " + kModel + "--batch 16 --steps 200 --eval-samples 10";
const std::string kRun = kPlain + " --watch-every 50";
const char* const kShows = "decoder self-attention, layer 1 (of 0-1), head 0 (of 0-1)";

// The model a checkpoint holds, built from its own metadata.
std::unique_ptr<DecoderModel> load_decoder(const std::string& path) {
  const ModelConfig c = ModelConfig::from_metadata(read_safetensors_metadata(path));
  Generator gen(1);
  auto model = std::make_unique<DecoderModel>(c, gen);
  load_checkpoint(*model, path);
  return model;
}

// What the page keeps of a weight: its thousandths.
Matrix thousandths(Matrix m) {
  for (auto& row : m)
    for (real& w : row) w = static_cast<real>(std::lround(w * 1000)) / 1000;
  return m;
}

std::string two(real v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.2f", v);
  return s;
}

// Each {arguments, words}: refused with exit status 2 and one line of stderr holding the words.
template <size_t N>
void refused_in_one_line(const Scratch& s, const std::string (&bad)[N][2]) {
  for (const auto& b : bad) {
    CliRun r = s.heed(b[0]);
    INFO("heed " << b[0] << " -> " << r.status << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(b[1]) != std::string::npos);
    CHECK(r.out.empty());
  }
}

}  // namespace

TEST_SUITE("ch14_film") {
  TEST_CASE("first_step_reaching and first_step_below on hand-made series") {
    const std::vector<int64_t> steps = {0, 100, 200, 300, 400};
    // A score that rises through one half between steps 200 and 300, dips, and rises again.
    CHECK(first_step_reaching(steps, {0.1, 0.2, 0.49, 0.7, 0.4}, 0.5) == 300);
    CHECK(first_step_reaching(steps, {0.1, 0.2, 0.5, 0.7, 0.4}, 0.5) == 200);  // reaching counts
    CHECK(first_step_reaching(steps, {0.6, 0.2, 0.1, 0.1, 0.1}, 0.5) == 0);    // there from the start
    CHECK(first_step_reaching(steps, {0.1, 0.2, 0.3, 0.4, 0.49}, 0.5) == -1);  // never
    CHECK(first_step_reaching(steps, {NAN, NAN, 0.2, 0.9, 0.9}, 0.5) == 300);  // NaN never counts
    // A loss falling from log 10 = 2.30 below half of it (1.15).
    const real half = kLossFractionOfLogV * std::log(real(10));
    CHECK(first_step_below(steps, {2.3, 2.2, 1.16, 1.0, 0.2}, half) == 300);
    CHECK(first_step_below(steps, {2.3, 2.2, 1.16, 1.2, 1.2}, half) == -1);
    CHECK(first_step_below(steps, {NAN, 0.5, 0.2, 0.1, 0.1}, half) == 100);
    CHECK(first_step_below({}, {}, half) == -1);
    CHECK_THROWS_WITH_AS(first_step_below(steps, {1, 2}, half), "first_step_below: 5 steps but 2 values", Error);
  }

  TEST_CASE("HeadFilmMaker: a frame's matrix is the model's weights for the head, its values the scores") {
    RepeatTask task(6, 3, 5);
    ModelConfig c;
    c.model = "decoder";
    c.src_vocab = c.tgt_vocab = task.tgt_vocab().size();
    c.embed = 8;
    c.layers = 2;
    c.heads = 2;
    c.attention_only = true;
    Generator gen(3);
    DecoderModel model(c, gen);
    for (int64_t head : {1, -1}) {
      HeadFilmMaker maker(task, c, 0, head, 10, 7, 99);
      const Example e = film_sequence(task);
      REQUIRE(e.src.size() == 4);  // the middle length of 3 .. 5
      REQUIRE(maker.ids().size() == 9);
      const FilmFrame f = maker.take(model, 30, 1.5);
      std::vector<Var> weights;
      model.hidden(maker.ids(), 1, 9, {9}, &weights);
      const Tensor& w = weights[0].value();  // layer 0: (1, 2, 9, 9)
      Matrix expected(9, std::vector<real>(9, 0));
      for (int64_t r = 0; r < 9; ++r)
        for (int64_t col = 0; col < 9; ++col)
          expected[r][col] = head >= 0 ? w[(head * 9 + r) * 9 + col] : (w[r * 9 + col] + w[(81 + r * 9 + col)]) / 2;
      CHECK(max_diff(f.weights, expected) <= tol(1e-12));
      for (int64_t r = 0; r < 9; ++r)  // causal: nothing above the diagonal
        for (int64_t col = r + 1; col < 9; ++col) CHECK(f.weights[r][col] == 0);
      // The values: in-context loss, log V, then every head's two scores, the numbers of
      // head_scores and repeat_halves_loss on the same held-out sequences.
      const std::vector<HeadScore> scores = head_scores(model, task, 7, 99);
      const HalvesLoss loss = repeat_halves_loss(model, task, 7, 99);
      REQUIRE(f.values.size() == 2 + 2 * scores.size());
      CHECK(f.values[0] == loss.in_context);
      CHECK(f.values[1] == doctest::Approx(std::log(6.0)).epsilon(tol(1e-12)));
      for (size_t i = 0; i < scores.size(); ++i) {
        CHECK(f.values[2 + 2 * i] == scores[i].previous_token);
        CHECK(f.values[3 + 2 * i] == scores[i].induction);
      }
      const real induction = head >= 0 ? scores[static_cast<size_t>(head)].induction
                                       : (scores[0].induction + scores[1].induction) / 2;
      CHECK(f.exact == doctest::Approx(induction).epsilon(tol(1e-12)));
      CHECK(f.note.find("step 30  \u00b7  loss 1.5000") == 0);
      CHECK(f.note.find("induction " + two(induction)) != std::string::npos);
      CHECK(maker.film().columns.size() == f.values.size());
      CHECK(maker.film().columns[7] == "layer1_head0_induction");
    }
  }

  TEST_CASE("heed train --model decoder --film: that head on the film's sequence; notes name the scores; resume keeps it") {
    Scratch s("decoder-film");
    const std::string m = s.path("m.safetensors"), film = s.path("f.html");
    // Stopped half-way (as by Ctrl-C): the hint repeats the choice of head.
    CliRun r = s.heed_with_faults(kRun + " --save " + m + " --film " + film + " --layer 1 --head 0", "HEED_FAULT_SIGNAL=INT@100");
    INFO(r.out << r.err);
    REQUIRE(r.status == 130);
    CHECK(r.err.find("resume with: " + build_dir() + "/heed-faults train --resume " + m + " --film " + film +
                     " --watch-every 50 --attention decoder --layer 1 --head 0\n") != std::string::npos);
    const std::string half = slurp(film);
    const Film earlier = read_film(half);
    CHECK(earlier.shows == kShows);
    REQUIRE(earlier.frames.size() == 3);  // steps 0, 50, 100

    // Another head, or the default (the last layer's mean), would mix two matrices: refused.
    for (const char* other : {"", " --layer 1 --head 1", " --layer 0 --head 0"}) {
      CliRun bad = s.heed("train --resume " + m + " --film " + film + " --watch-every 50" + other);
      INFO("--resume with '" << other << "' -> " << bad.status << ": " << bad.err);
      CHECK(bad.status == 2);
      CHECK(bad.err.find("--film " + film + ": the file exists and films " + kShows + ", this run ") !=
            std::string::npos);
      CHECK(slurp(film) == half);
    }

    r = s.heed("train --resume " + m + " --film " + film + " --watch-every 50 --attention decoder --layer 1 --head 0");
    REQUIRE(r.status == 0);
    const std::string page = slurp(film);
    CHECK(page.find("\"steps\":[0,50,100,150,200]") != std::string::npos);
    // Filming only reads the model: the same run without a film (and never stopped) saves the same bytes.
    REQUIRE(s.heed(kPlain + " --save " + s.path("straight.safetensors")).status == 0);
    CHECK(slurp(s.path("straight.safetensors")) == slurp(m));
    CHECK(page.find(std::string("<title>decoder-only model, ") + kShows + ", learning repeat</title>") !=
          std::string::npos);
    CHECK(page.find("induction score, layer 1, head 0</text>") != std::string::npos);  // the lower curve's title
    CHECK(page.find("position predicting the next") != std::string::npos);
    const Film done = read_film(page);
    REQUIRE(done.frames.size() == 5);
    for (size_t k = 0; k < 3; ++k) {  // the frames before the stop, kept as they were
      CHECK(done.frames[k].values == earlier.frames[k].values);
      CHECK(done.frames[k].weights == earlier.frames[k].weights);
    }
    CHECK(done.frames[1].note == earlier.frames[1].note);
    // The resumed run retakes step 100, where it starts: the same model, no training loss yet.
    CHECK(done.frames[2].note.find("step 100  \u00b7  loss \u2013") == 0);

    // The rows and columns: BOS and the film's sequence, a segment of 5 (the middle of 4 .. 6) twice.
    RepeatTask task(8, 4, 6);
    const Example e = film_sequence(task);
    std::vector<int64_t> ids = {Vocab::kBos};
    ids.insert(ids.end(), e.tgt.begin(), e.tgt.end());
    REQUIRE(ids.size() == 11);
    std::vector<std::string> tokens;
    for (int64_t id : ids) tokens.push_back(task.tgt_vocab().token(id));
    CHECK(done.source == tokens);
    CHECK(done.reference == tokens);

    // The last frame (step 200) is the saved model's layer 1 head 0, to the thousandth the page keeps.
    std::unique_ptr<DecoderModel> model = load_decoder(m);
    std::vector<Var> weights;
    model->hidden(ids, 1, 11, {11}, &weights);
    const Matrix own = head_matrix(weights[1].value(), 0, 0);
    const FilmFrame& last = done.frames.back();
    REQUIRE(last.step == 200);
    CHECK(max_diff(last.weights, thousandths(own)) <= tol(1e-12));
    // ... and not the other head's, nor layer 0's.
    CHECK(max_diff(last.weights, thousandths(head_matrix(weights[1].value(), 0, 1))) > 0.01);
    CHECK(max_diff(last.weights, thousandths(head_matrix(weights[0].value(), 0, 0))) > 0.01);

    // Each frame's note names its step, the head's two scores and the in-context loss, the
    // numbers the frame keeps (columns: in_context_loss, log_v, then layer by layer, head by head).
    REQUIRE(done.columns.size() == 10);
    CHECK(done.columns[6] == "layer1_head0_previous_token");
    CHECK(done.columns[7] == "layer1_head0_induction");
    for (const FilmFrame& f : done.frames) {
      INFO(f.note);
      CHECK(f.note.find("step " + std::to_string(f.step) + "  \u00b7") == 0);
      CHECK(f.note.find("layer 1 head 0: induction " + two(f.values[7]) + ", previous-token " + two(f.values[6])) !=
            std::string::npos);
      char loss[40];
      std::snprintf(loss, sizeof loss, "in-context loss %.3f", f.values[0]);
      CHECK(f.note.find(loss) != std::string::npos);
      CHECK(std::abs(f.exact - f.values[7]) <= 5e-4 * f.values[7]);  // the lower curve: that head's induction score (4 digits kept)
    }
    CHECK(page.find("new MutationObserver(note)") != std::string::npos);  // the page shows the notes

    // heed eval --film: the phase change read off the film, and its numbers as CSV.
    const std::string csv = s.path("scores.csv");
    CliRun ev = s.heed("eval --film " + film + " --csv " + csv);
    INFO(ev.err);
    REQUIRE(ev.status == 0);
    std::vector<int64_t> steps;
    std::vector<real> in_context, induction;
    for (const FilmFrame& f : done.frames) {
      steps.push_back(f.step);
      in_context.push_back(f.values[0]);
      induction.push_back(f.values[7]);
    }
    auto when = [](int64_t step) { return step < 0 ? std::string("never") : "step " + std::to_string(step); };
    CHECK(ev.out.find("in-context loss below half of log V (" ) != std::string::npos);
    CHECK(ev.out.find("): " + when(first_step_below(steps, in_context, done.frames[0].values[1] / 2)) + " (from") !=
          std::string::npos);
    char row[80];
    std::snprintf(row, sizeof row, "    1     0  %16s  (%.3f)", when(first_step_reaching(steps, induction, 0.5)).c_str(),
                  induction.back());
    CHECK(ev.out.find(row) != std::string::npos);
    const std::string table = slurp(csv);
    CHECK(count_lines(table) == 6);  // the header and 5 snapshots
    CHECK(table.find("step,loss,in_context_loss,log_v,layer0_head0_previous_token,") == 0);
    CHECK(table.find("\n200,") != std::string::npos);
    CHECK(table == film_csv(done));
  }

  TEST_CASE("heed eval --heads --svg: every layer's and head's matrix, one panel each, titled by its scores") {
    Scratch s("decoder-heads-svg");
    const std::string m = s.path("m.safetensors"), svg = s.path("heads.svg");
    REQUIRE(s.heed("train " + kModel + "--batch 8 --steps 20 --eval-samples 5 --save " + m).status == 0);
    CliRun r = s.heed("eval --load " + m + " --heads --samples 20 --json --svg " + svg);
    INFO(r.err);
    REQUIRE(r.status == 0);
    const std::string picture = slurp(svg);
    const Json j = r.json();
    const Json::Array& heads = j.find("heads")->as_array();
    REQUIRE(heads.size() == 4);  // 2 layers x 2 heads
    // Each panel's title (its label is written twice: the text drawn, and the panel's <title>).
    int labels = 0;
    for (size_t at = picture.find(": induction "); at != std::string::npos; at = picture.find(": induction ", at + 1))
      ++labels;
    CHECK(labels == 2 * 4);
    for (const Json& h : heads) {
      const std::string label = "layer " + std::to_string(h.find("layer")->as_int()) + ", head " +
                                std::to_string(h.find("head")->as_int()) + ": induction " +
                                two(h.find("induction")->as_real()) + ", previous-token " +
                                two(h.find("previous_token")->as_real());
      INFO(label);
      CHECK(picture.find(label) != std::string::npos);
    }
    CHECK(picture.find("position looked at") != std::string::npos);
  }

  TEST_CASE("heed train --model decoder --watch: the terminal view draws the head, its scores above it") {
    if (test::tools_missing({"script", "stty"}, "the terminal test (a faked terminal)", "apt-get install util-linux coreutils")) return;
    Scratch s("decoder-watch-tty");
    std::string cmd = "script -qec 'stty rows 40 cols 120; " + runner() + build_dir() + "/heed train " + kModel +
                      "--batch 8 --steps 20 --eval-samples 5 --watch --watch-every 10 --head 1' /dev/null >" +
                      s.path("tty.txt") + " 2>&1";
    REQUIRE(std::system(cmd.c_str()) == 0);
    const std::string tty = slurp(s.path("tty.txt"));
    for (const char* step : {"step 0  \u00b7  loss \u2013  \u00b7  layer 1 head 1: induction ", "step 20  \u00b7  loss "}) {
      const size_t at = tty.find(step);
      REQUIRE(at != std::string::npos);
      const size_t next = tty.find('\n', at) + 1;
      const std::string line = tty.substr(next, tty.find('\n', next) - next);
      INFO(line);
      CHECK(line.find("decoder self-attention, layer 1 (of 0-1), head 1 (of 0-1) of the fixed sequence:") == 0);
    }
  }

  TEST_CASE("the film and the pictures of a decoder: what does not apply is refused in one line, status 2") {
    Scratch s("decoder-film-bad");
    const std::string film = s.path("f.html"), m = s.path("m.safetensors");
    const std::string t = "train " + kModel + "--steps 100000 ";
    const std::string bad[][2] = {
        {t + "--film " + film + " --attention cross",
         "--attention cross: --model decoder has one attention, its causal self-attention"},
        {t + "--watch --attention encoder", "--attention encoder: --model decoder has one attention"},
        {t + "--film " + film + " --head all", "--head all: --film and --watch draw one matrix per snapshot"},
        {t + "--film " + film + " --layer 2", "--layer 2: this model has 2 layers, numbered 0 to 1"},
        {t + "--film " + film + " --head 2", "--head 2: this model has 2 heads in each layer, numbered 0 to 1"},
        {t + "--layer 1", "--layer 1: heed train draws a chosen layer and head only with --film FILE or --watch"},
        {"eval --csv " + s.path("x.csv") + " --load " + m, "--csv is for --film FILE"},
        {"eval --load " + m + " --svg " + s.path("x.svg"), "--svg draws the heads: give --heads too"},
        {"eval --film " + film + " --load " + m, "--load does not apply to --film"},
        {"eval --film " + s.path("none.html"), "--film " + s.path("none.html") + ": "},
    };
    refused_in_one_line(s, bad);
    CHECK(slurp(film).empty());
    // A film of an encoder-decoder model keeps no head scores.
    const std::string other = s.path("additive.html");
    REQUIRE(s.heed("train --steps 4 --batch 4 --eval-samples 2 --watch-every 2 --film " + other).status == 0);
    const std::string bad_film[][2] = {{"eval --film " + other, "the film keeps no head scores"}};
    refused_in_one_line(s, bad_film);
  }
}
