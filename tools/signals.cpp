#include "tools/signals.h"

#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string>

namespace heed {

namespace {

volatile std::sig_atomic_t g_signal = 0;  // the first of kStopSignals received

extern "C" void note_signal(int sig) {
  if (g_signal == 0) g_signal = sig;
}

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
constexpr int kNumStopSignals = sizeof kStopSignals / sizeof kStopSignals[0];
struct sigaction g_old[kNumStopSignals];  // the handlers StopSignals replaced

}  // namespace

StopSignals::StopSignals() {
  g_signal = 0;
  struct sigaction sa = {};
  sa.sa_handler = note_signal;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < kNumStopSignals; ++i) sigaction(kStopSignals[i], &sa, &g_old[i]);
}

int StopSignals::received() const { return g_signal; }

void StopSignals::restore() {
  if (!installed_) return;
  installed_ = false;
  for (int i = 0; i < kNumStopSignals; ++i) sigaction(kStopSignals[i], &g_old[i], nullptr);
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGPIPE: return "SIGPIPE";
    default: return "a signal";
  }
}

void send_test_signal(int64_t step) {
  const char* env = std::getenv("HEED_TEST_SIGNAL");
  if (!env) return;
  std::string spec = env;
  size_t at = spec.find('@');
  if (at == std::string::npos || std::atoll(spec.c_str() + at + 1) != step) return;
  std::string name = spec.substr(0, at);
  int sig = name == "INT" ? SIGINT : name == "TERM" ? SIGTERM : name == "HUP" ? SIGHUP : name == "PIPE" ? SIGPIPE
            : name == "KILL" ? SIGKILL : 0;
  if (sig) ::kill(::getpid(), sig);
}

void interrupt_self() { ::kill(::getpid(), SIGINT); }

}  // namespace heed
