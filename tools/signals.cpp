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

}  // namespace heed
