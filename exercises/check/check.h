// The exercise checker. Each chapter's checks (NN_check.cpp) turn an implementation (a table of
// the functions a student writes) into a list of Exercises; running one gives passed, not done
// yet (the function threw NotDone) or wrong, with what was expected, what came back and on which
// input. Implementations register themselves by variant: "student" (exercises/NN_topic/, the
// binary build/exercise-NN), "solution" (exercises/solutions/), and the wrong answers
// (tests/exercises/), which only the self-test (build/exercise-selftest, run by make test) links.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "exercises/not_done.h"
#include "tensor/random.h"

namespace heed::check {

// A check's verdict that the answer is wrong; the message says how.
class Wrong : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
[[noreturn]] void wrong(const std::string& message);

struct Exercise {
  std::string name;                 // the function to write, e.g. "tanh_backward"
  std::function<void()> check;      // throws Wrong (or the student's NotDone) unless right
};

// Refused: the answer calls a library function that does the exercise for it (its chapter's
// forbidden list); the check is not run.
enum class Status { kPassed, kNotDone, kWrong, kRefused };
struct Outcome {
  Status status = Status::kPassed;
  std::string detail;  // the not_done text, what is wrong, or which call was refused
};
// Runs one check: NotDone -> not done yet; Wrong, heed::Error or any other exception -> wrong.
Outcome run(const Exercise& e);
const char* status_word(Status s);  // "passed", "not done yet", "wrong", "refused"
const char* status_key(Status s);   // the results document's: "passed", "not done", "wrong", "refused"

// ---- what an answer may not call
// Per exercise, the library functions it may not use (patterns of objects.h's names_function):
// its own reference and anything else that does the whole job. Every exercise also may not call
// the checker (heed::check) or the solutions (heed::solution): kAlwaysForbidden.
using ForbiddenCalls = std::map<std::string, std::vector<std::string>>;
extern const std::vector<std::string> kAlwaysForbidden;
// The exercise's list with kAlwaysForbidden added.
std::vector<std::string> forbidden_for(const ForbiddenCalls& table, const std::string& exercise);

// ---- the grader's seed (make exercises SEED=N, build/exercise-NN --seed N)
// Every random input of a check comes from a Generator seeded with seed(k), k the check's own
// number: k itself by default (the inputs the students see), else a mix of the grader's N and k,
// so that each check draws other inputs and an answer that hard-codes outputs fails.
void set_grader_seed(std::optional<uint64_t> n);
std::optional<uint64_t> grader_seed();
uint64_t seed(uint64_t k);

// ---- registration (static objects in the check, solution and wrong-answer files)
struct Chapter {
  std::string number;   // "02"
  std::string folder;   // "exercises/02_autograd"
  std::string variant;  // "student", "solution" or "extra" (a grader's private checks)
  std::function<std::vector<Exercise>()> make;
  ForbiddenCalls forbidden = {};  // per exercise, what the answer may not call (the student variant's)
};
struct WrongAnswer {
  std::string number;    // the chapter
  std::string exercise;  // which exercise it gets wrong
  std::string mistake;   // what is wrong with it
  std::function<std::vector<Exercise>()> make;  // the solution with that one function replaced
  std::string says = {};  // if set, the check's report must contain it: the label names the mistake
};
struct Register {
  explicit Register(Chapter c);
};
struct RegisterWrong {
  explicit RegisterWrong(WrongAnswer w);
};
std::vector<Chapter>& chapters();
std::vector<WrongAnswer>& wrong_answers();

// ---- helpers for checks
// Uniform in [lo, hi), drawn from gen.
Tensor random(const Shape& shape, Generator& gen, real lo = -1, real hi = 1);
// "x [2, 3] = tensor([[...]])", or just its shape when it is large: names a check's input.
std::string describe(const std::string& name, const Tensor& t);
// Throws Wrong unless got has expected's shape and every element is within atol + rtol |expected|;
// the message names `what`, the first element that differs, both values, and `input`.
void expect_close(const Tensor& got, const Tensor& expected, const std::string& what, const std::string& input,
                  real rtol = 1e-9, real atol = 1e-12);
void expect_shape(const Tensor& got, const Shape& expected, const std::string& what, const std::string& input);
// A gradient check of f in double by central differences; Wrong with the report's table unless it passes.
void expect_gradcheck(const std::string& what, const std::function<Var(const std::vector<Var>&)>& f,
                      const std::vector<Tensor>& inputs, const std::string& input_text);

// ---- the larger cases: sizes the engine meets
// An odd size drawn from gen in [lo, hi] (lo odd). Each check adds cases of such sizes, drawn per
// seed, past the widths a loop may be unrolled or blocked by (4, 8, 16, 32, 64) and past a
// source of 12: the engine runs a piece at a model's sizes (hidden 64, a vocabulary of 100, a
// source of 20), so a piece wrong only there must fail its check, not pass it.
int64_t odd_size(Generator& gen, int64_t lo, int64_t hi);
// f against reference on the same inputs, where a gradient check by central differences would be
// slow: the values, then the gradients of sum(out * r), r drawn from gen, with respect to every
// input, each within atol + rtol |expected|.
void expect_same_as(const std::string& what, const std::function<Var(const std::vector<Var>&)>& f,
                    const std::function<Var(const std::vector<Var>&)>& reference, const std::vector<Tensor>& inputs,
                    const std::string& input_text, Generator& gen, real rtol = 1e-10, real atol = 1e-12);

// A differentiable op from a value and a plain backward function on tensors: backward(dy)
// returns one gradient per input (the shape of that input). This is how a student's backward
// of chapter 02 or 04 becomes part of a graph that gradcheck can test.
Var custom_op(const char* name, const std::vector<Var>& inputs, Tensor value,
              std::function<std::vector<Tensor>(const Tensor& dy)> backward);

}  // namespace heed::check
