// heed-faults: the heed program itself (tools/heed.cpp's main, compiled here as heed_main) with
// faults a test places through heed's run observer (tools/common.h), chosen by these variables:
//   HEED_FAULT_SIGNAL=NAME@K      the signal NAME (INT, TERM, HUP, PIPE or KILL) to this process
//                                 when step K is done, as a user or a scheduler would send it
//   HEED_FAULT_SIGNAL_IN_SAVE=1   SIGINT from inside every checkpoint save (written, not renamed)
//   HEED_FAULT_NAN_AFTER_STEP=K   one weight made NaN after step K (no flag heed accepts does that)
//   HEED_FAULT_REPLACE_IN_LOAD=F  F renamed over the checkpoint being loaded, between its header
//                                 and its tensors, as a --checkpoint-every writer racing the reader would
// Built for the tests only (make builds it beside build/tests); heed itself places none of them.
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tools/common.h"

int heed_main(int argc, char** argv);

namespace {

int signal_number(const std::string& name) {
  if (name == "INT") return SIGINT;
  if (name == "TERM") return SIGTERM;
  if (name == "HUP") return SIGHUP;
  if (name == "PIPE") return SIGPIPE;
  if (name == "KILL") return SIGKILL;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  heed::RunObserver observer;
  int sig = 0;
  long long at = -1, poison = -1;
  if (const char* spec = std::getenv("HEED_FAULT_SIGNAL")) {
    const std::string s = spec;
    const size_t sep = s.find('@');
    if (sep != std::string::npos) {
      sig = signal_number(s.substr(0, sep));
      at = std::atoll(s.c_str() + sep + 1);
    }
    if (!sig) {
      std::fprintf(stderr, "heed-faults: HEED_FAULT_SIGNAL=%s is not NAME@STEP\n", spec);
      return 2;
    }
  }
  if (const char* k = std::getenv("HEED_FAULT_NAN_AFTER_STEP")) poison = std::atoll(k);
  if (sig || poison >= 0)
    observer.after_step = [sig, at, poison](heed::Model& model, const heed::Progress& p) {
      if (p.step == poison) model.named_parameters().back().second.value()[0] = std::nan("");
      if (sig && p.step == at) ::kill(::getpid(), sig);
    };
  if (std::getenv("HEED_FAULT_SIGNAL_IN_SAVE"))
    observer.before_save = [](const std::string&) { ::kill(::getpid(), SIGINT); };
  if (const char* other = std::getenv("HEED_FAULT_REPLACE_IN_LOAD")) {
    const std::string from = other;
    observer.after_header = [from](const std::string& path) { std::rename(from.c_str(), path.c_str()); };
  }
  heed::set_run_observer(std::move(observer));
  return heed_main(argc, argv);
}
