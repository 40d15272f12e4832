// Chapter 07: write these three functions, then run `make exercise-07`.
// Useful ops (autograd/functions.h): matmul_nt(x, W) = x W^T for 2-D x (reshape h (B, S, H) to
// (B * S, H) first, and back after), reshape, tanh, softmax, masked_fill, where, sum(x, axis),
// and + - * between Vars (with NumPy broadcasting: (B, S, A) + (B, 1, A) adds to every position).
#include "exercises/07_additive_attention/exercises.h"

namespace heed::student {

Var additive_scores(const Var& h, const Var& s, const Var& W1, const Var& W2, const Var& v) {
  not_done("write additive_scores: v^T tanh(W1 h_i + W2 s) for every position i");
}

Var masked_softmax_rows(const Var& scores, const Tensor& mask) {
  not_done("write masked_softmax_rows: softmax over the mask's 1s; exactly 0 elsewhere; an empty row all 0");
}

Var context_vector(const Var& weights, const Var& values) {
  not_done("write context_vector: the weighted sum of the values over the positions");
}

}  // namespace heed::student

// ---- The capstone: a decoder step and the training loop, on heed's modules (m's members) and
// your three functions above. Useful: m.tgt_embed.forward(ids), m.cell.step(x, State{s, Var()}).h,
// concat({a, b}, 1), m.out.forward(x), stack(vars, 1), m.encoder.forward(x, lengths) (.states,
// .last.h), length_mask(lengths, S, "capstone"), cross_entropy(logits, targets, Vocab::kPad),
// sample_batch(task, data, batch), adam.zero_grad(), loss.backward(), clip_grad_norm(params, 1),
// adam.set_lr(lr), adam.step().
namespace heed::student {

Var decoder_step(const course::AttentionModel& m, const std::vector<int64_t>& prev, Var& s, const Var& h, const Tensor& mask) {
  not_done("write decoder_step: score with s_{t-1}, weights, context; s_t = cell([y; c], s); logits of [s_t; c]");
}

Var batch_loss(const course::AttentionModel& m, const Batch& batch) {
  not_done("write batch_loss: encode, one decoder_step per target position (tgt_in), cross-entropy against tgt_out");
}

std::vector<real> train_loop(course::AttentionModel& m, Adam& adam, const Task& task, Generator& data, int64_t steps,
                             int64_t batch, real lr) {
  not_done("write train_loop: per step a batch, its loss, zero_grad, backward, clip to 1, the decayed rate, Adam");
}

}  // namespace heed::student
