#include "exercises/check/check.h"

#include <cmath>
#include <cstdio>

namespace heed::check {

void wrong(const std::string& message) { throw Wrong(message); }

Outcome run(const Exercise& e) {
  try {
    e.check();
    return {Status::kPassed, ""};
  } catch (const NotDone& n) {
    return {Status::kNotDone, n.what()};
  } catch (const Wrong& w) {
    return {Status::kWrong, w.what()};
  } catch (const Error& err) {
    return {Status::kWrong, std::string("it threw heed::Error: ") + err.what()};
  } catch (const std::exception& err) {
    return {Status::kWrong, std::string("it threw: ") + err.what()};
  }
}

const char* status_word(Status s) {
  switch (s) {
    case Status::kPassed: return "passed";
    case Status::kNotDone: return "not done yet";
    case Status::kWrong: return "wrong";
    case Status::kRefused: return "refused";
  }
  return "?";
}

const char* status_key(Status s) { return s == Status::kNotDone ? "not done" : status_word(s); }

const std::vector<std::string> kAlwaysForbidden = {"heed::check", "heed::solution"};

std::vector<std::string> forbidden_for(const ForbiddenCalls& table, const std::string& exercise) {
  std::vector<std::string> out;
  if (auto it = table.find(exercise); it != table.end()) out = it->second;
  out.insert(out.end(), kAlwaysForbidden.begin(), kAlwaysForbidden.end());
  return out;
}

namespace {
std::optional<uint64_t>& the_grader_seed() {
  static std::optional<uint64_t> n;
  return n;
}
}  // namespace

void set_grader_seed(std::optional<uint64_t> n) { the_grader_seed() = n; }
std::optional<uint64_t> grader_seed() { return the_grader_seed(); }

uint64_t seed(uint64_t k) {
  if (!the_grader_seed()) return k;
  // splitmix64's finaliser of N and k: nearby N or k give unrelated seeds.
  uint64_t z = *the_grader_seed() * 0x9E3779B97F4A7C15ull + k;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<Chapter>& chapters() {
  static std::vector<Chapter> all;
  return all;
}
std::vector<WrongAnswer>& wrong_answers() {
  static std::vector<WrongAnswer> all;
  return all;
}
Register::Register(Chapter c) { chapters().push_back(std::move(c)); }
RegisterWrong::RegisterWrong(WrongAnswer w) { wrong_answers().push_back(std::move(w)); }

Tensor random(const Shape& shape, Generator& gen, real lo, real hi) { return Tensor::uniform(shape, lo, hi, gen); }

std::string describe(const std::string& name, const Tensor& t) {
  if (t.numel() <= 24) return name + " " + shape_str(t.shape()) + " = " + t.str(6);
  return name + " of shape " + shape_str(t.shape());
}

namespace {

std::string number(real v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string index_str(int64_t flat, const Shape& shape) {
  Shape idx(shape.size());
  for (int64_t k = static_cast<int64_t>(shape.size()) - 1; k >= 0; --k) {
    idx[k] = flat % shape[k];
    flat /= shape[k];
  }
  return shape_str(idx);
}

}  // namespace

void expect_shape(const Tensor& got, const Shape& expected, const std::string& what, const std::string& input) {
  if (got.shape() != expected)
    wrong(what + " has shape " + shape_str(got.shape()) + ", expected " + shape_str(expected) + "\n  input: " + input);
}

void expect_close(const Tensor& got, const Tensor& expected, const std::string& what, const std::string& input,
                  real rtol, real atol) {
  expect_shape(got, expected.shape(), what, input);
  for (int64_t i = 0; i < got.numel(); ++i) {
    real g = got[i], e = expected[i];
    bool ok = std::isfinite(e) ? std::fabs(g - e) <= atol + rtol * std::fabs(e) : (g == e || (std::isnan(g) && std::isnan(e)));
    if (!ok)
      wrong(what + (got.dim() ? " differs at element " + index_str(i, got.shape()) : std::string(" is wrong")) + ": expected " + number(e) + ", got " +
            number(g) + "\n  input: " + input + (got.numel() <= 24 ? "\n  got      " + got.str(6) + "\n  expected " + expected.str(6) : ""));
  }
}

void expect_gradcheck(const std::string& what, const std::function<Var(const std::vector<Var>&)>& f,
                      const std::vector<Tensor>& inputs, const std::string& input_text) {
  GradcheckOptions opt;
  opt.name = what;
  GradcheckReport r = gradcheck(f, inputs, opt);
  if (!r.ok) wrong(r.str() + "\n  input: " + input_text);
}

int64_t odd_size(Generator& gen, int64_t lo, int64_t hi) { return 2 * gen.randint(lo / 2, (hi - 1) / 2) + 1; }

void expect_same_as(const std::string& what, const std::function<Var(const std::vector<Var>&)>& f,
                    const std::function<Var(const std::vector<Var>&)>& reference, const std::vector<Tensor>& inputs,
                    const std::string& input_text, Generator& gen, real rtol, real atol) {
  std::vector<Var> mine, theirs;
  for (const Tensor& t : inputs) {
    mine.emplace_back(t, true);
    theirs.emplace_back(t, true);
  }
  const Var got = f(mine), expected = reference(theirs);  // const: reading a value changes nothing
  expect_close(got.value(), expected.value(), what, input_text, rtol, atol);
  const Var r(random(expected.shape(), gen));
  sum(got * r).backward();
  sum(expected * r).backward();
  for (size_t i = 0; i < inputs.size(); ++i)
    expect_close(mine[i].grad(), theirs[i].grad(), "the gradient of sum(" + what + " * r) with respect to input " +
                 std::to_string(i) + " (r random)", input_text, rtol, atol);
}

Var custom_op(const char* name, const std::vector<Var>& inputs, Tensor value,
              std::function<std::vector<Tensor>(const Tensor& dy)> backward) {
  std::string op = name;
  const size_t n = inputs.size();
  return make_var(std::move(value), name, inputs, [backward, op, n](Backward& g) {
    std::vector<Tensor> grads = backward(g.grad());
    if (grads.size() != n)
      wrong(op + ": returned " + std::to_string(grads.size()) + " gradients for " + std::to_string(n) + " inputs");
    for (size_t i = 0; i < grads.size(); ++i) {
      const Shape& want = g.input(i).shape();
      if (grads[i].shape() != want)
        wrong(op + ": the gradient of input " + std::to_string(i) + " has shape " + shape_str(grads[i].shape()) +
              ", but that input has shape " + shape_str(want));
      if (g.wants(i)) g.add(i, grads[i]);
    }
  });
}

}  // namespace heed::check
