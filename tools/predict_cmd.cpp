// heed predict: one decoded source with the attention the model paid (a decoder-only model of a
// task written as one sequence: its continuation after <sep>). heed eval is in eval_cmd.cpp.
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>

#include "io/atomic_file.h"
#include "io/json.h"
#include "io/paths.h"
#include "io/utf8.h"
#include "models/beam.h"
#include "models/tasks/data.h"
#include "models/decoder_model.h"
#include "models/evaluate.h"
#include "models/tasks/translate.h"
#include "tensor/math.h"
#include "tools/common.h"
#include "tools/head_flags.h"  // --attention, --layer, --head
#include "viz/heatmap.h"
#include "viz/html.h"
#include "viz/svg.h"

namespace heed {

namespace {

const char* kPredictHelp =
    "usage: heed predict --load FILE [flags] \"SOURCE TOKENS\"\n"
    "\n"
    "Decodes one source until <eos> (greedily, or by beam search) and shows where the model looked:\n"
    "one row per output token, one column per source token, darker = more attention. A decoder-only\n"
    "model of a toy task or translate continues <bos> source <sep> greedily (no picture, no beam).\n"
    "\n"
    "  --load FILE   a model saved by heed train --save\n"
    "  --beam K      beam search keeping the K most probable prefixes (1-100; 1, the default, is\n"
    "                greedy). Shows the hypothesis of best score = log_prob / tokens (<eos> counted)\n"
    "                and, for K > 1, lists all K best first\n"
    "  --svg FILE    also write the attention heatmap as an SVG picture\n"
    "  --html FILE   also write an attention explorer: one self-contained HTML page that works\n"
    "                offline; hover an output token to see the source tokens it attended to\n"
    "  --force       replace --svg or --html even when it is write-protected\n"
    "  --json        end stdout with one JSON object: source, output, attention, log_prob (and\n"
    "                score, with --beam; with the flags below also kind, layer and head, and for\n"
    "                --head all: heads, a matrix per layer and head)\n"
    "\n"
    "A Transformer has an attention per layer and head. Without the flags below it shows the\n"
    "cross-attention of its last decoder layer averaged over the heads, as the decoder computed it\n"
    "step by step. With any of them it reads the output again in one teacher-forced pass and draws\n"
    "the matrix asked for (layers and heads are numbered from 0, as in the weights' names):\n"
    "  --attention KIND  cross (the default: output tokens x source tokens), encoder (the\n"
    "                    encoder's self-attention, source x source) or decoder (the decoder's\n"
    "                    causal self-attention, output tokens x the decoder's inputs <bos> y1 ..)\n"
    "  --layer L     that layer (the last when not given)\n"
    "  --head K      that head (the mean of the heads when not given); --head all draws every\n"
    "                head of every layer (of layer L with --layer), one matrix each, and --svg\n"
    "                writes them as one grid, layers down and heads across\n";

// What to do about a source word the vocabulary lacks: "" when nothing better than the
// vocabulary's own list comes to mind.
std::string token_hint(const Vocab& v, const std::string& word) {
  std::string lower = word;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower != word && v.contains(lower)) return "words are lower case: write '" + lower + "'";
  // Punctuation glued to a word: "brot." -> "brot ."
  size_t end = lower.size();
  while (end > 0 && std::ispunct(static_cast<unsigned char>(lower[end - 1]))) --end;
  if (end > 0 && end < lower.size() && v.contains(lower.substr(0, end)) && v.contains(lower.substr(end)))
    return "punctuation is a token of its own: write '" + lower.substr(0, end) + " " + lower.substr(end) + "'";
  if (v.size() > Vocab::kNumSpecials && v.token(Vocab::kNumSpecials) == "0")
    return "the symbols are the numbers " + v.token(Vocab::kNumSpecials) + " to " + v.token(v.size() - 1) +
           ", separated by spaces";
  std::string all;  // a grammar's vocabulary is short enough to show whole
  for (int64_t id = Vocab::kNumSpecials; id < v.size(); ++id) all += (all.empty() ? "" : " ") + v.token(id);
  return "tokens are separated by spaces; the words this model knows: " + all;
}

// A matrix as JSON: an array of rows.
Json matrix_json(const std::vector<std::vector<real>>& m) {
  Json::Array rows;
  for (const auto& row : m) {
    Json::Array r;
    for (real w : row) r.push_back(w);
    rows.push_back(Json(r));
  }
  return Json(rows);
}

// heed predict on a decoder-only model of a task written as one sequence (OneSequenceTask): the
// greedy continuation of <bos> source <sep>, up to <eos> or 2 S + 10 tokens.
int predict_after_sep(const Args& a, const LoadedModel& m, const OneSequenceTask& task) {
  for (const char* flag : {"--svg", "--html", "--beam", "--attention", "--layer", "--head"})
    if (a.has(flag))
      throw a.error(std::string(flag) + " is not available for a decoder-only model: heed predict shows its "
                    "continuation only");
  const Vocab& v = m.src_vocab;  // one vocabulary: the source's words, the target's, <sep>
  std::vector<int64_t> src;
  try {
    src = v.encode(a.positional()[0]);
  } catch (const Error& e) {
    throw a.error(e.what());
  }
  for (int64_t id : src)
    if (id >= task.base().src_vocab().size())
      throw a.error("the source may not contain '" + v.token(id) + "': " + task.base().name() +
                    "'s sources are made of its source words (" + token_hint(task.base().src_vocab(), v.token(id)) + ")");
  const int64_t S = static_cast<int64_t>(src.size());
  const int64_t limit = m.model->config().source_limit();  // positions, <bos> included
  const int64_t steps = std::min<int64_t>(2 * S + 10, limit == INT64_MAX ? INT64_MAX : limit - S - 2);
  if (steps < 1 || S > SymbolTask::kMaxLength)
    throw a.error("the source has " + std::to_string(S) + " tokens; this model reads at most " +
                  std::to_string(std::min<int64_t>(limit - 3, SymbolTask::kMaxLength)) + " (and <bos>, <sep> and an output)");
  std::vector<int64_t> prompt = src;
  prompt.push_back(task.sep());
  const Decoded d = greedy_after(*m.model, {prompt}, steps);
  std::vector<int64_t> out;
  real log_prob = 0;
  for (size_t i = 0; i < d.tokens[0].size(); ++i) {
    log_prob += d.token_log_prob[0][i];
    if (d.tokens[0][i] == Vocab::kEos) break;
    out.push_back(d.tokens[0][i]);
  }
  std::printf("source: %s\noutput: %s\n", terminal_safe(v.decode(src)).c_str(), terminal_safe(v.decode(out)).c_str());
  if (a.has("--json")) {
    Json::Array src_j, out_j;
    for (int64_t id : src) src_j.push_back(v.token(id));
    for (int64_t id : out) out_j.push_back(v.token(id));
    std::printf("%s\n", Json::object({{"source", Json(src_j)},
                                      {"output", Json(out_j)},
                                      {"log_prob", log_prob},
                                      {"dtype", kRealName},
                                      {"threads", threads()}})
                            .dump()
                            .c_str());
  }
  return 0;
}

}  // namespace

