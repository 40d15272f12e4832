// Chapter 07's exercises: Bahdanau's additive score, the masked softmax that turns scores into
// weights over the real source positions, and the context vector; then the capstone, a decoder
// step and the training loop built on them. Built from autograd ops; the
// check compares them with the library's attention and trains a model with your score.
// What each must do: README.md in this folder.
#pragma once

#include <cmath>

#include "autograd/functions.h"
#include "exercises/not_done.h"
#include "models/tasks/tasks.h"
#include "models/tasks/vocab.h"
#include "nn/embedding.h"
#include "nn/encoder.h"
#include "nn/linear.h"
#include "nn/optim.h"
#include "nn/rnn_cell.h"

namespace heed::student {

// e (B, S): e[b, i] = v^T tanh(W1 h[b, i] + W2 s[b]), for the encoder states h (B, S, H), the
// decoder state s (B, Hq), W1 (A, H), W2 (A, Hq), v (A). No biases.
Var additive_scores(const Var& h, const Var& s, const Var& W1, const Var& W2, const Var& v);

// The softmax of each row of scores (B, S) over the positions where mask (B, S) is 1 (real
// source positions). A masked position gets exactly 0; a row with no real position gets all 0
// (never NaN). Stable for scores of any finite size.
Var masked_softmax_rows(const Var& scores, const Tensor& mask);

// c (B, D): c[b] = sum_i weights[b, i] values[b, i], for weights (B, S) and values (B, S, D).
Var context_vector(const Var& weights, const Var& values);

}  // namespace heed::student

// ---- The chapter's capstone (07.4-07.6): Bahdanau's decoder and its training loop, assembled from
// heed's modules and your three pieces above. README.md in this folder, "The capstone".
namespace heed::course {

// The weights of chapter 07's model (heed train --model additive --cell gru), as heed's modules.
// Named as heed's own model names them (the score's weights attention_v, attention_W1 and
// attention_W2 for its attention.v.weight, ...), so that the check can start yours from the very
// weights heed's model starts from.
struct AttentionModel : Module {
  AttentionModel(int64_t vocab, int64_t embed, int64_t hidden, Generator& gen)
      : src_embed(vocab, embed, gen, Vocab::kPad),
        tgt_embed(vocab, embed, gen, Vocab::kPad),
        encoder("gru", embed, hidden, false, gen),
        cell(embed + hidden, hidden, gen),
        out(2 * hidden, vocab, true, gen) {
    register_module("src_embed", src_embed);
    register_module("tgt_embed", tgt_embed);
    register_module("encoder", encoder);
    register_module("decoder", cell);
    const real bound = 1 / std::sqrt(static_cast<real>(hidden));  // as a Linear(H, H)'s
    v = register_parameter("attention_v", Tensor::uniform({hidden}, -bound, bound, gen));
    W1 = register_parameter("attention_W1", Tensor::uniform({hidden, hidden}, -bound, bound, gen));
    W2 = register_parameter("attention_W2", Tensor::uniform({hidden, hidden}, -bound, bound, gen));
    register_module("out", out);
  }
  Embedding src_embed, tgt_embed;  // token ids -> (N, E); PAD's row is zero
  RecurrentEncoder encoder;        // GRU over the source: states (B, S, H), last.h (B, H)
  GRUCell cell;                    // the decoder's cell: [y; c] (B, E + H), s (B, H) -> s' (B, H)
  Var v, W1, W2;                   // additive_scores' weights: (H), (H, H), (H, H)
  Linear out;                      // [s_t; c_t] (B, 2H) -> logits (B, V)
};

}  // namespace heed::course

namespace heed::student {

// 07.4: one step of Bahdanau's decoder. From the previous tokens prev (B) and the state s (B, H),
// s_{t-1} on entry: the scores of the encoder states h (B, S, H) against s_{t-1}
// (additive_scores), the weights over the real positions of mask (B, S) (masked_softmax_rows), the
// context c_t (context_vector), s_t = cell([emb(prev); c_t], s_{t-1}) (s is set to s_t), and
// returns the logits out([s_t; c_t]) (B, V).
Var decoder_step(const course::AttentionModel& m, const std::vector<int64_t>& prev, Var& s, const Var& h, const Tensor& mask);

// 07.5: the teacher-forced loss of one batch: encode batch.src (the decoder starts from the
// encoder's last state), one decoder_step per target position reading batch.tgt_in (BOS first),
// and the mean cross-entropy of the logits against batch.tgt_out, PAD ignored.
Var batch_loss(const course::AttentionModel& m, const Batch& batch);

// 07.6: the training loop: `steps` batches of `batch` examples drawn from task with data
// (sample_batch), each: its loss, the gradients, clipped to a global norm of 1, and an Adam step
// at the rate lr (1 - t / steps) for step t = 0, 1, ... (adam was made with m.parameters()).
// Returns every step's loss. heed's own training (models/train.cpp) does exactly this.
std::vector<real> train_loop(course::AttentionModel& m, Adam& adam, const Task& task, Generator& data, int64_t steps,
                             int64_t batch, real lr);

}  // namespace heed::student
