// RecurrentEncoder: unrolls a cell over a padded batch, left to right, and with
// `bidirectional` also right to left from each sequence's own last real position.
// Padding never influences a real position: a padded step keeps the previous state, and
// the states returned at padded positions are exactly zero. Parameters are named as in a
// one-layer torch.nn.GRU / nn.LSTM / nn.RNN: weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0,
// and the same with _reverse for the right-to-left direction.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nn/rnn_cell.h"

namespace heed {

struct EncoderOutput {
  Var states;  // (B, S, D*H), D = 2 when bidirectional; zero at padded positions
  // Each direction's final state: forward at position length-1, backward at position 0,
  // concatenated along the last axis: h (B, D*H) (and c for an LSTM).
  State last;
  // The forward direction's state after each position t, as the graph node the recurrence
  // carries on to t+1 (before padded positions are zeroed): S Vars of (B, H). Gradients read
  // here (Var::retain_grad) count every path from h_t, through the recurrence and the states.
  std::vector<Var> steps;
};

class RecurrentEncoder : public Module {
 public:
  RecurrentEncoder(const std::string& cell, int64_t input_size, int64_t hidden_size, bool bidirectional,
                   Generator& gen);

  // inputs (B, S, I); lengths (B), each in [1, S].
  EncoderOutput forward(const Var& inputs, const std::vector<int64_t>& lengths) const;

  const Cell& cell() const { return *forward_; }
  bool bidirectional() const { return backward_ != nullptr; }
  int64_t output_size() const { return (bidirectional() ? 2 : 1) * forward_->hidden_size(); }

 private:
  std::unique_ptr<Cell> forward_;   // its parameters registered as weight_ih_l0, ...
  std::unique_ptr<Cell> backward_;  // when bidirectional: weight_ih_l0_reverse, ...
};

// (B, S) mask as a (B, S) tensor: 1 at real positions t < lengths[b], 0 at padding.
// Throws heed::Error unless every length is in [1, S].
Tensor length_mask(const std::vector<int64_t>& lengths, int64_t S, const char* op);

}  // namespace heed