int cmd_predict(const std::vector<std::string>& argv) {
  Args a("predict", argv, {"--load", "--svg", "--html", "--beam", "--attention", "--layer", "--head"},
         {"--json", "--help", "--force"}, 1);
  if (a.has("--help")) {
    std::fputs(kPredictHelp, stdout);
    return 0;
  }
  if (!a.has("--load")) throw a.error("--load FILE is required");
  if (a.positional().empty()) throw a.error("give the source tokens, e.g. heed predict --load m.safetensors \"3 1 4 1 5\"");
  const int64_t beam = a.integer("--beam", 1, 1, 100);
  check_no_collisions({{"--load", a.text("--load", ""), false},
                       {"--svg", a.text("--svg", ""), true},
                       {"--html", a.text("--html", ""), true}},
                      "heed predict");
  for (const char* flag : {"--svg", "--html"}) {
    std::error_code ec;
    std::string path = a.text(flag, "");
    if (!path.empty() && std::filesystem::is_directory(path, ec))
      throw a.error(std::string(flag) + " " + path + ": is a folder; give a file name, e.g. " +
                    (std::filesystem::path(path) / (flag == std::string("--svg") ? "attention.svg" : "attention.html"))
                        .string());
    if (!path.empty()) check_writable(path, a.has("--force"));  // a device or FIFO there is refused before any work
  }
  const bool pick = head_flags_given(a);
  const std::string kind = attention_kind(a);
  const bool all_heads = a.text("--head", "") == "all";
  if (all_heads && a.has("--html"))
    throw a.error("--html shows one matrix: give --head K for one head, or leave --head out for their mean");
  LoadedModel m = load_model(a.text("--load", ""));
  if (const auto* one = dynamic_cast<const OneSequenceTask*>(m.task.get()); one && m.model->config().is_decoder())
    return predict_after_sep(a, m, *one);  // source <sep>, then the model's continuation
  if (m.model->config().is_decoder())  // repeat and german: a sequence with no source to answer
    throw a.error(a.text("--load", "") + " is a decoder-only model of task " + m.task->name() +
                  ", one sequence without a source to continue from; heed sample --load continues a prompt, "
                  "heed eval --load scores it");
  std::optional<HeadChoice> choice;  // what --attention, --layer and --head ask for
  if (pick) choice = choose_heads(a, m.model->config(), kind, all_heads);
  const Vocab& sv = m.src_vocab;  // the file's vocabularies
  const Vocab& tv = m.tgt_vocab;
  if (!m.model->has_attention() && a.has("--svg")) throw a.error("--svg: the plain model has no attention to draw");
  if (!m.model->has_attention() && a.has("--html")) throw a.error("--html: the plain model has no attention to explore");
  std::vector<int64_t> src;
  if (const auto* data = dynamic_cast<const DataTask*>(m.task.get())) {
    // Free text, split by the rule the model was trained with; unknown words become <unk>.
    const std::vector<std::string> words = data->options().tok.split(a.positional()[0]);
    if (words.empty()) throw a.error("the source is empty");
    int64_t unknown = 0;
    src = DataTask::encode(sv, words, &unknown);
    std::string unseen;
    for (const std::string& w : words)
      if (!sv.contains(w)) unseen += (unseen.empty() ? "" : " ") + w;
    if (unknown) std::printf("not in the vocabulary, read as <unk>: %s\n", terminal_safe(unseen).c_str());
  } else {
    try {
      src = sv.encode(a.positional()[0]);
    } catch (const Error& e) {
      std::string hint;
      std::istringstream words(a.positional()[0]);
      for (std::string w; words >> w;)
        if (!sv.contains(w) && w.front() != '<') {
          hint = token_hint(sv, w);
          break;
        }
      throw a.error(std::string(e.what()) + (hint.empty() ? "" : "; " + hint));
    }
  }
  for (int64_t id : src)
    if (id < Vocab::kNumSpecials) throw a.error("the source may not contain " + sv.token(id));
  const int64_t S = static_cast<int64_t>(src.size());
  // Only location attention and learned positions have a row per source position; the other
  // models read a source of any length up to the longest eval --lengths scores.
  const ModelConfig& mc = m.model->config();
  if (S > mc.source_limit())
    throw a.error("the source has " + std::to_string(S) + " tokens; this model reads at most " +
                  std::to_string(mc.source_limit()) + " (" + mc.position_table() + " has a weight per source position)");
  if (S > SymbolTask::kMaxLength)
    throw a.error("the source has " + std::to_string(S) + " tokens; predict reads at most " +
                  std::to_string(SymbolTask::kMaxLength) + ", the longest eval --lengths scores");
  const int64_t max_steps = output_cap(mc, S);  // eval --data's cap for this sentence (models/tasks/data.h)
  // Beam 1 is greedy decoding exactly (tests/models/ch11_beam_test.cpp), so one path serves both.
  std::vector<Hypothesis> hyps = beam_search(*m.model, src, beam, max_steps);
  const Hypothesis& best = hyps.front();
  std::vector<std::string> output, source, shown_output, shown_source;  // shown_: for the terminal
  for (int64_t id : src) source.push_back(sv.token(id));
  for (int64_t id : best.tokens) output.push_back(tv.token(id));
  for (const std::string& t : source) shown_source.push_back(terminal_safe(t));
  for (const std::string& t : output) shown_output.push_back(terminal_safe(t));
  std::vector<std::vector<real>> attention = best.attention;
  // What the picture has across and down: source and output, unless --attention says otherwise.
  std::vector<std::string> cols = source, rows = output, shown_cols = shown_source, shown_rows = shown_output;
  // --attention/--layer/--head: the matrices of one teacher-forced pass over what was written.
  std::vector<std::vector<HeatmapPanel>> grid;  // [layer][head] with --head all
  AxisCaptions axes;
  std::string picked;  // "cross-attention, layer 1 (of 0-1), head 3 (of 0-3)": HeadChoice::describe
  if (choice) {
    grid = head_panels(m.model->attention_maps(src, best.tokens), *choice);
    attention = grid.front().front().weights;
    if (kind == "encoder") {  // each source token (a query) reading every source token (the keys)
      axes = {"source (keys)", "source (queries)"};
      rows = source;
      shown_rows = shown_source;
    } else if (kind == "decoder") {  // each output step reading the decoder's inputs so far
      axes = {"decoder input", "output"};
      cols = {tv.token(Vocab::kBos)};
      for (size_t i = 0; i + 1 < best.tokens.size(); ++i) cols.push_back(tv.token(best.tokens[i]));
      shown_cols.clear();
      for (const std::string& w : cols) shown_cols.push_back(terminal_safe(w));
    }
    picked = choice->describe();
  }
  auto words = [&](const std::vector<int64_t>& ids) {
    std::string text;
    for (int64_t id : ids)
      if (id != Vocab::kEos) text += (text.empty() ? "" : " ") + tv.token(id);
    return terminal_safe(text);
  };
  std::printf("source: %s\noutput: %s\n", terminal_safe(a.positional()[0]).c_str(), words(best.tokens).c_str());
  if (beam > 1) {
    std::printf("\nbeam %lld, best first (score = log_prob / tokens, <eos> counted):\n", static_cast<long long>(beam));
    std::printf("rank     score   log_prob  output\n");
    for (size_t i = 0; i < hyps.size(); ++i)
      std::printf("%4zu  %8.4f  %9.4f  %s%s\n", i + 1, hyps[i].score, hyps[i].log_prob,
                  terminal_safe(tv.decode(hyps[i].tokens)).c_str(), hyps[i].finished ? "" : "  (no <eos>)");
  }
  // The picture says what it shows: "reverse: additive attention (gru, bidirectional encoder)",
  // "reverse: transformer (D 32, 2+2 layers, 4 heads)".
  const std::string title = m.task->name() + ": " + m.model->config().describe() + (picked.empty() ? "" : ", " + picked);
  if (choice && all_heads) {
    std::printf("\n%s, one teacher-forced pass:\n", picked.c_str());
    for (const auto& row : grid)
      for (const HeatmapPanel& p : row)
        std::printf("\n%s\n%s", p.label.c_str(),
                    terminal_heatmap(shown_cols, shown_rows, p.weights, stdout_is_terminal()).c_str());
    if (a.has("--svg")) {
      write_text_file(a.text("--svg", ""), svg_heatmap_grid(cols, rows, grid, title, axes));
      std::printf("wrote %s\n", terminal_safe(a.text("--svg", "")).c_str());
    }
  } else if (!attention.empty()) {
    if (choice) std::printf("\n%s, one teacher-forced pass:\n", picked.c_str());
    std::printf("\n%s", terminal_heatmap(shown_cols, shown_rows, attention, stdout_is_terminal()).c_str());
    if (a.has("--svg")) {
      write_text_file(a.text("--svg", ""), svg_heatmap(cols, rows, attention, title, axes));
      std::printf("wrote %s\n", terminal_safe(a.text("--svg", "")).c_str());
    }
    if (a.has("--html")) {
      write_text_file(a.text("--html", ""), html_explorer(cols, rows, attention, title));
      std::printf("wrote %s\n", terminal_safe(a.text("--html", "")).c_str());
    }
  } else {
    std::printf("(the plain model has no attention to show)\n");
  }
  if (a.has("--json")) {
    Json::Array src_j, out_j;
    for (auto& s : source) src_j.push_back(s);
    for (auto& s : output) out_j.push_back(s);
    Json j = Json::object({{"source", Json(src_j)},
                           {"output", Json(out_j)},
                           {"attention", matrix_json(attention)},
                           {"log_prob", best.log_prob},
                           {"dtype", kRealName},
                           {"threads", threads()}});
    if (a.has("--beam")) j.set("score", best.score);
    if (choice) {
      j.set("kind", kind);
      j.set("layer", choice->layer < 0 ? Json() : Json(choice->layer));
      j.set("head", choice->head < 0 ? Json("mean") : Json(choice->head));
      if (all_heads) {
        Json::Array layers;
        for (const auto& row : grid) {
          Json::Array heads;
          for (const HeatmapPanel& p : row) heads.push_back(matrix_json(p.weights));
          layers.push_back(Json(heads));
        }
        j.set("heads", Json(layers));
        j.set("head", "all");
      }
    }
    std::printf("%s\n", j.dump().c_str());
  }
  return 0;
}

}  // namespace heed
