// heed sample: a decoder-only model (--model decoder) continues a prompt, one token drawn at a
// time from its next-token distribution (models/decoder_model.h, sample_continuation), seeded.
#include <cstdio>
#include <string>
#include <vector>

#include "io/json.h"
#include "io/utf8.h"
#include "models/decoder_model.h"
#include "models/tasks/text.h"
#include "models/tasks/translate.h"
#include "tools/common.h"

namespace heed {

namespace {

const char* kSampleHelp =
    "usage: heed sample --load FILE --prompt \"TOKENS\" [flags]\n"
    "\n"
    "A decoder-only model (heed train --model decoder) continues the prompt: each next token is\n"
    "drawn from softmax(logits / T) over the K most probable tokens, until <eos> or --max-tokens.\n"
    "The same seed gives the same tokens. For a model of --task german, also whether prompt and\n"
    "sample are a sentence of the grammar. A model of your own text (heed train --model decoder\n"
    "--data FILE.txt) reads the prompt as plain text, split by its own rule (words or characters;\n"
    "what its vocabulary lacks is <unk>), and prints the continuation as text.\n"
    "\n"
    "  --load FILE        a decoder-only model saved by heed train --save\n"
    "  --prompt \"TOKENS\"  the start of the sequence, tokens of the model's vocabulary (may be \"\")\n"
    "  --temperature T    divides the logits: below 1 sharper, above 1 flatter; 0 always takes the\n"
    "                     most probable token (1)\n"
    "  --top-k K          draw among the K most probable tokens only; 0: all (0)\n"
    "  --seed N           seed of the draws (1)\n"
    "  --max-tokens N     the longest continuation (40)\n"
    "  --json             end stdout with one JSON object: prompt, output (tokens)\n";

// Text made safe for a terminal (terminal_safe) with its line breaks kept: a model of a text
// writes lines.
std::string printable_lines(const std::string& text) {
  std::string out;
  for (size_t from = 0;;) {
    const size_t nl = text.find('\n', from);
    out += terminal_safe(std::string_view(text).substr(from, nl == std::string::npos ? std::string::npos : nl - from));
    if (nl == std::string::npos) return out;
    out += '\n';
    from = nl + 1;
  }
}

}  // namespace

int cmd_sample(const std::vector<std::string>& argv) {
  Args a("sample", argv, {"--load", "--prompt", "--temperature", "--top-k", "--seed", "--max-tokens"},
         {"--json", "--help"}, 0, {"--prompt"});
  if (a.has("--help")) {
    std::fputs(kSampleHelp, stdout);
    return 0;
  }
  if (!a.has("--load")) throw a.error("--load FILE is required");
  if (!a.has("--prompt")) throw a.error("--prompt \"TOKENS\" is required (\"\" starts from <bos> alone)");
  SamplingOptions o;
  o.temperature = a.number_from("--temperature", 1, 0, 1000);
  o.top_k = a.integer("--top-k", 0, 0, 1000000);
  const int64_t seed = a.integer("--seed", 1, 0, INT64_MAX);
  const int64_t max_tokens = a.integer("--max-tokens", 40, 1, 100000);
  LoadedModel m = load_model(a.text("--load", ""));
  if (!m.model->config().is_decoder())
    throw a.error(a.text("--load", "") + " is a " + m.model->config().model +
                  " model, which reads a source: heed predict decodes it; heed sample is for --model decoder");
  std::vector<int64_t> prompt;  // "" (or spaces alone): <bos> alone
  const std::string text = a.text("--prompt", "");
  const auto* text_task = dynamic_cast<const TextTask*>(m.task.get());
  int64_t unknown = 0;  // a text model's prompt: the tokens its vocabulary lacks
  try {
    if (text_task) prompt = text_task->encode(text, &unknown, "--prompt");
    else if (text.find_first_not_of(" \t") != std::string::npos) prompt = m.tgt_vocab.encode(text);
  } catch (const Error& e) {
    throw a.error(std::string("--prompt: ") + e.what());
  }
  for (int64_t id : prompt)
    if (id < Vocab::kNumSpecials) throw a.error("--prompt may not contain " + m.tgt_vocab.token(id));
  const ModelConfig& c = m.model->config();
  // Positions fed: <bos>, the prompt, and every token drawn but the last (models/decoder_model.h).
  const int64_t room = c.source_limit() - static_cast<int64_t>(prompt.size());
  if (max_tokens > room)
    throw a.error("--prompt of " + std::to_string(prompt.size()) + " tokens and --max-tokens " +
                  std::to_string(max_tokens) + " need more than the model's " + std::to_string(c.source_limit()) +
                  " learned positions (<bos>, the prompt and each token drawn but the last): give --max-tokens at most " +
                  std::to_string(room));
  Generator gen(static_cast<uint64_t>(seed));
  const std::vector<int64_t> out = sample_continuation(*m.model, prompt, max_tokens, o, gen);
  if (text_task) {  // as text, by the model's own rule: characters joined, words by spaces
    std::printf("prompt: %s%s\n", printable_lines(text_task->decode(prompt)).c_str(),
                unknown ? (" (" + std::to_string(unknown) + " of its tokens are <unk>)").c_str() : "");
    std::printf("sample: %s\n", printable_lines(text_task->decode(out)).c_str());
  } else {
    std::printf("prompt: %s\n", terminal_safe(m.tgt_vocab.decode(prompt)).c_str());
    std::printf("sample: %s\n", terminal_safe(m.tgt_vocab.decode(out)).c_str());
  }
  // A model of the German grammar: is prompt + sample one of its sentences?
  std::string grammar;
  if (const auto* german = dynamic_cast<const GermanTask*>(m.task.get())) {
    std::vector<int64_t> sentence = prompt;
    sentence.insert(sentence.end(), out.begin(), out.end());
    const bool ended = !out.empty() && out.back() == Vocab::kEos;
    if (ended) sentence.pop_back();
    const TranslateTask::Split split = german->in_grammar(sentence);
    grammar = !ended                                   ? "no <eos> within --max-tokens"
              : split == TranslateTask::Split::kTrain   ? "yes, a training sentence"
              : split == TranslateTask::Split::kHeldOut ? "yes, a held-out sentence (never trained on)"
                                                        : "no";
    std::printf("in the grammar: %s\n", grammar.c_str());
  }
  if (a.has("--json")) {
    Json::Array p, s;
    for (int64_t id : prompt) p.push_back(Json(m.tgt_vocab.token(id)));
    for (int64_t id : out) s.push_back(Json(m.tgt_vocab.token(id)));
    Json j = Json::object({{"prompt", Json(p)}, {"output", Json(s)}});
    if (!grammar.empty()) j.set("in_grammar", grammar);
    if (text_task) j.set("text", text_task->decode(out));
    std::printf("%s\n", j.dump().c_str());
  }
  return 0;
}

}  // namespace heed
