// Optimisers with torch.optim's update rules, and gradient-norm clipping.
// An optimiser holds handles to its parameters (leaf Vars that require grad) and updates their
// values in place. Its state tensors (momentum, moments) are allocated once, in the constructor,
// so step() allocates nothing. A parameter that has no gradient yet (none arrived since the last
// zero_grad) is treated as having a zero gradient: momentum, moments and weight decay still act on
// it. PyTorch skips such a parameter instead; the two differ only for a parameter a step did not use.
#pragma once

#include <cstdint>
#include <vector>

#include "autograd/var.h"

namespace heed {

class Optimizer {
 public:
  // REQUIRES: every parameter is a leaf Var that requires grad (else heed::Error).
  explicit Optimizer(std::vector<Var> params);
  virtual ~Optimizer();
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  virtual void step() = 0;
  // Drops every gradient (PyTorch's set_to_none): the next backward() starts them afresh.
  void zero_grad();
  void set_lr(real lr);  // REQUIRES: lr >= 0; for schedules
  real lr() const { return lr_; }
  const std::vector<Var>& params() const { return params_; }

 protected:
  // The gradient of parameter i, or nullptr when none has arrived. Throws heed::Error naming
  // `op` when the parameter's size changed since the optimiser was made (its state would not fit).
  const real* grad_or_null(size_t i, const char* op) const;
  // A zero tensor of each parameter's shape: the state of one kind (a buffer, a moment).
  std::vector<Tensor> zeros_like_params() const;

  std::vector<Var> params_;
  std::vector<int64_t> numels_;  // sizes when made
  real lr_ = 0;
};

// torch.optim.SGD (dampening 0, no Nesterov): g = grad + weight_decay * p;
// with momentum, buf = g at the first step and buf = momentum * buf + g after, g = buf; p -= lr * g.
class SGD : public Optimizer {
 public:
  SGD(std::vector<Var> params, real lr, real momentum = 0, real weight_decay = 0);
  void step() override;

 private:
  real momentum_, weight_decay_;
  std::vector<Tensor> buffers_;  // momentum buffers, one per parameter (none without momentum)
};

// torch.optim.Adam (not AdamW; weight decay is L2 added to the gradient): at step t,
// g = grad + weight_decay * p; m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2;
// p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).
class Adam : public Optimizer {
 public:
  Adam(std::vector<Var> params, real lr = 1e-3, real beta1 = 0.9, real beta2 = 0.999, real eps = 1e-8,
       real weight_decay = 0);
  void step() override;
  int64_t steps() const { return t_; }
  // The state a resumed run needs besides the weights (torch's state_dict calls the moments
  // exp_avg and exp_avg_sq): one tensor per parameter, in the parameters' order.
  const std::vector<Tensor>& exp_avg() const { return m_; }
  const std::vector<Tensor>& exp_avg_sq() const { return v_; }
  // Puts back a state saved from steps() and the moments. Checked whole before anything
  // changes: a count per parameter of its shape, finite, exp_avg_sq >= 0, steps >= 0 (else
  // heed::Error naming the parameter's index).
  void load_state(int64_t steps, std::vector<Tensor> exp_avg, std::vector<Tensor> exp_avg_sq);

 private:
  real beta1_, beta2_, eps_, weight_decay_;
  std::vector<Tensor> m_, v_;  // first and second moments, one per parameter
  int64_t t_ = 0;              // steps taken
};

// Scales all gradients together so that their joint L2 norm is at most max_norm, as
// torch.nn.utils.clip_grad_norm_: every gradient is multiplied by max_norm / (norm + 1e-6) when
// that factor is below 1. Returns the norm before clipping. Parameters without a gradient count
// as zero. A non-finite norm throws heed::Error (PyTorch would spread the NaN into every gradient).
real clip_grad_norm(const std::vector<Var>& params, real max_norm);

}  // namespace heed
