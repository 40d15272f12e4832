// Sequential: layers applied one after another, as torch.nn.Sequential. Each step is a layer that
// Sequential builds and owns (any Module with `Var forward(const Var&) const`: Linear, LayerNorm,
// another Sequential) or a function with no parameters (relu, tanh, sigmoid). forward(x) is
// x -> step 0 -> step 1 -> ...; the gradient flows back through each step's own ops.
// Steps are numbered from 0 in the order added, functions included, and a layer's parameters are
// named by its number as PyTorch names them: add<Linear>, add(relu), add<Linear> give "0.weight",
// "0.bias", "2.weight", "2.bias".
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nn/module.h"

namespace heed {

class Sequential : public Module {
 public:
  Sequential() = default;

  // Builds a Layer(args...) as the next step and returns it (it lives as long as the Sequential).
  template <typename Layer, typename... Args>
  Layer& add(Args&&... args) {
    auto layer = std::make_unique<Layer>(std::forward<Args>(args)...);
    Layer& ref = *layer;
    register_module(std::to_string(steps_.size()), ref);
    steps_.push_back([&ref](const Var& x) { return ref.forward(x); });
    layers_.push_back(std::move(layer));
    return ref;
  }
  // A function with no parameters as the next step: add(relu), add(tanh).
  void add(Var (*fn)(const Var&)) { steps_.push_back(fn); }

  // x through every step in order; x itself when there are none.
  Var forward(const Var& x) const;
  int64_t size() const { return static_cast<int64_t>(steps_.size()); }

 private:
  std::vector<std::function<Var(const Var&)>> steps_;
  std::vector<std::unique_ptr<Module>> layers_;  // the layers add<Layer> built
};

}  // namespace heed
