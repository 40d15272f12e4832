// heed: train, evaluate and query the seq2seq models of docs/models.md from the command line.
// Every user mistake ends as one line on stderr and exit status 2.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "io/os.h"
#include "io/utf8.h"
#include "tensor/kernels.h"
#include "tensor/threads.h"
#include "tools/bench.h"
#include "tools/common.h"

namespace {

// The version of the command line and its checkpoint format; docs/cli.md is its contract.
// The kernel set is the one this run uses (tensor/kernels.h), the threads as many as it would use.
std::string version() {
  const int n = heed::threads();
  return std::string("heed 0.3 (checkpoint format ") + heed::kFormat + ", " +
         (sizeof(heed::real) == 8 ? "double" : "single") + " precision, " + heed::kernels().name + " kernels, " +
         std::to_string(n) + (n == 1 ? " thread)" : " threads)");
}

// --threads N, for train, eval, predict and bench: read here, for all four, and taken out of
// their arguments (their own flags stay theirs). It sets the pool's size (tensor/threads.h) and
// HEED_THREADS, which bench --sweep's child runs inherit. Without it, HEED_THREADS or the cores
// this process may use. No thread count changes a bit of any result, so none is recorded in a
// checkpoint. Throws heed::Error for a repeated flag, a missing value or a bad count.
void take_threads_flag(const std::string& command, std::vector<std::string>& args) {
  std::string value;
  bool seen = false;
  for (size_t i = 0; i < args.size();) {
    const bool joined = args[i].rfind("--threads=", 0) == 0;
    if (args[i] != "--threads" && !joined) {
      ++i;
      continue;
    }
    if (seen) throw heed::Error("heed " + command + ": --threads given twice");
    seen = true;
    if (joined) {
      value = args[i].substr(10);
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      if (i + 1 >= args.size()) throw heed::Error("heed " + command + ": --threads needs a value (a number of threads)");
      value = args[i + 1];
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    }
  }
  if (!seen) return;
  const int n = heed::parse_threads(("heed " + command + ": --threads").c_str(), value.c_str());
  heed::set_threads(n);
  heed::os::set_env("HEED_THREADS", std::to_string(n));
}

const char* kUsage =
    "usage: heed <command> [flags]\n"
    "\n"
    "commands:\n"
    "  train    train a model on a task or a file of pairs   heed train --task reverse --save m.safetensors\n"
    "  eval     accuracy by source length of a saved model   heed eval --load m.safetensors --lengths 5,10,20\n"
    "  predict  decode one source and show the attention     heed predict --load m.safetensors \"3 1 4 1 5\"\n"
    "  sample   continue a prompt with a decoder-only model  heed sample --load m.safetensors --prompt \"3 1\"\n"
    "  trace    log-probabilities and activations by name    heed trace --load m.safetensors --tokens \"3 1 4\"\n"
    "  bench    time one training step                       heed bench --model additive\n"
    "  data     write a built-in task as a file of pairs     heed data --task translate --out pairs.tsv\n"
    "\n"
    "heed <command> --help lists the command's flags; heed --version prints the version.\n"
    "train, eval, predict and bench take --threads N: the threads to use (default: HEED_THREADS,\n"
    "else every core this process may use); no thread count changes a bit of any result.\n"
    "The whole contract, with the JSON fields and exit statuses: docs/cli.md in the repository.\n";

}  // namespace

int main(int argc, char** argv) {
  // A write past the file-size limit (ulimit -f) is the write error EFBIG, which the writer
  // reports with the old file intact, instead of a signal that kills heed mid-save (io/os.h).
  heed::os::prepare_process();
  heed::tune_allocator();  // keep freed tensors with the process (tensor/tensor.h)
  heed::set_program_path(argv[0]);  // for heed bench --sweep's child runs
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  try {
    heed::kernels();  // a HEED_KERNELS this build or processor cannot honour is refused before anything
    if (args[0] != "train" && args[0] != "eval" && args[0] != "predict" && args[0] != "bench")
      heed::threads();  // and so is a bad HEED_THREADS (the four commands check their --threads first)
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
    if (command == "train" || command == "eval" || command == "predict" || command == "bench") {
      take_threads_flag(command, args);
      heed::threads();  // without --threads: HEED_THREADS, refused here if it is not a count
    }
    if (command == "train") return heed::cmd_train(args);
    if (command == "eval") return heed::cmd_eval(args);
    if (command == "predict") return heed::cmd_predict(args);
    if (command == "sample") return heed::cmd_sample(args);
    if (command == "bench") return heed::cmd_bench(args);
    if (command == "data") return heed::cmd_data(args);
    if (command == "trace") return heed::cmd_trace(args);
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
