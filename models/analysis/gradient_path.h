// How far a gradient travels from an output back to the source. For one output step t of a
// teacher-forced decoder, the size of the gradient its loss sends to the encoder's state after
// each source position i, ||d loss_t / d h_i||. In a plain encoder-decoder every path from h_i
// to step t runs through the rest of the encoder and t decoder steps; attention adds a path of
// one step from every h_i to every output. Chapter 10 measures the difference.
#pragma once

#include <cstdint>
#include <vector>

#include "models/seq2seq.h"

namespace heed {

// (S) entry i: ||d loss_t^b / d h_i^b|| averaged over the sequences b of the batch that have a
// position i, where loss_t^b is sequence b's cross-entropy at output step t (0-based, teacher
// forced) and h_i the encoder's forward state after position i (the whole state for gru and
// rnn, the h half for lstm; see EncoderOutput::steps). Counts every path: through the
// recurrence, the decoder's initial state and the attention. Like any backward, it adds to the
// parameters' gradients. REQUIRES: 0 <= t < every tgt_lengths[b] (heed::Error otherwise).
std::vector<real> encoder_gradient_norms(const Seq2Seq& model, const Batch& batch, int64_t t);

}  // namespace heed
