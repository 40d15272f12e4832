// build/exercise-NN: checks the student's exercises of the chapters linked in (one, normally),
// one line per exercise, then "NN: k of n passed". Exit status 0 only when every one passed.
// Each check runs in a child process, so that an exercise that crashes (an index out of range)
// or never returns is reported as wrong and the others are still checked.
//   --seed N     draw every random input from the grader's seed N (check.h's seed)
//   --json FILE  also write the results as one JSON document (exercises/README.md, "Results")
//   --strict     stop (exit status 2) when the answers' object cannot be read for refused calls
// Before its check runs, an answer's compiled object (build/obj/exercises/NN_*/exercises.o, beside
// this program) is read for calls it may not make, and so is the library it was linked with (objects.h:
// the kernels in each piece's call tree); such an answer is refused.
// A grader's own checks (variant "extra", make exercises CHECKS=DIR) follow the chapter's.
#include <chrono>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "exercises/check/check.h"
#include "exercises/check/objects.h"

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

// A JSON string: quotes, backslashes and control characters escaped.
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}


// The library this checker was linked with: beside it (build/exercise-NN, a grader's copy), else
// one folder up (make yours's checkers, in build/yours-*/), else in the build make names (BUILD, as
// make yours passes it), else build/ under the folder make runs in.
std::string library_beside_program() {
  const std::string dir = heed::check::program_dir();
  const char* build = std::getenv("BUILD");
  for (const std::string& path : {dir + "/libheed.a", dir + "/../libheed.a",
                                  std::string(build && *build ? build : "build") + "/libheed.a", std::string("build/libheed.a")})
    if (access(path.c_str(), R_OK) == 0) return path;
  return dir + "/libheed.a";  // not built: library_references says so
}

int usage(const char* why) {
  std::fprintf(stderr, "exercise checker: %s\nusage: exercise-NN [--seed N] [--json FILE] [--strict]\n", why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace heed::check;
  set_program_path(argv[0]);
  std::string json_path;
  bool strict = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--strict") {
      strict = true;
      continue;
    }
    if ((a == "--seed" || a == "--json") && i + 1 >= argc) return usage((a + " needs a value").c_str());
    if (a == "--seed") {
      const std::string v = argv[++i];
      char* end = nullptr;
      errno = 0;
      const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || v[0] == '-' || *end != '\0' || errno == ERANGE)
        return usage(("--seed takes a whole number from 0 to 2^64 - 1, not \"" + v + "\"").c_str());
      set_grader_seed(n);
    } else if (a == "--json") {
      json_path = argv[++i];
    } else {
      return usage(("unknown argument \"" + a + "\"").c_str());
    }
  }
  if (grader_seed()) std::printf("inputs drawn from the grader's seed %llu\n", static_cast<unsigned long long>(*grader_seed()));
  bool all = true;
  std::string json_chapters;
  for (const Chapter& c : chapters()) {
    if (c.variant != "student") continue;
    std::printf("exercises of chapter %s (%s/README.md)\n", c.number.c_str(), c.folder.c_str());
    std::vector<Exercise> list = c.make();
    size_t own = list.size();
    for (const Chapter& extra : chapters())
      if (extra.variant == "extra" && extra.number == c.number)
        for (Exercise& e : extra.make()) list.push_back(std::move(e));
    // Read once what the answers call and what the library's pieces call; a checker that cannot
    // read them grades nothing. A grader (--strict: make exercises JSON=..., tools/grade_exercises.sh)
    // stops then; a student whose system has no object reader is still checked, and told.
    const std::string object = heed::check::program_dir() + "/obj/" + c.folder + "/exercises.o";
    ObjectReferences refs;
    std::vector<Refusals> refused(list.size());
    std::vector<OwnAnswer> answers;
    bool refusals_on = true;
    try {
      refs = read_object_references(object);
      const ObjectReferences library = library_references(library_beside_program());
      for (size_t i = 0; i < list.size(); ++i) {
        refused[i] = refusals(library, forbidden_for(c.forbidden, list[i].name));
        answers.push_back({c.number + "." + std::to_string(i + 1), list[i].name, &refused[i]});
      }
    } catch (const std::exception& err) {
      std::fprintf(stderr, "exercise checker: cannot tell what the answers call: %s\n", err.what());
      if (strict) return 2;
      std::fprintf(stderr, "exercise checker: checking without refusing calls to the library's versions\n");
      refusals_on = false;
    }
    int counts[4] = {0, 0, 0, 0};
    std::string json_exercises;
    for (size_t i = 0; i < list.size(); ++i) {
      const auto start = std::chrono::steady_clock::now();
      Outcome o;
      try {
        std::string why = refusals_on ? refused_call(refs, "heed::student::" + list[i].name, refused[i], answers) : "";
        o = why.empty() ? run_isolated(list[i]) : Outcome{Status::kRefused, why};
      } catch (const std::exception& err) {  // no such function in the object: the exercise file was changed
        o = {Status::kWrong, err.what()};
      }
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ++counts[static_cast<int>(o.status)];
      const std::string id = c.number + "." + std::to_string(i + 1);
      const std::string name = list[i].name + (i < own ? "" : " (grader's check)");
      std::printf("  %s %-24s %s%s%s\n", id.c_str(), name.c_str(), status_word(o.status),
                  o.detail.empty() ? "" : ": ", indent(o.detail).c_str());
      char time[32];
      std::snprintf(time, sizeof time, "%.3f", seconds);
      json_exercises += std::string(json_exercises.empty() ? "" : ", ") + "{\"id\": " + json_string(id) +
                        ", \"name\": " + json_string(list[i].name) + ", \"grader_check\": " + (i < own ? "false" : "true") +
                        ", \"status\": " + json_string(status_key(o.status)) + ", \"message\": " + json_string(o.detail) +
                        ", \"seconds\": " + time + "}";
    }
    const int passed = counts[static_cast<int>(Status::kPassed)];
    std::printf("%s: %d of %zu passed\n", c.number.c_str(), passed, list.size());
    std::fflush(stdout);
    all = all && passed == static_cast<int>(list.size());
    json_chapters += std::string(json_chapters.empty() ? "" : ",\n") + "{\"chapter\": " + json_string(c.number) +
                     ", \"folder\": " + json_string(c.folder) + ", \"compiles\": true, \"message\": \"\", \"counts\": {" +
                     "\"passed\": " + std::to_string(passed) +
                     ", \"not_done\": " + std::to_string(counts[static_cast<int>(Status::kNotDone)]) +
                     ", \"wrong\": " + std::to_string(counts[static_cast<int>(Status::kWrong)]) +
                     ", \"refused\": " + std::to_string(counts[static_cast<int>(Status::kRefused)]) +
                     ", \"total\": " + std::to_string(list.size()) + "}, \"exercises\": [" + json_exercises + "]}";
  }
  if (!json_path.empty()) {
    // One chapter per line between the first and last lines: make exercises JSON=FILE joins
    // the chapters' documents into one by those lines.
    std::ofstream out(json_path);
    out << "{\"format\": \"heed-exercises 1\", \"seed\": "
        << (grader_seed() ? std::to_string(*grader_seed()) : std::string("null")) << ", \"chapters\": [\n"
        << json_chapters << "\n]}\n";
    out.close();
    if (!out) {
      std::fprintf(stderr, "exercise checker: could not write %s\n", json_path.c_str());
      return 2;
    }
  }
  return all ? 0 : 1;
}
