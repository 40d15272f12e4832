#include "nn/hooks.h"

#include "tensor/tensor.h"

namespace heed {

Var Hooks::at(const std::string& name, const Var& x) {
  if (seen_.insert(name).second) names_.push_back(name);
  Var out = x;
  auto it = fns_.find(name);
  if (it != fns_.end())
    for (const Fn& fn : it->second) {
      Var replaced = fn(out);
      if (replaced.shape() != out.shape())
        throw Error("hook " + name + ": returned " + shape_str(replaced.shape()) + " for an activation of " +
                    shape_str(out.shape()));
      out = replaced;
    }
  if (cache_all_ || cached_names_.count(name)) cached_[name] = out.value();
  return out;
}

const Tensor& Hooks::operator[](const std::string& name) const {
  auto it = cached_.find(name);
  if (it == cached_.end()) throw Error("hooks: no activation '" + name + "' was cached");
  return it->second;
}

}  // namespace heed
