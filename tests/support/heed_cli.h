// Running the heed program as a user does, for the command-line tests: in a scratch folder
// of the test's own, with the exit status, stdout and stderr kept, and --json's last line
// parsed. The program is $HEED_BUILD/heed (build/heed by default; make sanitize sets it).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "io/json.h"

namespace heed {

struct CliRun {
  int status = -1;
  std::string out, err;
  Json json() const;  // the last line of stdout, parsed (what --json promises)
};

std::string slurp(const std::string& path);  // a whole file; empty if it cannot be read
// The repository's files: `git ls-files` when it works, else every file outside build/, build-*/
// and .git/ (paths relative to the current folder, which is the repository's root in the tests).
std::vector<std::string> repository_files();
int count_lines(const std::string& s);

// temp/heed-NAME-PID, made empty; test files go in its files/ folder, removed at the end.
class Scratch {
 public:
  explicit Scratch(const std::string& name);
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  std::string path(const std::string& file) const;  // in folder()
  std::string folder() const;
  // heed ARGS; `env` ("NAME=value ...") is put before the command.
  CliRun heed(const std::string& args, const std::string& env = "") const;
  // heed-faults ARGS: heed with the faults of tests/faults/heed_faults.cpp that `faults` names
  // ("HEED_FAULT_SIGNAL=INT@9 ..."): a signal at a step, a NaN weight, a file replaced mid-read.
  CliRun heed_with_faults(const std::string& args, const std::string& faults) const;
  // Another program of the build (a chapter's, "tutorial-13"), run the same way.
  CliRun run(const std::string& program, const std::string& args, const std::string& env = "") const;

 private:
  std::filesystem::path dir_;
};

// A shell command's exit status and its stdout and stderr together.
struct Shell {
  int status = -1;
  std::string out;
};
// `cmd` run by /bin/sh in `dir`, its output kept (in s's folder, as sh.log).
Shell sh(const Scratch& s, const std::string& dir, const std::string& cmd);

}  // namespace heed
