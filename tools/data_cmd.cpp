// heed data: a built-in task written as a data file (models/tasks/data.h), so that `heed train
// --data` is exercised by what heed ships and a user sees the format.
#include <cstdio>
#include <filesystem>
#include <string>

#include "io/atomic_file.h"
#include "io/paths.h"
#include "io/utf8.h"
#include "models/tasks/translate.h"
#include "tools/common.h"

namespace heed {

namespace {

const char* kDataHelp =
    "usage: heed data --task copy|reverse|sort|translate --out FILE [flags]\n"
    "\n"
    "Writes pairs of a built-in task as a data file for heed train --data: UTF-8 lines of\n"
    "source<TAB>target, tokens separated by single spaces.\n"
    "\n"
    "  --task NAME        the task (translate)\n"
    "  --out FILE         where to write the pairs (replaced atomically; required); - or /dev/stdout:\n"
    "                     standard output\n"
    "  --force            replace --out even when it is write-protected\n"
    "  --split train|held-out   translate: which of its pairs (train)\n"
    "  --count N          N pairs drawn with --seed, as training draws them (copy, reverse and sort:\n"
    "                     1000); translate without --count writes every pair of the split, in order\n"
    "  --seed N           seed of the draws (1)\n"
    "  --vocab V, --min-len N, --max-len N   copy, reverse and sort, as in heed train\n";

}  // namespace

int cmd_data(const std::vector<std::string>& argv) {
  Args a("data", argv, {"--task", "--out", "--split", "--count", "--seed", "--vocab", "--min-len", "--max-len"},
         {"--help", "--force"});
  if (a.has("--help")) {
    std::fputs(kDataHelp, stdout);
    return 0;
  }
  const std::string name = a.choice("--task", "translate", task_names());
  // german is a language to model (one sentence per sequence), not pairs of a source and a target.
  if (name == "german")
    throw a.error("--task german is sentences to model, not source-target pairs: heed data writes pairs (copy, "
                  "reverse, sort, repeat or translate)");
  if (!a.has("--out")) throw a.error("--out FILE is required (where to write the pairs)");
  const std::string out = a.text("--out", "");
  std::error_code ec;
  if (std::filesystem::is_directory(out, ec))
    throw a.error("--out " + out + ": is a folder; give a file name, e.g. " +
                  (std::filesystem::path(out) / "pairs.tsv").string());
  check_writable(out, a.has("--force"));  // a device, FIFO or folder there is refused before any work
  if (name == "translate") {
    for (const char* flag : {"--vocab", "--min-len", "--max-len"})
      if (a.has(flag)) throw a.error(std::string(flag) + " does not apply to --task translate: its grammar fixes them");
  } else if (a.has("--split")) {
    throw a.error("--split is for --task translate (the toy tasks draw fresh sequences)");
  }
  const std::string split = a.choice("--split", "train", {"train", "held-out"});
  const int64_t min_len = a.integer("--min-len", 5, 1, SymbolTask::kMaxLength);
  const int64_t max_len = a.integer("--max-len", std::max<int64_t>(10, min_len), 1, SymbolTask::kMaxLength);
  if (min_len > max_len)
    throw a.error("--min-len " + std::to_string(min_len) + " is greater than --max-len " + std::to_string(max_len));
  std::unique_ptr<Task> task = make_task(name, a.integer("--vocab", 10, 1, SymbolTask::kMaxVocab), min_len, max_len);
  Generator gen(static_cast<uint64_t>(a.integer("--seed", 1, 0, INT64_MAX)));
  std::vector<Example> pairs;
  const auto* translate = dynamic_cast<const TranslateTask*>(task.get());
  if (translate && !a.has("--count")) {
    pairs = split == "train" ? translate->train_pairs() : translate->held_out();
  } else {
    const int64_t count = a.integer("--count", 1000, 1, 10000000);
    pairs.reserve(count);
    for (int64_t i = 0; i < count; ++i) pairs.push_back(split == "train" ? task->sample(gen) : task->sample_held_out(gen));
  }
  std::string text;
  for (const Example& e : pairs)
    text += task->src_vocab().decode(e.src) + "\t" + task->tgt_vocab().decode(e.tgt) + "\n";
  write_text_file(out, text);
  std::printf("wrote %lld pairs of %s to %s\n", static_cast<long long>(pairs.size()), name.c_str(),
              terminal_safe(out).c_str());
  return 0;
}

}  // namespace heed
