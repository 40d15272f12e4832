// heed: train, evaluate and query the seq2seq models of docs/models.md from the command line.
// Every user mistake ends as one line on stderr and exit status 2.

#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "io/utf8.h"
#include "tensor/kernels.h"
#include "tools/bench.h"
#include "tools/common.h"

namespace {

// The version of the command line and its checkpoint format; docs/cli.md is its contract.
// The kernel set is the one this run uses (tensor/kernels.h).
std::string version() {
  return std::string("heed 0.3 (checkpoint format ") + heed::kFormat + ", " +
         (sizeof(heed::real) == 8 ? "double" : "single") + " precision, " + heed::kernels().name + " kernels)";
}

const char* kUsage =
    "usage: heed <command> [flags]\n"
    "\n"
    "commands:\n"
    "  train    train a model on a task or a file of pairs   heed train --task reverse --save m.safetensors\n"
    "  eval     accuracy by source length of a saved model   heed eval --load m.safetensors --lengths 5,10,20\n"
    "  predict  decode one source and show the attention     heed predict --load m.safetensors \"3 1 4 1 5\"\n"
    "  bench    time one training step                       heed bench --model additive\n"
    "  data     write a built-in task as a file of pairs     heed data --task translate --out pairs.tsv\n"
    "\n"
    "heed <command> --help lists the command's flags; heed --version prints the version.\n"
    "The whole contract, with the JSON fields and exit statuses: docs/cli.md in the repository.\n";

}  // namespace

int main(int argc, char** argv) {
  // A write past the file-size limit (ulimit -f) is the write error EFBIG, which the writer
  // reports with the old file intact, instead of a signal that kills heed mid-save.
  std::signal(SIGXFSZ, SIG_IGN);
  heed::tune_allocator();  // keep freed tensors with the process (tensor/tensor.h)
  heed::set_program_path(argv[0]);  // for heed bench --sweep's child runs
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  try {
    heed::kernels();  // a HEED_KERNELS this build or processor cannot honour is refused before anything
  } catch (const heed::Error& e) {
    std::fprintf(stderr, "heed: %s\n", e.what());
    return 2;
  }
  if (args[0] == "--version" || args[0] == "-V" || args[0] == "version") {
    std::printf("%s\n", version().c_str());
    return 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "train") return heed::cmd_train(args);
    if (command == "eval") return heed::cmd_eval(args);
    if (command == "predict") return heed::cmd_predict(args);
    if (command == "bench") return heed::cmd_bench(args);
    if (command == "data") return heed::cmd_data(args);
    std::fprintf(stderr, "heed: unknown command '%s' (choose train, eval, predict or bench; see heed --help)\n",
                 command.c_str());
    return 2;
  } catch (const heed::Error& e) {
    // One line: the library's message, prefixed by the command unless it already names it.
    std::string msg = e.what();
    for (char& c : msg)
      if (c == '\n') c = ' ';
    msg = heed::terminal_safe(msg);  // names from files and arguments may hold escape sequences
    if (msg.rfind(command + ": ", 0) == 0) msg = "heed " + msg;  // "train: step 4: ..."
    else if (msg.rfind("heed ", 0) != 0) msg = "heed " + command + ": " + msg;
    std::fprintf(stderr, "%s\n", msg.c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "heed %s: out of memory; try smaller --hidden, --batch or lengths\n", command.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "heed %s: internal error: %s\n", command.c_str(), e.what());
    return 1;
  }
}
