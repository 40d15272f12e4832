// Hooks: named points inside a model's forward pass where an activation may be read or replaced,
// TransformerLens's HookPoint, run_with_cache and run_with_hooks in one small object. A model's
// forward takes a Hooks* (nullptr: no hooks, the plain forward, the same bits and no string
// built); at each named activation it calls hooks->at(name, x) and goes on with what that returns.
//   cache(names) / cache_all()  at() keeps a copy of the activation's value under its name
//   add(name, fn)               at() returns fn(x) instead of x: ablation and patching are hooks
// Names and shapes are listed in docs/hooks.md. The activations of a teacher-forced pass keep
// their graph: a hook's replacement is differentiable as any Var is.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "autograd/var.h"

namespace heed {

class Hooks {
 public:
  using Fn = std::function<Var(const Var& x)>;  // the activation -> its replacement (same shape)

  void cache_all() { cache_all_ = true; }
  void cache(const std::vector<std::string>& names) { cached_names_.insert(names.begin(), names.end()); }
  // fn replaces the activation `name`; several functions on one name run in the order added.
  void add(const std::string& name, Fn fn) { fns_[name].push_back(std::move(fn)); }

  // The hook point: what the model computes on with instead of x (x itself when nothing is added
  // on `name`). Records the name, and caches the value that leaves the point when asked to.
  Var at(const std::string& name, const Var& x);
  // Whether a function replaces `name` (a model may compute an activation it does not need,
  // such as each head's result, only when it is read or replaced).
  bool replaces(const std::string& name) const { return fns_.count(name) > 0; }
  bool wants(const std::string& name) const { return cache_all_ || cached_names_.count(name) > 0 || replaces(name); }

  // Every name the last passes went through, in the order first met, and the cached values.
  const std::vector<std::string>& names() const { return names_; }
  const std::map<std::string, Tensor>& cached() const { return cached_; }
  // The cached value of `name`; heed::Error naming it when it was not cached.
  const Tensor& operator[](const std::string& name) const;

 private:
  bool cache_all_ = false;
  std::set<std::string> cached_names_;
  std::map<std::string, std::vector<Fn>> fns_;
  std::vector<std::string> names_;
  std::set<std::string> seen_;
  std::map<std::string, Tensor> cached_;
};

// The models' call: x when hooks is null, else hooks->at(prefix + name, x).
inline Var hook(Hooks* hooks, const std::string& prefix, const char* name, const Var& x) {
  return hooks ? hooks->at(prefix + name, x) : x;
}

}  // namespace heed
