// heed trace: one teacher-forced pass of a saved model over tokens the user gives, position by
// position: the log-probability of the actual next token and the model's top K, and any of its
// named activations (nn/hooks.h, docs/hooks.md) written to a safetensors file.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "io/atomic_file.h"
#include "io/json.h"
#include "io/paths.h"
#include "io/safetensors.h"
#include "io/utf8.h"
#include "models/tasks/data.h"
#include "models/tasks/text.h"
#include "tools/common.h"

namespace heed {

namespace {

std::string fixed4(real x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", static_cast<double>(x));
  return buf;
}

const char* kTraceHelp =
    "usage: heed trace --load FILE --tokens \"TOKENS\" [--source \"TOKENS\"] [flags]\n"
    "\n"
    "Runs the model once over <bos> TOKENS, teacher forced, and prints for each position the token\n"
    "read, the actual next token (TOKENS shifted by one, <eos> last), its log-probability and the\n"
    "K most probable next tokens. A sequence-to-sequence model (transformer, the recurrent ones)\n"
    "also reads --source; a decoder-only model reads TOKENS alone.\n"
    "\n"
    "  --load FILE        a model saved by heed train --save\n"
    "  --tokens \"TOKENS\"  the target sequence, tokens of the model's (target) vocabulary\n"
    "  --source \"TOKENS\"  the source, for the models that read one (required for them)\n"
    "  --top K            the most probable next tokens shown per position (5)\n"
    "  --names            list every activation name of this model with its shape, and stop\n"
    "  --cache NAMES      activations to write, by name, separated by commas (all: every one)\n"
    "  --out FILE         the safetensors file --cache writes (F64; PyTorch's safetensors reads it)\n"
    "  --force            replace --out even when it is write-protected\n"
    "  --json             end stdout with one JSON object: tokens, positions, log_prob\n";

// Words of `text` as ids of `v`: a data model's text by its tokenizer (unknown words refused),
// a built-in task's tokens by the vocabulary. `flag` names the text in errors.
std::vector<int64_t> read_tokens(const Args& a, const LoadedModel& m, const Vocab& v, const std::string& flag) {
  const std::string text = a.text(flag, "");
  std::vector<int64_t> ids;
  try {
    if (const auto* text_task = dynamic_cast<const TextTask*>(m.task.get())) {
      int64_t unknown = 0;  // a text model's text, by its own rule (words or characters)
      ids = text_task->encode(text, &unknown, flag);
      if (unknown > 0)
        std::fprintf(stderr, "heed trace: %lld of the tokens of %s are not in the model's vocabulary: read as <unk>\n",
                     static_cast<long long>(unknown), flag.c_str());
    } else if (const auto* data = dynamic_cast<const DataTask*>(m.task.get())) {
      for (const std::string& w : data->options().tok.split(text)) {
        if (!v.contains(w)) throw Error("'" + w + "' is not in the model's vocabulary");
        ids.push_back(v.id(w));
      }
    } else if (text.find_first_not_of(" \t") != std::string::npos) {
      ids = v.encode(text);
    }
  } catch (const Error& e) {
    throw a.error(flag + ": " + e.what());
  }
  if (ids.empty()) throw a.error(flag + " is empty: give at least one token");
  for (int64_t id : ids)
    if (id < Vocab::kNumSpecials) throw a.error(flag + " may not contain " + v.token(id) + " (heed adds <bos> and <eos>)");
  return ids;
}

// The names --cache asks for, checked against those the run met.
std::vector<std::string> cached_names(const Args& a, const Hooks& hooks) {
  const std::string list = a.text("--cache", "");
  if (list == "all") return hooks.names();
  std::vector<std::string> names;
  std::stringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    if (name.empty()) continue;
    if (std::find(hooks.names().begin(), hooks.names().end(), name) == hooks.names().end())
      throw a.error("--cache: this model has no activation '" + name + "' (heed trace --names lists them)");
    names.push_back(name);
  }
  if (names.empty()) throw a.error("--cache names no activation (heed trace --names lists them)");
  return names;
}

}  // namespace

