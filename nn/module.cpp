#include "nn/module.h"

namespace heed {

void Module::check_new_name(const std::string& name) const {
  if (name.empty() || name.find('.') != std::string::npos)
    throw Error("Module: name '" + name + "' must be non-empty and have no '.'");
  for (const auto& p : params_)
    if (p.first == name) throw Error("Module: name '" + name + "' is already a parameter");
  for (const auto& c : children_)
    if (c.first == name) throw Error("Module: name '" + name + "' is already a submodule");
}

Var Module::register_parameter(const std::string& name, Tensor value) {
  check_new_name(name);
  Var v(std::move(value), true);
  params_.emplace_back(name, v);
  return v;
}

void Module::register_parameter(const std::string& name, const Var& v) {
  check_new_name(name);
  if (!v.defined() || !v.requires_grad())
    throw Error("Module: parameter '" + name + "' must be a Var that requires grad");
  params_.emplace_back(name, v);
}

void Module::register_module(const std::string& name, Module& child) {
  check_new_name(name);
  children_.emplace_back(name, &child);
}

void Module::collect(const std::string& prefix, std::vector<std::pair<std::string, Var>>& out) const {
  for (const auto& [name, v] : params_) out.emplace_back(prefix + name, v);
  for (const auto& [name, child] : children_) child->collect(prefix + name + ".", out);
}

std::vector<std::pair<std::string, Var>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Var>> out;
  collect("", out);
  return out;
}

std::vector<Var> Module::parameters() const {
  std::vector<Var> out;
  for (auto& [name, v] : named_parameters()) out.push_back(v);
  return out;
}

int64_t Module::num_parameters() const {
  int64_t n = 0;
  for (const Var& v : parameters()) n += v.value().numel();
  return n;
}

void Module::zero_grad() {
  for (Var& v : parameters()) v.zero_grad();
}

}  // namespace heed
