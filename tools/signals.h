// The signals that end a training run early with a save: Ctrl-C (SIGINT), kill (SIGTERM), a
// closed terminal (SIGHUP) and a closed pipe on stdout or stderr (SIGPIPE: `heed train ... |
// head`, whose writes then fail quietly). The handler only notes which signal came; the run
// looks at the note between two steps (tools/train_state.h's RunGuard), so a signal never
// interrupts a step or a save half-way.
#pragma once

#include <cstdint>

namespace heed {

// Catches the four stop signals while it lives; the handlers that were there before are put
// back by restore() or the destructor. One at a time: the note and the saved handlers are the
// process's (a signal handler can reach nothing else).
class StopSignals {
 public:
  StopSignals();  // installs the handlers; forgets a signal noted before
  ~StopSignals() { restore(); }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The first stop signal received since construction (SIGINT, ...), 0 while none has come.
  // Still readable after restore().
  int received() const;
  // The previous handlers are back (once; later calls do nothing).
  void restore();

 private:
  bool installed_ = true;
};

// "SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE"; "a signal" for any other.
const char* signal_name(int sig);

}  // namespace heed
