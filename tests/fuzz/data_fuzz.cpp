// Fuzz target: what `heed train --data FILE` and `heed eval --data FILE` do with a file of pairs
// -- read it line by line, split and count tokens, build the vocabularies, split off validation,
// read it again as an evaluation file -- on arbitrary bytes. Every input must end in a
// heed::Error or in a task whose pairs hold only ids of its vocabularies, none a special, and
// whose counts add up; anything else is a bug (make fuzz).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "models/tasks/data.h"

namespace {

std::string scratch_file() {
  std::filesystem::path dir = std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
  return (dir / ("heed-data-fuzz-" + std::to_string(::getpid()) + ".tsv")).string();
}

void check_ids(const std::vector<heed::Example>& pairs, const heed::Vocab& src, const heed::Vocab& tgt) {
  for (const heed::Example& e : pairs) {
    if (e.src.empty() || e.tgt.empty()) __builtin_trap();
    for (int64_t id : e.src)
      if (id < heed::Vocab::kNumSpecials || id >= src.size()) __builtin_trap();
    for (int64_t id : e.tgt)
      if (id < heed::Vocab::kNumSpecials || id >= tgt.size()) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = scratch_file();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    heed::DataOptions opt;
    opt.max_len = 8;
    opt.min_count = 2;
    opt.valid_fraction = 0.3;
    opt.tok.lower = size % 2 == 1;
    heed::DataTask task(path, opt);
    check_ids(task.train_pairs(), task.src_vocab(), task.tgt_vocab());
    check_ids(task.valid().pairs, task.src_vocab(), task.tgt_vocab());
    const heed::DataCounts& c = task.train_counts();
    if (c.pairs + task.valid().counts.pairs + c.skipped != c.lines) __builtin_trap();
    heed::PairSet again = task.read_eval_file(path);  // every kept pair, as eval --data reads them
    if (again.counts.pairs != c.pairs + task.valid().counts.pairs) __builtin_trap();
    check_ids(again.pairs, task.src_vocab(), task.tgt_vocab());
  } catch (const heed::Error&) {
  }
  std::remove(path.c_str());
  return 0;
}
