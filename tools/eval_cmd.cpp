// heed eval: accuracy by length of a saved model (a decoder-only model: its loss on each copy of
// repeat, its heads, the phase change of its film). heed predict is in predict_cmd.cpp.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "io/atomic_file.h"
#include "io/json.h"
#include "io/paths.h"
#include "models/tasks/data.h"
#include "models/decoder_model.h"
#include "models/evaluate.h"
#include "models/analysis/heads.h"
#include "models/tasks/text.h"
#include "models/tasks/translate.h"
#include "tensor/math.h"
#include "tools/common.h"
#include "tools/circuits_report.h"  // --heads: the circuit scores
#include "tools/head_flags.h"  // --attention, --layer, --head
#include "viz/film.h"
#include "viz/heatmap.h"
#include "viz/svg.h"

namespace heed {

namespace {

const char* kEvalHelp =
    "usage: heed eval --load FILE [flags]\n"
    "\n"
    "Greedy decoding of fresh sequences of each source length (exactly L+1 steps), scored as\n"
    "exact (all L symbols and the EOS right) and token (the fraction of the L symbols right).\n"
    "\n"
    "  --load FILE        a model saved by heed train --save\n"
    "  --lengths 5,10,20  source lengths to score (the task's training range)\n"
    "  --samples N        sequences per length (500)\n"
    "  --seed N           seed of the evaluation sequences (1)\n"
    "  --data FILE        a model trained with --data: score this file of source<TAB>target pairs\n"
    "                     instead (exact, token, BLEU and perplexity; pairs longer than the model's\n"
    "                     --max-len skipped and counted; words it never saw read as <unk>)\n"
    "  --json             end stdout with one JSON object: by_length: [{length, exact, token, n}]\n"
    "                     (with --data: pairs, skipped, exact, token, bleu, perplexity)\n"
    "\n"
    "A decoder-only model trained on --task repeat is scored by its loss on each copy instead: the\n"
    "first, the repeated one, and the repeated one from its 2nd symbol (the part a model can read\n"
    "off the first copy), against log V.\n"
    "  --heads            also score every layer and head: its previous-token score (attention\n"
    "                     from t to t-1), its induction score (from the second copy's s_k to the\n"
    "                     first copy's s_k+1), and the repeated copy's loss with that head's\n"
    "                     output zeroed (models/analysis/heads.h)\n"
    "  --svg FILE         with --heads: also draw every layer's and head's attention on one repeat\n"
    "                     sequence (the one heed train --film shows) as one grid, layers down and\n"
    "                     heads across, each panel titled by its two scores\n"
    "                     then the circuit scores of every head (models/analysis/circuits.h): prefix matching,\n"
    "                     copying (eigenvalue positivity of its OV circuit W_U W_O W_V W_E), direct\n"
    "                     logit attribution, whether it is an induction head (both), and the Q-, K- and\n"
    "                     V-composition of every pair of heads of two layers beside random heads'\n"
    "  --scores-svg FILE  with --heads: also draw those scores as heatmaps, layers down and heads\n"
    "                     across, one per score, and one composition matrix per pair of layers\n"
    "  --force            replace --svg, --scores-svg (or --csv) even when it is write-protected\n"
    "\n"
    "A decoder-only model trained on your own text (heed train --model decoder --data FILE.txt) is\n"
    "scored on --data FILE.txt (read with the model's tokens and vocabulary; the training text\n"
    "itself, or another): its loss at each position k = 1 .. N of consecutive windows of the\n"
    "model's context N from the start of the file, -log p(t_k | t_1 .. t_k-1), and Olsson et\n"
    "al. (2022)'s in-context learning score, the loss at a late position minus the loss at an early\n"
    "one: their tokens 500 and 50 of 512, scaled to N as round(500 N / 512) and round(50 N / 512).\n"
    "  --samples N        text: the most windows scored (500)\n"
    "  --json             text: loss, icl_score, icl_early, icl_late, windows, unknown and\n"
    "                     loss_by_position (every position, 1 .. N)\n"
    "\n"
    "A decoder-only model of another toy task or translate reads <bos> source <sep> and is scored\n"
    "on what it writes after <sep>, by length like the other models. One of --task german is scored by its loss per token\n"
    "on held-out sentences (and perplexity) and by how many of --samples sentences it draws (from\n"
    "<bos>, temperature 1) are sentences of the grammar.\n"
    "\n"
    "usage: heed eval --film FILE [--csv FILE]\n"
    "\n"
    "The phase change of a film heed train --model decoder --film wrote: the step at which the\n"
    "in-context loss first fell below half of log V, and the step at which each head's induction\n"
    "score first reached 0.5 (Olsson et al. 2022 see the two together).\n"
    "  --csv FILE         also write every snapshot's numbers as CSV to plot: step, training loss,\n"
    "                     in-context loss, log V, and each head's previous-token and induction score\n";

// heed eval --film FILE [--csv FILE]: the phase change read off a decoder-only model's film.
int eval_film(const Args& a) {
  for (const char* flag : {"--load", "--lengths", "--samples", "--seed", "--data", "--svg"})
    if (a.has(flag)) throw a.error(std::string(flag) + " does not apply to --film: the film holds the numbers");
  if (a.has("--heads") || a.has("--json")) throw a.error(std::string(a.has("--heads") ? "--heads" : "--json") +
                                                         " does not apply to --film");
  const std::string path = a.text("--film", ""), csv = a.text("--csv", "");
  check_no_collisions({{"--film", path, false}, {"--csv", csv, true}}, "heed eval");
  if (!csv.empty()) check_writable(csv, a.has("--force"));
  Film film;
  try {
    check_regular_input(path, "read");
    std::ifstream in(path, std::ios::binary);
    film = read_film(std::string(std::istreambuf_iterator<char>(in), {}));
  } catch (const Error& e) {
    throw a.error("--film " + path + ": " + e.what());
  }
  const std::vector<std::string>& cols = film.columns;
  if (cols.size() < 2 || cols[0] != "in_context_loss" || cols[1] != "log_v")
    throw a.error("--film " + path + ": the film keeps no head scores (only heed train --model decoder --film "
                  "writes them)");
  std::vector<int64_t> steps;
  for (const FilmFrame& f : film.frames) steps.push_back(f.step);
  auto column = [&](size_t c) {
    std::vector<real> v;
    for (const FilmFrame& f : film.frames) v.push_back(f.values[c]);
    return v;
  };
  const std::vector<real> loss = column(0);
  const real log_v = film.frames.front().values[1], level = kLossFractionOfLogV * log_v;
  std::printf("%s: %zu snapshots, steps %lld to %lld (%s)\n", terminal_safe(path).c_str(), film.frames.size(),
              static_cast<long long>(steps.front()), static_cast<long long>(steps.back()),
              terminal_safe(film.shows).c_str());
  auto when = [](int64_t step) { return step < 0 ? std::string("never") : "step " + std::to_string(step); };
  const int64_t loss_step = first_step_below(steps, loss, level);
  std::printf("in-context loss below half of log V (%.4f): %s (from %.4f at step %lld to %.4f at step %lld)\n", level,
              when(loss_step).c_str(), loss.front(), static_cast<long long>(steps.front()), loss.back(),
              static_cast<long long>(steps.back()));
  // A model of a text: its in-context learning score at each snapshot (tools/train_watch.h).
  const auto icl = std::find(cols.begin(), cols.end(), "icl_score");
  if (icl != cols.end()) {
    const std::vector<real> score = column(static_cast<size_t>(icl - cols.begin()));
    const size_t best = static_cast<size_t>(std::min_element(score.begin(), score.end()) - score.begin());
    std::printf("in-context learning score on the text: %.4f at step %lld, %.4f at step %lld (lowest %.4f at step %lld)\n",
                score.front(), static_cast<long long>(steps.front()), score.back(), static_cast<long long>(steps.back()),
                score[best], static_cast<long long>(steps[best]));
  }
  std::printf("\nlayer  head  induction >= %.1f  (its score at the last snapshot)\n", kScoreLevel);
  const std::string suffix = "_induction";
  for (size_t c = 2; c < cols.size(); ++c) {
    if (cols[c].size() < suffix.size() || cols[c].compare(cols[c].size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    long long layer = 0, head = 0;
    if (std::sscanf(cols[c].c_str(), "layer%lld_head%lld", &layer, &head) != 2)
      throw a.error("--film " + path + ": a column named '" + cols[c] + "'");
    const std::vector<real> score = column(c);
    std::printf("%5lld  %4lld  %16s  (%.3f)\n", layer, head, when(first_step_reaching(steps, score, kScoreLevel)).c_str(),
                score.back());
  }
  if (!csv.empty()) {
    write_text_file(csv, film_csv(film));
    std::printf("wrote %s\n", terminal_safe(csv).c_str());
  }
  return 0;
}

// heed eval --load F --data FILE.txt for a model of a text: the loss by position in the window
// and the in-context learning score (models/tasks/text.h).
int eval_text(const Args& a, const Model& model, const TextTask& task) {
  for (const char* flag : {"--lengths", "--seed", "--heads", "--svg"})
    if (a.has(flag))
      throw a.error(std::string(flag) + " does not apply to a model of a text: it is scored by its loss at each position");
  if (!a.has("--data"))
    throw a.error(a.text("--load", "") + " was trained on a text: give the text to score with --data FILE.txt");
  const std::string path = a.text("--data", "");
  const int64_t samples = a.integer("--samples", 500, 1, 1000000);
  int64_t unknown = 0;
  std::vector<int64_t> tokens;
  try {
    tokens = task.read_eval_file(path, &unknown);
  } catch (const Error& e) {
    throw a.error(std::string("--data: ") + e.what());
  }
  const int64_t N = task.options().context;
  const PositionLoss r = position_loss(model, task, tokens, samples);
  const IclPositions p = icl_positions(N);
  const real icl = icl_score(r.by_position);
  std::printf("%s on %s: %lld windows of %lld %s from its start, teacher forced (%lld tokens, %lld of them <unk>)\n",
              model.config().describe().c_str(), terminal_safe(path).c_str(), static_cast<long long>(r.windows),
              static_cast<long long>(N), task.options().chars ? "characters" : "tokens",
              static_cast<long long>(tokens.size()), static_cast<long long>(unknown));
  std::printf("loss %.4f nats per token\n", r.mean);
  std::printf("in-context learning score %.4f: the loss at token %lld (%.4f) minus the loss at token %lld (%.4f)\n",
              icl, static_cast<long long>(p.late), r.by_position[static_cast<size_t>(p.late - 1)],
              static_cast<long long>(p.early), r.by_position[static_cast<size_t>(p.early - 1)]);
  // Positions 1, 2, 3, 4, 6, 9, 13, 19, ... (each about 1.5 times the last), the two of the
  // score and the last: the curve's shape in a few lines (--json has every position).
  std::printf("\nposition  loss\n");
  for (int64_t k = 1, shown = 0; k <= N; ++k) {
    const bool mark = k == p.early || k == p.late || k == N;
    const bool step = k == (shown < 4 ? shown + 1 : shown + shown / 2);
    if (!mark && !step) continue;
    if (step) shown = k;
    std::printf("%8lld  %.4f%s\n", static_cast<long long>(k), r.by_position[static_cast<size_t>(k - 1)],
                k == p.early ? "  (early)" : k == p.late ? "  (late)" : "");
  }
  if (a.has("--json")) {
    Json::Array by;
    for (real x : r.by_position) by.push_back(Json(x));
    std::printf("%s\n", Json::object({{"dtype", kRealName},
                                      {"threads", threads()},
                                      {"loss", r.mean},
                                      {"icl_score", icl},
                                      {"icl_early", p.early},
                                      {"icl_late", p.late},
                                      {"windows", r.windows},
                                      {"tokens", static_cast<int64_t>(tokens.size())},
                                      {"unknown", unknown},
                                      {"loss_by_position", Json(by)}})
                            .dump()
                            .c_str());
  }
  return 0;
}

}  // namespace

int cmd_eval(const std::vector<std::string>& argv) {
  Args a("eval", argv, {"--load", "--lengths", "--samples", "--seed", "--data", "--svg", "--film", "--csv", "--scores-svg"},
         {"--json", "--heads", "--help", "--force"});
  if (a.has("--help")) {
    std::fputs(kEvalHelp, stdout);
    return 0;
  }
  if (a.has("--film")) return eval_film(a);
  if (a.has("--csv")) throw a.error("--csv is for --film FILE (the numbers of a decoder-only model's film)");
  if (!a.has("--load")) throw a.error("--load FILE is required");
  if (a.has("--svg") && !a.has("--heads")) throw a.error("--svg draws the heads: give --heads too");
  if (a.has("--scores-svg") && !a.has("--heads")) throw a.error("--scores-svg draws the heads' scores: give --heads too");
  check_no_collisions({{"--load", a.text("--load", ""), false},
                       {"--data", a.text("--data", ""), false},
                       {"--svg", a.text("--svg", ""), true},
                       {"--scores-svg", a.text("--scores-svg", ""), true}},
                      "heed eval");
  if (a.has("--scores-svg")) check_writable(a.text("--scores-svg", ""), a.has("--force"));  // before any work
  if (a.has("--svg")) {
    std::error_code ec;
    const std::string svg = a.text("--svg", "");
    if (std::filesystem::is_directory(svg, ec))
      throw a.error("--svg " + svg + ": is a folder; give a file name, e.g. " +
                    (std::filesystem::path(svg) / "heads.svg").string());
    check_writable(svg, a.has("--force"));  // before any work
  }
  check_no_collisions({{"--load", a.text("--load", ""), false}, {"--data", a.text("--data", ""), false}}, "heed eval");
  LoadedModel m = load_model(a.text("--load", ""));
  check_task_vocab(m, a.text("--load", ""));  // the sequences come from the task
  if (const auto* text = dynamic_cast<const TextTask*>(m.task.get())) return eval_text(a, *m.model, *text);
  const auto* data = dynamic_cast<const DataTask*>(m.task.get());
  if (a.has("--data") && !data)
    throw a.error("--data: " + a.text("--load", "") + " was trained on task " + m.task->name() +
                  ", whose vocabulary and tokens a data file cannot be read with; train with --data first");
  if (data && !a.has("--data"))
    throw a.error(a.text("--load", "") + " was trained on a data file: give the pairs to score with --data FILE");
  const auto* repeat = dynamic_cast<const RepeatTask*>(m.task.get());
  if (a.has("--heads") && !(m.model->config().is_decoder() && repeat))
    throw a.error("--heads scores the heads of a decoder-only model on --task repeat; " + a.text("--load", "") +
                  " is a " + m.model->config().model + " model on task " + m.task->name());
  if (data) {
    for (const char* flag : {"--lengths", "--samples", "--seed"})
      if (a.has(flag)) throw a.error(std::string(flag) + " does not apply to --data: every pair of the file is scored");
    const std::string path = a.text("--data", "");
    PairSet set = data->read_eval_file(path);
    PairScore r = score_pairs(*m.model, m.tgt_vocab, set, static_cast<int64_t>(set.pairs.size()));
    const DataCounts& c = set.counts;
    std::printf("%s on %s: %lld pairs scored (%lld longer than max_len %lld skipped); <unk>: %lld of %lld source, "
                "%lld of %lld target tokens\n",
                m.model->config().model.c_str(), terminal_safe(path).c_str(), static_cast<long long>(c.pairs),
                static_cast<long long>(c.skipped), static_cast<long long>(data->options().max_len),
                static_cast<long long>(c.src_unknown), static_cast<long long>(c.src_tokens),
                static_cast<long long>(c.tgt_unknown), static_cast<long long>(c.tgt_tokens));
    std::printf("exact %.3f  token %.3f  BLEU %.4f  perplexity %.3f\n", r.acc.exact(), r.acc.token(), r.bleu,
                r.perplexity);
    if (a.has("--json"))
      std::printf("%s\n", Json::object({{"dtype", kRealName},
                                        {"threads", threads()},
                                        {"pairs", r.pairs},
                                        {"skipped", c.skipped},
                                        {"exact", r.acc.exact()},
                                        {"token", r.acc.token()},
                                        {"bleu", r.bleu},
                                        {"perplexity", r.perplexity}})
                              .dump()
                              .c_str());
    return 0;
  }
  // A decoder-only model on the repeat task: its loss on each copy (models/decoder_model.h).
  if (m.model->config().is_decoder() && repeat) {
    if (a.has("--lengths")) throw a.error("--lengths does not apply to --model decoder: it is scored by its loss");
    const int64_t samples = a.integer("--samples", 500, 1, 1000000);
    const int64_t seed = a.integer("--seed", 1, 0, INT64_MAX);
    HalvesLoss h = repeat_halves_loss(*m.model, *repeat, samples, static_cast<uint64_t>(seed));
    const real log_v = math::log(static_cast<real>(repeat->num_symbols()));
    std::printf("%s on %s: the loss on each copy, teacher forced, %lld sequences (nats per symbol)\n",
                m.model->config().describe().c_str(), m.task->name().c_str(), static_cast<long long>(samples));
    std::printf("first copy     %.4f  (%.1f %% of log V)\n", h.first, 100 * h.first / log_v);
    std::printf("repeated copy  %.4f  (%.1f %% of log V)\n", h.repeated, 100 * h.repeated / log_v);
    std::printf("  from its 2nd symbol  %.4f  (%.1f %% of log V: the in-context part; its 1st symbol is a guess)\n",
                h.in_context, 100 * h.in_context / log_v);
    std::printf("log V          %.4f  (V = %lld symbols: a model that knows nothing)\n", log_v,
                static_cast<long long>(repeat->num_symbols()));
    Json j = Json::object({{"dtype", kRealName},
                           {"threads", threads()},
                           {"loss_first", h.first},
                           {"loss_repeated", h.repeated},
                           {"loss_in_context", h.in_context},
                           {"log_v", log_v},
                           {"n", h.sequences}});
    if (a.has("--heads")) {
      // The same sequences for the scores and every ablation as for the losses above.
      Model& model = *m.model;
      std::vector<HeadScore> scores = head_scores(model, *repeat, samples, static_cast<uint64_t>(seed));
      std::vector<HeadAblation> ablations = ablate_each_head(model, *repeat, samples, static_cast<uint64_t>(seed));
      std::printf("\nheads: attention scores, and the loss with the head's output zeroed (nats per symbol)\n");
      std::printf("layer  head  previous-token  induction  repeated copy  from its 2nd symbol\n");
      Json::Array rows;
      for (size_t i = 0; i < scores.size(); ++i) {
        const HeadScore& sc = scores[i];
        const HalvesLoss& ab = ablations[i].loss;
        std::printf("%5lld  %4lld  %14.3f  %9.3f  %13.4f  %19.4f\n", static_cast<long long>(sc.layer),
                    static_cast<long long>(sc.head), sc.previous_token, sc.induction, ab.repeated, ab.in_context);
        rows.push_back(Json::object({{"layer", sc.layer},
                                     {"head", sc.head},
                                     {"previous_token", sc.previous_token},
                                     {"induction", sc.induction},
                                     {"ablated_loss_repeated", ab.repeated},
                                     {"ablated_loss_in_context", ab.in_context}}));
      }
      std::printf("(no head zeroed: %.4f and %.4f)\n", h.repeated, h.in_context);
      report_circuits(model, scores, *repeat, samples, static_cast<uint64_t>(seed),
                      rows, j, a.text("--scores-svg", ""));
      j.set("heads", Json(rows));
      if (a.has("--svg")) {
        // Every layer's and head's matrix of the film's sequence, one panel each, titled by the
        // head's scores (over the sequences above, not this one alone).
        const Example e = film_sequence(*repeat);
        std::vector<int64_t> ids = {Vocab::kBos};  // what the model reads: <bos> and the sequence
        ids.insert(ids.end(), e.tgt.begin(), e.tgt.end());
        std::vector<std::string> tokens;
        for (int64_t id : ids) tokens.push_back(m.tgt_vocab.token(id));
        std::vector<int64_t> output = e.tgt;  // what it writes after them: the sequence and <eos>
        output.push_back(Vocab::kEos);
        const std::vector<Tensor> weights = model.attention_maps({}, output).self;
        std::vector<std::vector<HeatmapPanel>> grid(weights.size());
        for (const HeadScore& sc : scores) {
          char label[120];
          std::snprintf(label, sizeof label, "layer %lld, head %lld: induction %.2f, previous-token %.2f",
                        static_cast<long long>(sc.layer), static_cast<long long>(sc.head), sc.induction,
                        sc.previous_token);
          grid[static_cast<size_t>(sc.layer)].push_back(
              {label, head_matrix(weights[static_cast<size_t>(sc.layer)], 0, sc.head)});
        }
        const std::string title = "repeat: " + m.model->config().describe() + ", every layer and head on a segment of " +
                                  std::to_string(e.src.size()) + " symbols and its repeat (scores over " +
                                  std::to_string(samples) + " sequences)";
        write_text_file(a.text("--svg", ""), svg_heatmap_grid(tokens, tokens, grid, title,
                                                             {"position looked at", "position predicting the next"}));
        std::printf("wrote %s\n", terminal_safe(a.text("--svg", "")).c_str());
      }
    }
    if (a.has("--json")) std::printf("%s\n", j.dump().c_str());
    return 0;
  }
  // A model of the German grammar: its held-out loss per token and the share of its samples
  // that the grammar produces (models/evaluate.h, score_language).
  if (const auto* german = dynamic_cast<const GermanTask*>(m.task.get())) {
    if (a.has("--lengths"))
      throw a.error("--lengths does not apply to --task german: a language model is scored by its loss and samples");
    const int64_t samples = a.integer("--samples", 500, 1, 1000000);
    const int64_t seed = a.integer("--seed", 1, 0, INT64_MAX);
    const LanguageScore s = score_language(*m.model, *german, samples, samples, static_cast<uint64_t>(seed));
    const int64_t V = m.model->config().tgt_vocab;
    std::printf("%s on german: %lld held-out sentences, teacher forced; %lld samples at temperature 1\n",
                m.model->config().describe().c_str(), static_cast<long long>(s.sentences),
                static_cast<long long>(s.samples));
    std::printf("loss        %.4f nats per token (%lld tokens: the words and each <eos>)\n", s.loss,
                static_cast<long long>(s.tokens));
    std::printf("perplexity  %.3f  (uniform guessing over the %lld ids: %lld)\n", s.perplexity,
                static_cast<long long>(V), static_cast<long long>(V));
    std::printf("samples in the grammar  %lld of %lld (%.1f %%); %lld of them held-out sentences, never trained on\n",
                static_cast<long long>(s.grammatical), static_cast<long long>(s.samples), 100 * s.grammatical_share(),
                static_cast<long long>(s.held_out));
    if (a.has("--json"))
      std::printf("%s\n", Json::object({{"dtype", kRealName},
                                        {"threads", threads()},
                                        {"loss_per_token", s.loss},
                                        {"perplexity", s.perplexity},
                                        {"sentences", s.sentences},
                                        {"samples", s.samples},
                                        {"samples_in_grammar", s.grammatical},
                                        {"samples_held_out", s.held_out}})
                              .dump()
                              .c_str());
    return 0;
  }
  std::vector<int64_t> range;
  for (int64_t L = m.task->min_len(); L <= m.task->max_len(); ++L) range.push_back(L);
  std::vector<int64_t> lengths = a.integers("--lengths", range, 1, SymbolTask::kMaxLength);
  int64_t samples = a.integer("--samples", 500, 1, 1000000);
  int64_t seed = a.integer("--seed", 1, 0, INT64_MAX);
  std::vector<Accuracy> rows = evaluate_by_length(*m.model, *m.task, lengths, samples, static_cast<uint64_t>(seed));
  std::printf("%s on %s: greedy decoding, %lld sequences per length\n", m.model->config().model.c_str(),
              m.task->name().c_str(), static_cast<long long>(samples));
  std::printf("length   exact   token\n");
  Json::Array by_length;
  for (const Accuracy& r : rows) {
    std::printf("%6lld   %5.3f   %5.3f\n", static_cast<long long>(r.length), r.exact(), r.token());
    by_length.push_back(Json::object({{"length", r.length}, {"exact", r.exact()}, {"token", r.token()}, {"n", r.n}}));
  }
  if (a.has("--json"))
    std::printf("%s\n",
                Json::object({{"dtype", kRealName}, {"threads", threads()}, {"by_length", Json(by_length)}}).dump().c_str());
  return 0;
}

}  // namespace heed
