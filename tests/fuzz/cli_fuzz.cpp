// Fuzz target: what the heed command line does with the text a person types, before any file
// or model is touched: `heed train`'s flags (parse_train_flags: ranges, sizes, memory), eval's
// and predict's flags, the source tokens of predict (Vocab::encode) and the JSON parser. The
// input is split at newlines into arguments. Every input must end in a result or a heed::Error.
// Inputs naming the translate task are skipped: building its grammar takes 40 ms, which would
// slow the fuzzer a hundredfold and adds no parsing (make fuzz).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/json.h"
#include "models/tasks/vocab.h"
#include "tools/common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  if (text.find("translate") != std::string::npos) return 0;
  std::vector<std::string> argv;
  for (size_t start = 0; start <= text.size();) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    argv.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  try {
    heed::TrainPlan plan = heed::parse_train_flags(argv);
    if (!plan.help && plan.config.parameter_count() > heed::ModelConfig::kMaxParameters) __builtin_trap();
  } catch (const heed::Error&) {
  }
  try {
    heed::Args a("eval", argv, {"--load", "--lengths", "--samples", "--seed"}, {"--json", "--help"}, 1);
    std::vector<int64_t> lengths = a.integers("--lengths", {1}, 1, 1000);
    for (int64_t L : lengths)
      if (L < 1 || L > 1000) __builtin_trap();
    a.integer("--samples", 500, 1, 1000000);
    a.number("--seed", 1, -1e300, 1e300);
  } catch (const heed::Error&) {
  }
  static const heed::Vocab symbols = heed::Vocab::symbols(10);
  static const heed::Vocab words({"ich", "habe", "keinen", "hunger", ",", "weil", "."});
  for (const heed::Vocab* v : {&symbols, &words}) {
    try {
      std::vector<int64_t> ids = v->encode(text);
      for (int64_t id : ids)
        if (id < heed::Vocab::kNumSpecials || id >= v->size()) __builtin_trap();
      v->decode(ids);
    } catch (const heed::Error&) {
    }
  }
  try {
    heed::Json j = heed::parse_json(text);
    heed::Json again = heed::parse_json(j.dump());  // what the writer writes, the parser reads back
    if (!(again == j)) __builtin_trap();
  } catch (const heed::Error&) {
  }
  return 0;
}
