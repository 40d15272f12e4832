// gradcheck: compares the gradients backward() computes with central differences,
// (f(x + eps) - f(x - eps)) / (2 eps), element by element, in double precision.
// An element fails when |analytic - numeric| > atol + rtol * |numeric| (torch.autograd.gradcheck's
// rule). The defaults, atol 1e-8 and rtol 1e-6, are a thousand times tighter than PyTorch's
// (1e-5, 1e-3): in double precision with central differences a correct backward agrees to about
// 1e-10, and every check in the tests needs at most a tenth of these bounds, while PyTorch's pass
// a backward that is 0.05 % wrong. A non-scalar output is reduced to a scalar by a fixed random
// projection sum(out * R), so every output element takes part. On failure the report shows the
// worst elements side by side, analytic against numeric.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "autograd/var.h"

namespace heed {

// Why gradcheck refuses to run in the float build (make float): in float, central differences
// carry errors near 1e-3, larger than the mistakes the check exists to find.
inline constexpr const char* kGradcheckNeedsDouble =
    "gradcheck: needs double precision, and this is the float build (heed::real is float): in float, "
    "central differences cannot tell a right gradient from a wrong one (tutorials/03_gradient_checking, "
    "'Estimating a derivative'); run it in the default, double build";

struct GradcheckOptions {
  real eps = 1e-6;
  real atol = 1e-8;
  real rtol = 1e-6;
  uint64_t seed = 1234;  // for the projection of a non-scalar output
  std::string name = "f";  // the op or layer under test, for the report
};

// One element's two derivatives.
struct GradcheckEntry {
  int64_t input = -1;  // which input
  Shape index;         // where in it
  real analytic = 0, numeric = 0;
  real excess = 0;     // |analytic - numeric| - (atol + rtol |numeric|): > 0 fails
};

struct GradcheckReport {
  bool ok = true;
  std::string name;
  int64_t elements = 0;  // how many elements were checked
  // The worst element (largest excess over the tolerance):
  int64_t input = -1;    // which input
  Shape input_shape;
  int64_t element = -1;  // flat index in that input
  Shape index;           // the same as a multi-index
  real analytic = 0, numeric = 0;
  real max_abs_err = 0, max_rel_err = 0;  // over all elements
  std::vector<GradcheckEntry> worst;        // up to 10 elements, the largest excess first

  // One paragraph a student can read; on failure, a table of the worst elements follows.
  std::string str() const;
};

// Checks d f() / d inputs; throws kGradcheckNeedsDouble in the float build. f rebuilds the graph from the current values of `inputs` every
// time it is called; gradcheck perturbs those values in place and restores them.
// REQUIRES: every input is a leaf that requires grad.
GradcheckReport gradcheck(const std::function<Var()>& f, const std::vector<Var>& inputs,
                          const GradcheckOptions& options = {});

// The same for a function of fresh inputs made from `values`.
GradcheckReport gradcheck(const std::function<Var(const std::vector<Var>&)>& f, const std::vector<Tensor>& values,
                          const GradcheckOptions& options = {});

}  // namespace heed
