#include "autograd/gradcheck.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "autograd/functions.h"
#include "tensor/random.h"

namespace heed {

namespace {

Shape unravel(int64_t flat, const Shape& shape) {
  Shape idx(shape.size());
  for (int64_t k = static_cast<int64_t>(shape.size()) - 1; k >= 0; --k) {
    idx[k] = flat % shape[k];
    flat /= shape[k];
  }
  return idx;
}

// Digits that mean something, and no more: a central difference at eps 1e-6 is good to about
// 1e-10, so a derivative shows 8 significant digits and an error 3.
std::string number(real v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}
std::string derivative(real v) { return number(v, 8); }
std::string error(real v) { return number(v, 3); }

}  // namespace

std::string GradcheckReport::str() const {
  std::string s = "gradcheck " + name + ": " + (ok ? "passed" : "FAILED") + " (" + std::to_string(elements) +
                  " elements; max abs error " + error(max_abs_err) + ", max rel error " + error(max_rel_err) + ")";
  if (input >= 0)
    s += std::string("\n  ") + (ok ? "closest to failing" : "worst") + " element: input " + std::to_string(input) +
         " of shape " + shape_str(input_shape) + ", element " + shape_str(index) + "\n  analytic " +
         derivative(analytic) + "  numeric " + derivative(numeric) + "  difference " + error(analytic - numeric);
  if (!ok && !worst.empty()) {
    char line[160];
    std::snprintf(line, sizeof line, "\n  %-5s  %-12s  %16s  %16s  %10s", "input", "element", "analytic", "numeric",
                  "difference");
    s += line;
    for (const GradcheckEntry& e : worst) {
      std::snprintf(line, sizeof line, "\n  %-5lld  %-12s  %16s  %16s  %10s%s", static_cast<long long>(e.input),
                    shape_str(e.index).c_str(), derivative(e.analytic).c_str(), derivative(e.numeric).c_str(),
                    error(e.analytic - e.numeric).c_str(), e.excess > 0 ? "" : "  (within tolerance)");
      s += line;
    }
  }
  return s;
}

GradcheckReport gradcheck(const std::function<Var()>& f, const std::vector<Var>& inputs,
                          const GradcheckOptions& opt) {
  if constexpr (sizeof(real) < 8) throw Error(kGradcheckNeedsDouble);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].requires_grad() || !inputs[i].is_leaf())
      throw Error("gradcheck: input " + std::to_string(i) + " must be a leaf that requires grad");

  // A scalar loss: f itself, or its projection on a fixed random tensor.
  Tensor projection;
  auto loss = [&]() -> Var {
    const Var out = f();  // const: reading a value through a mutable Var counts as changing it
    if (out.value().numel() == 1) return reshape(out, {});
    if (projection.shape() != out.shape()) {
      Generator gen(opt.seed);
      projection = Tensor::uniform(out.shape(), -1, 1, gen);
    }
    return sum(out * Var(projection));
  };

  // Analytic gradients, from a clean slate.
  std::vector<Var> params = inputs;
  for (Var& p : params) p.zero_grad();
  loss().backward();
  std::vector<Tensor> analytic;
  for (Var& p : params) analytic.push_back(p.grad());

  GradcheckReport r;
  r.name = opt.name;
  real worst_excess = -INFINITY;
  struct Entry {
    int64_t input, element;
    real analytic, numeric, excess;
  };
  std::vector<Entry> entries;
  NoGradGuard no_grad;  // the numeric side needs only values
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor& x = params[i].value();
    for (int64_t e = 0; e < x.numel(); ++e) {
      real saved = x[e];
      x[e] = saved + opt.eps;
      real plus = loss().item();
      x[e] = saved - opt.eps;
      real minus = loss().item();
      x[e] = saved;
      real numeric = (plus - minus) / (2 * opt.eps);
      real a = analytic[i][e];
      real abs_err = std::fabs(a - numeric);
      real rel_err = abs_err / std::max(std::fabs(numeric), real(1e-12));
      real excess = abs_err - std::fma(opt.rtol, std::fabs(numeric), opt.atol);
      if (std::isnan(excess)) excess = INFINITY;  // a NaN anywhere is a failure
      ++r.elements;
      r.max_abs_err = std::max(r.max_abs_err, abs_err);
      if (std::fabs(numeric) > opt.atol) r.max_rel_err = std::max(r.max_rel_err, rel_err);
      if (excess > 0) r.ok = false;
      entries.push_back({static_cast<int64_t>(i), e, a, numeric, excess});
      if (excess > worst_excess) {  // the worst element is a failing one whenever any fails
        worst_excess = excess;
        r.input = static_cast<int64_t>(i);
        r.input_shape = x.shape();
        r.element = e;
        r.index = unravel(e, x.shape());
        r.analytic = a;
        r.numeric = numeric;
      }
    }
  }
  // The ten largest excesses, worst first (ties in input and element order).
  const size_t n = std::min<size_t>(10, entries.size());
  std::partial_sort(entries.begin(), entries.begin() + n, entries.end(), [](const Entry& a, const Entry& b) {
    if (a.excess != b.excess) return a.excess > b.excess;
    return a.input != b.input ? a.input < b.input : a.element < b.element;
  });
  for (size_t k = 0; k < n; ++k) {
    const Entry& e = entries[k];
    r.worst.push_back({e.input, unravel(e.element, params[e.input].shape()), e.analytic, e.numeric, e.excess});
  }
  for (Var& p : params) p.zero_grad();
  return r;
}

GradcheckReport gradcheck(const std::function<Var(const std::vector<Var>&)>& f, const std::vector<Tensor>& values,
                          const GradcheckOptions& options) {
  std::vector<Var> inputs;
  for (const Tensor& v : values) inputs.emplace_back(v, true);
  return gradcheck([&] { return f(inputs); }, inputs, options);
}

}  // namespace heed
