// tools/signals.h on Windows: no POSIX signals reach a console program there; the console's
// control events do, through SetConsoleCtrlHandler: Ctrl-C (noted as SIGINT), Ctrl-Break
// (SIGBREAK) and the console closed, the user logging off or the machine shutting down (noted as
// SIGHUP's number, named "the console closed"). The handler runs on a thread of its own; for a
// close it waits until the run has saved (restore()), since Windows ends the process when the
// handler returns, and in any case within about 5 seconds: a save that takes longer is cut short,
// and the temporary file keeps the old checkpoint whole (io/atomic_file.h). The POSIX build's
// file is tools/signals.cpp.
#include <windows.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <string>

#include "tools/signals.h"

namespace heed {

namespace {

constexpr int kClosed = 1;  // SIGHUP's number on POSIX, for the exit status 129
std::atomic<int> g_signal{0};
HANDLE g_saved = nullptr;  // set by restore(): the run has done what it does on a stop

BOOL WINAPI note_event(DWORD event) {
  int sig = 0;
  switch (event) {
    case CTRL_C_EVENT: sig = SIGINT; break;
    case CTRL_BREAK_EVENT: sig = SIGBREAK; break;
    case CTRL_CLOSE_EVENT:
    case CTRL_LOGOFF_EVENT:
    case CTRL_SHUTDOWN_EVENT: sig = kClosed; break;
    default: return FALSE;
  }
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
  if (sig == kClosed && g_saved) WaitForSingleObject(g_saved, INFINITE);  // Windows ends the process on return
  return TRUE;
}

}  // namespace

StopSignals::StopSignals() {
  g_signal = 0;
  if (!g_saved) g_saved = CreateEventW(nullptr, TRUE, FALSE, nullptr);
  ResetEvent(g_saved);
  SetConsoleCtrlHandler(nullptr, FALSE);  // Ctrl-C delivered, even to a process started without it
  SetConsoleCtrlHandler(note_event, TRUE);
}

int StopSignals::received() const { return g_signal; }

void StopSignals::restore() {
  if (!installed_) return;
  installed_ = false;
  SetConsoleCtrlHandler(note_event, FALSE);
  SetEvent(g_saved);
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "Ctrl-C";
    case SIGBREAK: return "Ctrl-Break";
    case kClosed: return "the console closed";
    default: return "a signal";
  }
}

}  // namespace heed
