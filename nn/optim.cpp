#include "nn/optim.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "tensor/math.h"

namespace heed {

namespace {

// Throws unless lo <= value (and value < hi when hi is given): PyTorch's argument checks.
void check_range(const char* op, const char* what, real value, real lo, real hi = INFINITY) {
  if (!(value >= lo && value < hi)) {  // NaN fails too
    char buf[160];
    if (std::isinf(hi)) std::snprintf(buf, sizeof buf, "%s: %s = %g must be finite and >= %g", op, what, value, lo);
    else std::snprintf(buf, sizeof buf, "%s: %s = %g must be in [%g, %g)", op, what, value, lo, hi);
    throw Error(buf);
  }
}

}  // namespace

Optimizer::Optimizer(std::vector<Var> params) : params_(std::move(params)) {
  for (size_t i = 0; i < params_.size(); ++i) {
    const Var& p = params_[i];
    if (!p.defined()) throw Error("Optimizer: parameter " + std::to_string(i) + " is an empty Var");
    if (!p.requires_grad() || !p.is_leaf())
      throw Error("Optimizer: parameter " + std::to_string(i) + " of shape " + shape_str(p.shape()) +
                  " must be a leaf that requires grad (this one is " + p.op() +
                  (p.requires_grad() ? ")" : ", without grad)"));
    numels_.push_back(p.value().numel());
  }
}

Optimizer::~Optimizer() = default;

void Optimizer::zero_grad() {
  for (Var& p : params_) p.zero_grad();
}

void Optimizer::set_lr(real lr) {
  check_range("Optimizer", "lr", lr, 0);
  lr_ = lr;
}

const real* Optimizer::grad_or_null(size_t i, const char* op) const {
  const Var& p = params_[i];
  if (p.value().numel() != numels_[i])
    throw Error(std::string(op) + ": parameter " + std::to_string(i) + " now has shape " +
                shape_str(p.shape()) + ", not the " + std::to_string(numels_[i]) +
                " elements it had when the optimiser was made");
  if (!p.has_grad()) return nullptr;
  const Tensor& g = p.grad();
  if (g.shape() != p.shape())
    throw Error(std::string(op) + ": parameter " + std::to_string(i) + " of shape " + shape_str(p.shape()) +
                " has a gradient of shape " + shape_str(g.shape()));
  return g.data();
}

std::vector<Tensor> Optimizer::zeros_like_params() const {
  std::vector<Tensor> out;
  out.reserve(params_.size());
  for (const Var& p : params_) out.push_back(Tensor::zeros(p.shape()));
  return out;
}

SGD::SGD(std::vector<Var> params, real lr, real momentum, real weight_decay)
    : Optimizer(std::move(params)), momentum_(momentum), weight_decay_(weight_decay) {
  check_range("SGD", "lr", lr, 0);
  check_range("SGD", "momentum", momentum, 0);
  check_range("SGD", "weight_decay", weight_decay, 0);
  lr_ = lr;
  if (momentum_ != 0) buffers_ = zeros_like_params();
}

void SGD::step() {
  for (size_t i = 0; i < params_.size(); ++i) {
    const real* g = grad_or_null(i, "SGD");
    real* p = params_[i].value().data();
    real* buf = momentum_ != 0 ? buffers_[i].data() : nullptr;
    for (int64_t k = 0; k < numels_[i]; ++k) {
      real d = std::fma(weight_decay_, p[k], g ? g[k] : 0);  // g + wd p
      // buf = mu buf + g; buf starts at 0, so the first step sets it to g exactly, as torch's clone
      if (buf) d = buf[k] = std::fma(momentum_, buf[k], d);
      p[k] = std::fma(-lr_, d, p[k]);
    }
  }
}

Adam::Adam(std::vector<Var> params, real lr, real beta1, real beta2, real eps, real weight_decay)
    : Optimizer(std::move(params)), beta1_(beta1), beta2_(beta2), eps_(eps), weight_decay_(weight_decay) {
  check_range("Adam", "lr", lr, 0);
  check_range("Adam", "beta1", beta1, 0, 1);
  check_range("Adam", "beta2", beta2, 0, 1);
  check_range("Adam", "eps", eps, 0);
  check_range("Adam", "weight_decay", weight_decay, 0);
  lr_ = lr;
  m_ = zeros_like_params();
  v_ = zeros_like_params();
}

void Adam::step() {
  ++t_;
  real t = static_cast<real>(t_);
  real step_size = lr_ / (1 - math::pow(beta1_, t));          // lr / (1 - beta1^t)
  real correction2_sqrt = std::sqrt(1 - math::pow(beta2_, t));  // sqrt(1 - beta2^t)
  for (size_t i = 0; i < params_.size(); ++i) {
    const real* g = grad_or_null(i, "Adam");
    real* p = params_[i].value().data();
    real* m = m_[i].data();
    real* v = v_[i].data();
    for (int64_t k = 0; k < numels_[i]; ++k) {
      real d = std::fma(weight_decay_, p[k], g ? g[k] : 0);  // g + wd p
      m[k] = std::fma(beta1_, m[k], (1 - beta1_) * d);      // m = beta1 m + (1 - beta1) d
      v[k] = std::fma(beta2_, v[k], (1 - beta2_) * d * d);  // v = beta2 v + (1 - beta2) d^2
      real denom = std::sqrt(v[k]) / correction2_sqrt + eps_;  // eps after the corrected sqrt, as torch
      p[k] = std::fma(-step_size, m[k] / denom, p[k]);      // p -= step_size m / denom
    }
  }
}

void Adam::load_state(int64_t steps, std::vector<Tensor> exp_avg, std::vector<Tensor> exp_avg_sq) {
  // Up to 2^53: the count stays exact as a double, and step() can add one without overflow.
  if (steps < 0 || steps > (int64_t{1} << 53))
    throw Error("Adam::load_state: steps " + std::to_string(steps) + " is outside [0, 2^53]");
  if (exp_avg.size() != params_.size() || exp_avg_sq.size() != params_.size())
    throw Error("Adam::load_state: " + std::to_string(exp_avg.size()) + " and " + std::to_string(exp_avg_sq.size()) +
                " moments for " + std::to_string(params_.size()) + " parameters");
  for (size_t i = 0; i < params_.size(); ++i) {
    const Shape& want = params_[i].shape();
    if (exp_avg[i].shape() != want || exp_avg_sq[i].shape() != want)
      throw Error("Adam::load_state: the moments of parameter " + std::to_string(i) + " are " +
                  shape_str(exp_avg[i].shape()) + " and " + shape_str(exp_avg_sq[i].shape()) + ", not " +
                  shape_str(want));
    for (int64_t k = 0; k < exp_avg[i].numel(); ++k)
      if (!std::isfinite(exp_avg[i][k]) || !std::isfinite(exp_avg_sq[i][k]) || exp_avg_sq[i][k] < 0)
        throw Error("Adam::load_state: the moments of parameter " + std::to_string(i) + " hold " +
                    std::to_string(exp_avg[i][k]) + " and " + std::to_string(exp_avg_sq[i][k]) + " at flat index " +
                    std::to_string(k) + " (finite, and exp_avg_sq >= 0, expected)");
  }
  t_ = steps;
  m_ = std::move(exp_avg);
  v_ = std::move(exp_avg_sq);
}

real clip_grad_norm(const std::vector<Var>& params, real max_norm) {
  check_range("clip_grad_norm", "max_norm", max_norm, 0);
  real total = 0;
  for (const Var& p : params)
    if (p.defined() && p.has_grad())
      for (real g : p.grad().values()) total = std::fma(g, g, total);
  real norm = std::sqrt(total);
  if (!std::isfinite(norm)) {
    char buf[120];
    std::snprintf(buf, sizeof buf, "clip_grad_norm: the gradient norm is %g; cannot clip a non-finite gradient",
                  norm);
    throw Error(buf);
  }
  real coef = max_norm / (norm + 1e-6);
  if (coef < 1)
    for (Var p : params)  // a handle: scaling its gradient scales the parameter's
      if (p.defined() && p.has_grad())
        for (real& g : p.grad().values()) g *= coef;
  return norm;
}

}  // namespace heed
