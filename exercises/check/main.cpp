// build/exercise-NN: checks the student's exercises of the chapters linked in (one, normally),
// one line per exercise, then "NN: k of n passed". Exit status 0 only when every one passed.
// Each check runs in a child process, so that an exercise that crashes (an index out of range)
// or never returns is reported as wrong and the others are still checked.
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "exercises/check/check.h"

namespace {

using heed::check::Exercise;
using heed::check::Outcome;
using heed::check::Status;

constexpr unsigned kSecondsPerCheck = 120;

// run(e) in a child process; its outcome comes back through a pipe: one status byte, then the detail.
Outcome run_isolated(const Exercise& e) {
  int fd[2];
  if (pipe(fd) != 0) return heed::check::run(e);
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return heed::check::run(e);
  }
  if (pid == 0) {
    close(fd[0]);
    alarm(kSecondsPerCheck);
    Outcome o = heed::check::run(e);
    std::string msg(1, static_cast<char>(o.status));
    msg += o.detail;
    for (size_t done = 0; done < msg.size();) {
      ssize_t n = write(fd[1], msg.data() + done, msg.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    std::fflush(stdout);
    _exit(0);
  }
  close(fd[1]);
  std::string msg;
  char buf[4096];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) msg.append(buf, static_cast<size_t>(n));
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (sig == SIGALRM)
      return {Status::kWrong, "it did not finish within " + std::to_string(kSecondsPerCheck) + " s (an endless loop?)"};
    return {Status::kWrong, std::string("it crashed: signal ") + std::to_string(sig) + " (" + strsignal(sig) +
                                "); an index out of range, or a read past the end of a tensor?"};
  }
  if (msg.empty()) return {Status::kWrong, "it ended the program (exit status " + std::to_string(WEXITSTATUS(status)) + ")"};
  return {static_cast<Status>(msg[0]), msg.substr(1)};
}

// The first line of a message indented for the report; the rest kept under it.
std::string indent(const std::string& s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '\n') out += "      ";
  }
  return out;
}

}  // namespace

int main() {
  using namespace heed::check;
  bool all = true;
  for (const Chapter& c : chapters()) {
    if (c.variant != "student") continue;
    std::printf("exercises of chapter %s (%s/README.md)\n", c.number.c_str(), c.folder.c_str());
    std::vector<Exercise> list = c.make();
    int passed = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      Outcome o = run_isolated(list[i]);
      if (o.status == Status::kPassed) ++passed;
      std::printf("  %s.%zu %-24s %s%s%s\n", c.number.c_str(), i + 1, list[i].name.c_str(), status_word(o.status),
                  o.detail.empty() ? "" : ": ", indent(o.detail).c_str());
    }
    std::printf("%s: %d of %zu passed\n", c.number.c_str(), passed, list.size());
    std::fflush(stdout);
    all = all && passed == static_cast<int>(list.size());
  }
  return all ? 0 : 1;
}
