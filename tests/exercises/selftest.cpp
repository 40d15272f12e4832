// build/exercise-selftest, run by make test (tests/exercises_test.cpp): every chapter's checks
// against the solutions (each must pass), against the untouched exercise files (each must say
// "not done yet", none may crash) and against every wrong answer (its exercise must be "wrong").
// Prints one line per failure and a summary (-v: also every rejection); exit status 0 when all hold.
#include <cstdio>
#include <map>
#include <string>

#include "exercises/check/check.h"

int main(int argc, char** argv) {
  const bool verbose = argc > 1 && std::string(argv[1]) == "-v";  // show every rejection
  using namespace heed::check;
  int failures = 0, runs = 0;
  auto fail = [&](const std::string& what) {
    ++failures;
    std::printf("FAIL %s\n", what.c_str());
  };
  std::map<std::string, int> solved, stubs;
  for (const Chapter& c : chapters()) {
    for (const Exercise& e : c.make()) {
      Outcome o = run(e);
      ++runs;
      std::string id = c.number + " " + e.name + " (" + c.variant + ")";
      if (c.variant == "solution") {
        ++solved[c.number];
        if (o.status != Status::kPassed) fail(id + ": " + status_word(o.status) + ": " + o.detail);
      } else {
        ++stubs[c.number];
        if (o.status != Status::kNotDone)
          fail(id + ": " + status_word(o.status) + (o.status == Status::kPassed
                   ? " (the exercise file is no longer the untouched stub; make test expects the stubs)" : ": " + o.detail));
        else if (o.detail.rfind("write", 0) != 0 && o.detail.rfind("find", 0) != 0)
          fail(id + ": the not-done hint should say what to write: " + o.detail);
      }
    }
  }
  for (const auto& [number, n] : stubs)
    if (solved[number] != n) fail("chapter " + number + ": " + std::to_string(n) + " exercises but " +
                                  std::to_string(solved[number]) + " solutions");
  int rejected = 0;
  std::map<std::string, int> wrong_per_exercise;
  for (const WrongAnswer& w : wrong_answers()) {
    bool found = false;
    for (const Exercise& e : w.make()) {
      if (e.name != w.exercise) continue;
      found = true;
      Outcome o = run(e);
      ++runs;
      if (o.status == Status::kWrong) {
        ++rejected;
        if (verbose) std::printf("rejected %s %s (%s):\n  %s\n", w.number.c_str(), w.exercise.c_str(), w.mistake.c_str(), o.detail.c_str());
        ++wrong_per_exercise[w.number + " " + w.exercise];
      } else {
        fail(w.number + " " + w.exercise + ": the wrong answer (" + w.mistake + ") was " + status_word(o.status));
      }
    }
    if (!found) fail(w.number + ": a wrong answer names an unknown exercise " + w.exercise);
  }
  // Every exercise has at least one wrong answer that its check rejects.
  for (const Chapter& c : chapters())
    if (c.variant == "solution")
      for (const Exercise& e : c.make())
        if (!wrong_per_exercise.count(c.number + " " + e.name)) fail(c.number + " " + e.name + ": no wrong answer rejected");
  int exercises = 0;
  for (const auto& [number, n] : solved) exercises += n;
  std::printf("exercise self-test: %zu chapters, %d exercises, %d wrong answers rejected, %d checks run, %d failures\n",
              solved.size(), exercises, rejected, runs, failures);
  return failures == 0 ? 0 : 1;
}
