// Module: a layer that owns named parameters and named submodules, as torch.nn.Module.
// Parameters are leaf Vars that require grad; named_parameters() walks the tree in
// registration order and names each by its dotted path ("decoder.out.weight"), the names
// checkpoints use. A module registers its submodules by reference, so modules are neither
// copied nor moved: build them in place (members, or std::unique_ptr for optional parts).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "autograd/var.h"

namespace heed {

class Module {
 public:
  Module() = default;
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  std::vector<std::pair<std::string, Var>> named_parameters() const;
  std::vector<Var> parameters() const;
  int64_t num_parameters() const;  // total number of scalar weights
  void zero_grad();

 protected:
  // REQUIRES: `name` is new in this module and has no '.'.
  Var register_parameter(const std::string& name, Tensor value);
  // Registers a parameter another module made, under a name of this one (the Var is shared):
  // a layer that holds cells can name their weights as PyTorch's fused module does
  // (nn.GRU's weight_ih_l0). REQUIRES: `v` is a leaf that requires grad.
  void register_parameter(const std::string& name, const Var& v);
  void register_module(const std::string& name, Module& child);

 private:
  void collect(const std::string& prefix, std::vector<std::pair<std::string, Var>>& out) const;
  void check_new_name(const std::string& name) const;

  std::vector<std::pair<std::string, Var>> params_;
  std::vector<std::pair<std::string, Module*>> children_;
};

}  // namespace heed
