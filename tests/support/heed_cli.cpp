#include "tests/support/heed_cli.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "tests/support/chapter_check.h"

namespace heed {

Json CliRun::json() const {
  std::string s = out;
  while (!s.empty() && s.back() == '\n') s.pop_back();
  size_t nl = s.rfind('\n');
  return parse_json(s.substr(nl == std::string::npos ? 0 : nl + 1));
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::vector<std::string> repository_files() {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  if (FILE* p = popen("git ls-files 2>/dev/null", "r")) {
    char line[4096];
    while (std::fgets(line, sizeof line, p)) {
      std::string s(line);
      while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
      if (!s.empty() && fs::is_regular_file(s)) files.push_back(s);
    }
    pclose(p);
  }
  if (!files.empty()) return files;
  for (auto it = fs::recursive_directory_iterator("."); it != fs::recursive_directory_iterator(); ++it) {
    std::string name = it->path().filename().string();
    if (it->is_directory() && (name == "build" || name == ".git" || name.rfind("build-", 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files.push_back(it->path().lexically_normal().string());
  }
  return files;
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

Scratch::Scratch(const std::string& name)
    : dir_(std::filesystem::temp_directory_path() / ("heed-" + name + "-" + std::to_string(::getpid()))) {
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_ / "files");
}

Scratch::~Scratch() { std::filesystem::remove_all(dir_); }

std::string Scratch::path(const std::string& file) const { return (dir_ / "files" / file).string(); }

std::string Scratch::folder() const { return (dir_ / "files").string(); }

CliRun Scratch::heed(const std::string& args, const std::string& env) const { return run("heed", args, env); }
CliRun Scratch::heed_with_faults(const std::string& args, const std::string& faults) const {
  return run("heed-faults", args, faults);
}

CliRun Scratch::run(const std::string& program, const std::string& args, const std::string& env) const {
  std::string out = (dir_ / "stdout").string(), err = (dir_ / "stderr").string();
  std::string cmd = env + (env.empty() ? "" : " ") + runner() + build_dir() + "/" + program + " " + args + " >" + out +
                    " 2>" + err + " </dev/null";
  int raw = std::system(cmd.c_str());
  CliRun r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

Shell sh(const Scratch& s, const std::string& dir, const std::string& cmd) {
  const std::string log = s.path("sh.log");
  Shell r;
  r.status = std::system(("cd '" + dir + "' && { " + cmd + "; } >'" + log + "' 2>&1").c_str());
  r.out = slurp(log);
  return r;
}

}  // namespace heed
