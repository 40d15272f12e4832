#include "nn/encoder.h"

#include "autograd/functions.h"

namespace heed {

Tensor length_mask(const std::vector<int64_t>& lengths, int64_t S, const char* op) {
  const int64_t B = static_cast<int64_t>(lengths.size());
  Tensor m = Tensor::zeros({B, S});
  for (int64_t b = 0; b < B; ++b) {
    if (lengths[b] < 1 || lengths[b] > S)
      throw Error(std::string(op) + ": length " + std::to_string(lengths[b]) + " of sequence " + std::to_string(b) +
                  " is outside [1, " + std::to_string(S) + "]");
    for (int64_t t = 0; t < lengths[b]; ++t) m[b * S + t] = 1;
  }
  return m;
}

RecurrentEncoder::RecurrentEncoder(const std::string& cell, int64_t input_size, int64_t hidden_size,
                                   bool bidirectional, Generator& gen)
    : forward_(make_cell(cell, input_size, hidden_size, gen)) {
  if (bidirectional) backward_ = make_cell(cell, input_size, hidden_size, gen);
  // nn.GRU's names, so that a checkpoint loads into it with no renaming.
  for (const auto& [c, suffix] : {std::pair<const Cell*, const char*>{forward_.get(), "_l0"},
                                  {backward_.get(), "_l0_reverse"}}) {
    if (!c) continue;
    register_parameter(std::string("weight_ih") + suffix, c->weight_ih);
    register_parameter(std::string("weight_hh") + suffix, c->weight_hh);
    register_parameter(std::string("bias_ih") + suffix, c->bias_ih);
    register_parameter(std::string("bias_hh") + suffix, c->bias_hh);
  }
}

namespace {

// Runs `cell` over time in the order given; returns the per-step states (B, H), already
// zero at padded positions, indexed by position, and the state after the last step. `carried`
// (optional) receives the state carried on from each position, indexed by position.
std::vector<Var> unroll(const Cell& cell, const Var& projected, const Tensor& mask, bool reverse, State& state,
                        std::vector<Var>* carried = nullptr) {
  const int64_t B = projected.shape()[0], S = projected.shape()[1];
  // With no padding in the batch every `where` below would pick its first argument, so it is
  // left out: the values and the gradients are the same, bit for bit (a where passes zeros to
  // the side it did not pick, and adding zero changes nothing).
  bool padded = false;
  for (int64_t k = 0; k < mask.numel(); ++k) padded = padded || mask[k] == 0;
  std::vector<Var> out(S);
  Var zero(Tensor::zeros({B, cell.hidden_size()}));
  for (int64_t k = 0; k < S; ++k) {
    int64_t t = reverse ? S - 1 - k : k;
    State next = cell.step_at(projected, t, state);  // reads projected[:, t] in place
    if (!padded) {
      state = next;
      out[t] = state.h;
    } else {
      // A padded step keeps the previous state exactly, and contributes nothing.
      Tensor m = slice(mask, 1, t, t + 1);  // (B, 1): 1 where position t is real
      state.h = where(m, next.h, state.h);
      if (state.c.defined()) state.c = where(m, next.c, state.c);
      out[t] = where(m, state.h, zero);
    }
    if (carried) carried->push_back(state.h);  // for inspecting gradients (chapter 10)
  }
  return out;
}

}  // namespace

EncoderOutput RecurrentEncoder::forward(const Var& inputs, const std::vector<int64_t>& lengths) const {
  if (inputs.value().dim() != 3 || inputs.shape()[2] != forward_->input_size() ||
      inputs.shape()[0] != static_cast<int64_t>(lengths.size()))
    throw Error("encoder: inputs " + shape_str(inputs.shape()) + " must be (B, S, " +
                std::to_string(forward_->input_size()) + ") with B = " + std::to_string(lengths.size()) +
                " lengths");
  const int64_t B = inputs.shape()[0], S = inputs.shape()[1];
  Tensor mask = length_mask(lengths, S, "encoder");
  State fwd = forward_->zero_state(B);
  EncoderOutput out;
  std::vector<Var> states = unroll(*forward_, forward_->input_projection(inputs), mask, false, fwd, &out.steps);
  if (!backward_) {
    out.states = stack(states, 1);
    out.last = fwd;
    return out;
  }
  State bwd = backward_->zero_state(B);
  std::vector<Var> back = unroll(*backward_, backward_->input_projection(inputs), mask, true, bwd);
  out.states = concat({stack(states, 1), stack(back, 1)}, 2);
  out.last.h = concat({fwd.h, bwd.h}, 1);
  if (fwd.c.defined()) out.last.c = concat({fwd.c, bwd.c}, 1);
  return out;
}

}  // namespace heed