int cmd_trace(const std::vector<std::string>& argv) {
  Args a("trace", argv, {"--load", "--tokens", "--source", "--top", "--cache", "--out"},
         {"--json", "--names", "--force", "--help"});
  if (a.has("--help")) {
    std::fputs(kTraceHelp, stdout);
    return 0;
  }
  if (!a.has("--load")) throw a.error("--load FILE is required");
  if (!a.has("--tokens")) throw a.error("--tokens \"TOKENS\" is required");
  if (a.has("--cache") != a.has("--out")) throw a.error("--cache NAMES and --out FILE go together");
  const int64_t top = a.integer("--top", 5, 1, 1000000);
  const std::string load = a.text("--load", ""), out = a.text("--out", "");
  if (!out.empty()) {
    check_no_collisions({{"--load", load, false}, {"--out", out, true}}, "heed trace");
    if (output_stream(out) >= 0) throw a.error("--out " + out + ": a safetensors file is written whole; give a file name");
    std::error_code ec;
    if (std::filesystem::is_directory(out, ec))
      throw a.error("--out " + out + ": is a folder; give a file name, e.g. " +
                    (std::filesystem::path(out) / "cache.safetensors").string());
    check_writable(out, a.has("--force"));  // before any work
  }
  LoadedModel m = load_model(load);
  const Model& model = *m.model;
  const bool decoder_only = model.config().is_decoder();
  if (decoder_only && a.has("--source"))
    throw a.error(load + " is a decoder-only model, which reads no source: give --tokens alone");
  if (!decoder_only && !a.has("--source"))
    throw a.error(load + " is a " + model.config().model + " model, which reads a source: give --source \"TOKENS\" too");
  const std::vector<int64_t> tgt = read_tokens(a, m, m.tgt_vocab, "--tokens");
  const std::vector<int64_t> src = decoder_only ? tgt : read_tokens(a, m, m.src_vocab, "--source");
  const int64_t limit = model.config().source_limit();
  if (static_cast<int64_t>(src.size()) > limit || static_cast<int64_t>(tgt.size()) + 1 > limit)
    throw a.error("the sequences are longer than the model's " + std::to_string(limit) + " positions");

  // tgt_in <bos> y_1 .. y_L, tgt_out y_1 .. y_L <eos>; a text model's window has no <eos> (its
  // text goes on): tgt_in <bos> y_1 .. y_{L-1}, tgt_out y_1 .. y_L, as it was trained.
  const bool text = dynamic_cast<const TextTask*>(m.task.get()) != nullptr;
  Example example{src, tgt};
  example.eos = !text;
  Batch batch = make_batch({example});
  if (a.has("--names")) {
    Hooks shapes;
    shapes.cache_all();
    NoGradGuard no_grad;
    model.run_with_hooks(batch, shapes);
    for (const std::string& name : shapes.names())
      std::printf("%s %s\n", name.c_str(), shape_str(shapes[name].shape()).c_str());
    return 0;
  }
  Hooks hooks;
  if (a.has("--cache")) hooks.cache_all();  // the names are checked once the run has met them
  Tensor logp;
  {
    NoGradGuard no_grad;
    logp = log_softmax(model.run_with_hooks(batch, hooks).value(), 2);  // (1, T, V)
  }
  const int64_t T = batch.tgt_len, V = logp.shape()[2];
  const Vocab& tv = m.tgt_vocab;
  Json::Array positions;
  real total = 0;
  std::printf("%-4s %-12s %-12s %12s   top %lld\n", "pos", "reads", "next", "log p(next)", static_cast<long long>(top));
  for (int64_t t = 0; t < T; ++t) {
    const real* row = logp.data() + t * V;
    const int64_t read = batch.tgt_in[t], next = batch.tgt_out[t];
    std::vector<int64_t> order(static_cast<size_t>(V));
    for (int64_t i = 0; i < V; ++i) order[static_cast<size_t>(i)] = i;
    const int64_t k = std::min(top, V);
    // Most probable first; equal log-probabilities keep the lower id first.
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return row[x] > row[y]; });
    total += row[next];
    std::string shown;
    Json::Array best;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t id = order[static_cast<size_t>(i)];
      shown += "  " + tv.token(id) + " " + fixed4(row[id]);
      best.push_back(Json::object({{"token", Json(tv.token(id))}, {"log_prob", row[id]}}));
    }
    std::printf("%-4lld %-12s %-12s %12s  %s\n", static_cast<long long>(t), terminal_safe(tv.token(read)).c_str(),
                terminal_safe(tv.token(next)).c_str(), fixed4(row[next]).c_str(), terminal_safe(shown).c_str());
    positions.push_back(Json::object({{"position", t},
                                      {"reads", Json(tv.token(read))},
                                      {"next", Json(tv.token(next))},
                                      {"log_prob", row[next]},
                                      {"top", Json(best)}}));
  }
  std::printf("log p(tokens%s) = %s\n", text ? "" : " <eos>", fixed4(total).c_str());
  std::vector<std::string> names;
  if (a.has("--cache")) {
    names = cached_names(a, hooks);
    std::vector<NamedTensor> tensors;
    for (const std::string& name : names) tensors.push_back({name, hooks[name]});
    write_safetensors(out, tensors, {{"model", model.config().model}, {"tokens", a.text("--tokens", "")},
                                     {"source", a.text("--source", "")}});
    std::printf("wrote %zu activations to %s\n", names.size(), terminal_safe(out).c_str());
  }
  if (a.has("--json")) {
    Json::Array tokens, cached;
    for (int64_t id : tgt) tokens.push_back(Json(tv.token(id)));
    for (const std::string& name : names) cached.push_back(Json(name));
    std::printf("%s\n", Json::object({{"tokens", Json(tokens)},
                                      {"positions", Json(positions)},
                                      {"log_prob", total},
                                      {"cached", Json(cached)},
                                      {"dtype", kRealName}})
                            .dump()
                            .c_str());
  }
  return 0;
}

}  // namespace heed
