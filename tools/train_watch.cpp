#include "tools/train_watch.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "io/atomic_file.h"
#include "io/os.h"
#include "io/paths.h"
#include "io/utf8.h"
#include "models/decoder_model.h"
#include "models/analysis/heads.h"
#include "models/tasks/text.h"
#include "tools/common.h"  // format_duration
#include "viz/heatmap.h"
#include "viz/svg.h"

namespace heed {

namespace {

// The terminal lines `text` takes, wrapping at `columns` (every code point one column wide,
// true of the heatmap's shades and of the tokens of heed's tasks).
int screen_lines(const std::string& text, int columns) {
  int lines = 0, width = 0;
  for (char c : text) {
    if (c == '\n') {
      lines += width == 0 ? 1 : (width + columns - 1) / columns;
      width = 0;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++width;
    }
  }
  return lines;
}

}  // namespace

WatchPlan parse_watch_flags(const Args& a, const ModelConfig& c) {
  WatchPlan plan;
  plan.watch = a.has("--watch");
  plan.film = a.text("--film", "");
  plan.force = a.has("--force");
  if (a.has("--film") && plan.film.empty()) throw a.error("--film needs a file name");
  plan.every = a.integer("--watch-every", kDefaultWatchEvery, 1, 100000000);
  if (a.has("--watch-every") && !plan.any()) throw a.error("--watch-every needs --watch or --film");
  if (plan.any() && !c.has_attention())
    throw a.error(std::string(plan.film.empty() ? "--watch" : "--film") +
                  ": the plain model has no attention matrix to show (it reads only the encoder's last state); "
                  "choose --model additive, general, dot, scaled, cosine or location");
  return plan;
}

void choose_film_heads(const Args& a, const ModelConfig& c, WatchPlan& plan) {
  if (!head_flags_given(a)) return;
  const std::string flag = a.has("--attention") ? "--attention" : a.has("--layer") ? "--layer" : "--head";
  const std::string given = flag + " " + a.text(flag, "");
  if (!plan.any())
    throw a.error(given + ": heed train draws a chosen layer and head only with --film FILE or --watch; " +
                  (c.is_decoder() ? std::string("heed eval --load FILE --heads --svg FILE draws every head")
                                  : "heed predict --load FILE " + given + " draws it") +
                  " from a saved model");
  const std::string kind = c.is_decoder() && !a.has("--attention") ? "decoder" : attention_kind(a);
  const bool all_heads = a.text("--head", "") == "all";
  if (c.is_decoder()) {  // one attention to film: the causal self-attention, the sequence over itself
    if (kind != "decoder")
      throw a.error("--attention " + kind + ": --model decoder has one attention, its causal self-attention; give "
                    "--attention decoder or leave --attention out");
    if (all_heads)
      throw a.error("--head all: --film and --watch draw one matrix per snapshot, so give --head K, numbered 0 to " +
                    std::to_string(c.heads - 1) + " (or leave --head out for their mean); heed eval --load FILE "
                    "--heads --svg FILE draws every head as one grid from the saved model");
    plan.heads = choose_heads(a, c, kind, false);
    return;
  }
  HeadChoice h = choose_heads(a, c, kind, all_heads);  // a recurrent model, a value out of range
  // A film's page draws one matrix of output tokens x source tokens per snapshot; the
  // self-attentions (source x source, or x the decoder's inputs, which change from snapshot to
  // snapshot) and a grid of heads are heed predict's, from the saved model.
  if (kind != "cross")
    throw a.error("--attention " + kind + ": --film and --watch draw output tokens x source tokens, the "
                  "cross-attention (--attention cross); heed predict --load FILE --attention " + kind +
                  " draws the " + kind + "'s self-attention from the saved model");
  if (all_heads)
    throw a.error("--head all: --film and --watch draw one matrix per snapshot, so give --head K, numbered 0 to " +
                  std::to_string(c.heads - 1) + " (or leave --head out for their mean); heed predict --load FILE "
                  "--head all draws every head as one grid from the saved model");
  plan.heads = h;
}

Watcher::Watcher(const WatchPlan& plan, const Task& task, const ModelConfig& config, const TrainOptions& opt,
                 int64_t seed)
    : plan_(plan) {
  if (!plan.film.empty()) {
    try {
      check_writable(plan.film, plan.force);
    } catch (const Error& e) {
      throw Error(std::string("heed train: --film: ") + e.what());
    }
  }
  terminal_ = plan.watch && os::is_terminal(1);
  progress_ = terminal_ && os::is_terminal(2);  // else the progress lines go where stderr goes, as without --watch
  if (config.is_decoder()) {
    // A decoder-only model: its fixed sequence attending to itself, layer L's head K (by default
    // the last layer's mean of the heads), with the head's scores and the in-context loss
    // (models/analysis/heads.h's HeadFilmMaker). The title names the layer and head always, so that a
    // resumed run continues the film only with the same choice.
    const auto* repeat = dynamic_cast<const RepeatTask*>(&task);
    const auto* text = dynamic_cast<const TextTask*>(&task);
    if (text) {  // segments of half a window, so that a segment and its repeat fit the context
      const int64_t n = std::max<int64_t>(1, text->options().context / 2);
      text_repeat_ = std::make_unique<RepeatTask>(text->tgt_vocab().size() - Vocab::kNumSpecials, n, n);
      repeat = text_repeat_.get();
    }
    if (!repeat)
      throw Error("heed train: --film: --model decoder is filmed on --task repeat or a text, not " + task.name());
    HeadChoice choice;
    if (plan.heads) {
      choice = *plan.heads;
    } else {
      choice.kind = "decoder";
      choice.layers = config.layers;
      choice.heads = config.heads;
      choice.layer = config.layers - 1;
    }
    heads_.emplace(*repeat, config, choice.layer, choice.head, plan.every);
    Film& film = heads_->film();
    film.shows = choice.describe();
    film.title = "decoder-only model, " + film.shows + ", learning " + (text ? "a text" : "repeat");
    if (text) {
      // The film's sequence in the text's own tokens, and the ICL score at every snapshot on the
      // first kWatchHeldOut windows of the validation text (of the training text without one).
      film.source.clear();
      for (int64_t id : heads_->ids()) film.source.push_back(text->tgt_vocab().token(id));
      film.reference = film.source;
      const std::vector<int64_t>& tokens =
          static_cast<int64_t>(text->valid_tokens().size()) >= text->options().context ? text->valid_tokens()
                                                                                         : text->train_tokens();
      heads_->add_column("icl_score", [text, &tokens](const Model& m) {
        return icl_score(position_loss(m, *text, tokens, kWatchHeldOut).by_position);
      });
    }
  } else {
    maker_.emplace(task, config.model, plan.every);
  }
  Film& film = this->film();
  // The transformer's frames show, by default, its last decoder layer's cross-attention averaged
  // over heads, as the decoder computed it step by step; with --layer/--head the matrix chosen,
  // read in one teacher-forced pass over the tokens the model wrote (heed predict's reading).
  // The title says which.
  if (!heads_ && plan.heads) {
    const HeadChoice choice = *plan.heads;
    maker_->set_matrix([choice](const Model& m, const std::vector<int64_t>& src, const std::vector<int64_t>& output) {
      return head_panels(m.attention_maps(src, output), choice).front().front().weights;
    });
    film.shows = choice.describe();
    film.title = config.model + " " + film.shows + ", learning " + task.name();
  } else if (!heads_) {
    film.title = config.model + " " + config.step_weights_name() + " learning " + task.name();
  }
  film.caption = "heed train --task " + task.name() + " " + model_flags(config) + " --batch " + std::to_string(opt.batch) +
                  " --steps " + std::to_string(opt.steps) + " --seed " + std::to_string(seed) +
                  (plan.heads ? plan.heads->flags() : "") + "; a snapshot every " +
                  std::to_string(plan.every) + " steps; " +
                  (heads_ ? "scores and in-context loss on " + std::to_string(kWatchHeldOut) + " held-out sequences"
                          : "exact accuracy on " + std::to_string(kWatchHeldOut) + " held-out sources");
}

Film& Watcher::film() { return heads_ ? heads_->film() : maker_->film(); }

const FilmFrame* Watcher::take_start(const Model& model, int64_t step) {
  if (heads_) return heads_->start(model, step);
  return maker_->start(model, step);
}

const FilmFrame* Watcher::take_step(const Model& model, const Progress& p) {
  if (heads_) return heads_->on_step(model, p);
  return maker_->on_step(model, p);
}

void Watcher::continue_film(int64_t step) {
  std::error_code ec;
  if (plan_.film.empty() || output_stream(plan_.film) >= 0 || !std::filesystem::exists(plan_.film, ec))
    return;  // a new film (a stream is written, never read back)
  const std::string refused = "heed train: --film " + plan_.film + ": the file exists and ";
  Film earlier;
  try {
    check_regular_input(plan_.film, "read");
    std::ifstream in(plan_.film, std::ios::binary);
    earlier = read_film(std::string(std::istreambuf_iterator<char>(in), {}));
  } catch (const Error& e) {
    throw Error(refused + "is not a film heed can continue (" + e.what() + "); give another file name");
  }
  Film& film = this->film();
  if (earlier.source != film.source || earlier.reference != film.reference)
    throw Error(refused + "films another example; give another file name");
  if (earlier.shows != film.shows) {  // another layer or head: give the flags it was made with
    auto what = [](const std::string& shows) {
      return shows.empty() ? std::string("the decoder's own attention (no --attention, --layer or --head)") : shows;
    };
    throw Error(refused + "films " + what(earlier.shows) + ", this run " + what(film.shows) +
                "; give the flags the film was made with, or another file name");
  }
  std::erase_if(earlier.frames, [&](const FilmFrame& f) { return f.step >= step; });  // retaken from here on
  film.frames = std::move(earlier.frames);
  if (!film.frames.empty())
    std::printf("continuing the film %s (%zu snapshots, to step %lld)\n", terminal_safe(plan_.film).c_str(),
                film.frames.size(), static_cast<long long>(film.frames.back().step));
}

void Watcher::start(const Model& model, int64_t step) {
  const FilmFrame* f = take_start(model, step);
  if (terminal_) draw(*f);
  if (plan_.film.empty()) film().frames.clear();  // --watch alone keeps nothing
}

void Watcher::on_step(const Model& model, const Progress& p) {
  const FilmFrame* f = take_step(model, p);
  if (f && terminal_) draw(*f);
  if (plan_.film.empty()) film().frames.clear();
  if (!progress_) return;
  const real rate = p.seconds > 0 ? p.step / p.seconds : 0;
  char line[200];
  std::snprintf(line, sizeof line, "step %lld/%lld  loss %.4f  acc %.3f  %.1f steps/s  %s left",
                static_cast<long long>(p.step), static_cast<long long>(p.steps), p.loss, p.accuracy, rate,
                format_duration(rate > 0 ? (p.steps - p.step) / rate : 0).c_str());
  std::string text = line;
  text.resize(std::min<std::size_t>(text.size(), os::terminal_size().columns - 1));  // ASCII: one column each
  std::printf("\r%s\x1b[K%s", text.c_str(), p.step == p.steps ? "\n" : "");
  std::fflush(stdout);
}


// Redraws in place: up to the first line of the last drawing (the progress bar, on stderr, sits
// on the line below it), then each line over the old one, clearing what is left.
void Watcher::draw(const FilmFrame& f) {
  char loss[32] = "-", head[480];
  if (std::isfinite(f.loss)) std::snprintf(loss, sizeof loss, "%.4f", f.loss);
  if (!f.note.empty())  // a decoder-only model: the step, loss, the head's scores and the in-context loss
    std::snprintf(head, sizeof head, "%s\n%s of the fixed sequence:\n", f.note.c_str(), film().shows.c_str());
  else
    std::snprintf(head, sizeof head, "step %lld  loss %s  held-out exact %.2f   %s of the fixed example:\n",
                  static_cast<long long>(f.step), loss, f.exact, plan_.heads ? plan_.heads->describe().c_str() : "attention");
  std::string text = head + terminal_heatmap(film().source, f.output, f.weights, true);
  const os::TerminalSize size = os::terminal_size();
  const int lines = screen_lines(text, size.columns);
  if (lines + 1 > size.rows)  // with the progress bar below: taller than the screen, no redraw in place
    text = std::string(head) + "(the matrix needs " + std::to_string(lines) + " lines; the terminal has " +
           std::to_string(size.rows) + ")\n";
  std::string out = "\r";
  if (drawn_lines_ > 0) out += "\x1b[" + std::to_string(drawn_lines_) + "A";
  for (std::size_t i = 0, nl; i < text.size(); i = nl + 1) {
    nl = text.find('\n', i);
    out += text.substr(i, nl - i) + "\x1b[K\n";
  }
  out += "\x1b[J";
  std::fflush(stderr);
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  drawn_lines_ = screen_lines(text, size.columns);
}

real median_snapshot_ms(const Task& task, const Model& model, int64_t repeats, real* cpu_ms) {
  AttentionWatch watch(task, model.config().model);
  auto cpu_now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<real>(ts.tv_sec) * 1e3 + static_cast<real>(ts.tv_nsec) / 1e6;
  };
  std::vector<real> ms, cpu;
  for (int64_t i = 0; i < std::max<int64_t>(1, repeats); ++i) {
    real c0 = cpu_now();
    auto t0 = std::chrono::steady_clock::now();
    FilmFrame f = watch.take(model, i, 0);
    ms.push_back(std::chrono::duration<real, std::milli>(std::chrono::steady_clock::now() - t0).count());
    cpu.push_back(cpu_now() - c0);
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu.begin(), cpu.end());
  *cpu_ms = cpu[cpu.size() / 2];
  return ms[ms.size() / 2];
}

Watcher::~Watcher() {
  if (finished_ || plan_.film.empty() || film().frames.size() < 2) return;
  try {
    const Film& film = this->film();
    write_text_file(plan_.film, html_film(film));
    std::printf("wrote the film so far (%zu snapshots, to step %lld) to %s\n", film.frames.size(),
                static_cast<long long>(film.frames.back().step), terminal_safe(plan_.film).c_str());
    std::fflush(stdout);
  } catch (const Error&) {
    // The error that stopped the run is the one to report.
  }
}

void Watcher::finish() {
  finished_ = true;
  if (plan_.film.empty()) return;
  const Film& film = this->film();
  write_text_file(plan_.film, html_film(film));
  std::printf("wrote the film (%zu snapshots) to %s\n", film.frames.size(), terminal_safe(plan_.film).c_str());
}

}  // namespace heed
