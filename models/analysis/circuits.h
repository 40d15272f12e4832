// The papers' circuit scores of a decoder-only model's heads (models/decoder_model.h), read off
// its weights as Elhage et al. 2021 ("A Mathematical Framework for Transformer Circuits") and
// Olsson et al. 2022 ("In-context Learning and Induction Heads") do; models/analysis/heads.h has the
// attention scores (prefix matching, previous token) and the ablations.
//
// Head h of a layer, in the paper's column-vector convention (x a residual-stream column, D rows):
//   W_Q^h, W_K^h, W_V^h (d_head, D)  rows h d_head .. (h+1) d_head - 1 of in_proj_weight's parts
//   W_O^h (D, d_head)                columns h d_head .. of out_proj.weight
//   W_QK^h = W_Q^hT W_K^h (D, D)     the attention score of x_q and x_k is x_q^T W_QK x_k
//   W_OV^h = W_O^h W_V^h  (D, D)     what the head writes for a position it reads
//   W_E = embed.weight^T (D, V), W_U = out.weight (V, D)   (the same table with --share-embeddings)
//
// What is left out, as TransformerLens leaves it out (its circuits, unfolded): biases, positional
// embeddings (the circuits are of tokens), every LayerNorm (read as the identity: heed folds no
// scale in), so on a model with full layers the copying and composition scores are of the
// weights alone, and exact only for attention-only layers, the setting of both papers. Direct
// logit attribution runs the model, so it does see the final LayerNorm (see below).
#pragma once

#include <cstdint>
#include <vector>

#include "models/decoder_model.h"
#include "models/tasks/tasks.h"

namespace heed {

// Head h of layer l's matrices above. REQUIRES: the layer and head exist (else heed::Error).
struct HeadCircuit {
  Tensor w_q, w_k, w_v;  // (d_head, D)
  Tensor w_o;            // (D, d_head)
  Tensor qk() const;     // W_QK = W_Q^T W_K (D, D)
  Tensor ov() const;     // W_OV = W_O W_V (D, D)
};
HeadCircuit head_circuit(const Model& model, int64_t layer, int64_t head);

// Olsson et al.'s copying score: the eigenvalue positivity sum_i lambda_i / sum_i |lambda_i| of
// the full OV circuit W_U W_O W_V W_E (V, V), as Elhage et al. define it (sum lambda is the trace,
// real). +1 for a head whose OV circuit raises the logit of the token it reads (copying), -1 for
// one that lowers it. The V x V matrix has rank d_head at most, and its nonzero eigenvalues are
// those of the small (d_head, d_head) W_V W_E W_U W_O (AB and BA share them): those are solved
// (tensor/eigen.h). 0 for a circuit that is zero.
real copying_score(const Model& model, int64_t layer, int64_t head);
real eigenvalue_positivity(const Tensor& a);  // of any square matrix: sum Re lambda / sum |lambda|

// Elhage et al.'s composition of an earlier head 1 into a later head 2 (||.|| Frobenius):
//   Q-composition  ||W_QK^2T W_OV^1|| / (||W_QK^2|| ||W_OV^1||)   head 1's output in head 2's queries
//   K-composition  ||W_QK^2  W_OV^1|| / (||W_QK^2|| ||W_OV^1||)   ... in its keys
//   V-composition  ||W_OV^2  W_OV^1|| / (||W_OV^2|| ||W_OV^1||)   ... in its values
// Each lies in [0, 1] and does not change when a matrix is scaled. 0 when a matrix is zero.
struct Composition {
  int64_t layer1 = 0, head1 = 0, layer2 = 0, head2 = 0;  // head 1 writes, head 2 reads (layer1 < layer2)
  real q = 0, k = 0, v = 0;
};
Composition compose(const HeadCircuit& first, const HeadCircuit& second);
// Every pair of heads of two different layers, earlier first: by layer1, layer2, head1, head2.
std::vector<Composition> composition_scores(const Model& model);

// The scores random heads get: Q, K and V composition of pairs of heads whose W_Q, W_K, W_V
// (d_head, D) and W_O (D, d_head) have independent N(0, 1) elements (the norm does not matter:
// the scores do not change with scale), averaged over `samples` pairs from Generator(seed). A
// score well above this baseline is composition the training made. REQUIRES: d_head, D, samples >= 1.
struct CompositionBaseline {
  real q = 0, k = 0, v = 0;
  int64_t samples = 0;
};
CompositionBaseline composition_baseline(int64_t embed, int64_t d_head, int64_t samples, uint64_t seed);

// One forward pass taken apart per head, teacher forced on ids (B, T) with lengths (B) real
// positions: result[l] (B, h, T, D) is head h of layer l's output W_O^h z^h at each position
// (TransformerLens's blocks.l.attn.hook_result, without out_proj's bias, which belongs to no head;
// summed over the heads and plus that bias, it is the layer's attention output); residual (B, T, D)
// is the stream after the last layer, before the final LayerNorm. Computed here from each layer's
// input and attention weights (a named-activation hook would hand over the same tensors).
struct HeadOutputs {
  std::vector<Tensor> result;  // per layer (B, h, T, D)
  std::vector<Tensor> attention_out;  // per layer (B, T, D): the layer's attention output, for the check above
  Tensor residual;             // (B, T, D)
};
HeadOutputs head_outputs(const Model& model, const std::vector<int64_t>& ids, int64_t B, int64_t T,
                         const std::vector<int64_t>& lengths);

// Direct logit attribution: each head's output carried straight to the logit of the correct next
// token, the mean over the batch's real positions (targets (B, T), PAD = 0 skipped) of
//   attention-only layers:  W_U[y] . result(b, t)
//   pre-norm full layers:   W_U[y] . (gamma * (result - mean(result)) / s(b, t))
// s(b, t) = sqrt(var(residual(b, t)) + eps) the final LayerNorm's scale at that position, taken
// from this forward pass and held fixed (as TransformerLens's cached scale), gamma its weight;
// the LayerNorm's and out's biases belong to no head. Layer-major, head by head. A post-norm model
// is refused: its heads' outputs pass through the next LayerNorm of their own layer, so no path
// reaches the logits directly (heed::Error).
std::vector<real> direct_logit_attribution(const Model& model, const std::vector<int64_t>& ids,
                                           const std::vector<int64_t>& targets, int64_t B, int64_t T,
                                           const std::vector<int64_t>& lengths);

// The same over `samples` repeat sequences drawn from Generator(seed) in batches of up to 100, as
// head_scores (models/analysis/heads.h) draws them: the mean over every predicted position of every sequence.
std::vector<real> direct_logit_attribution(const Model& model, const RepeatTask& task, int64_t samples,
                                           uint64_t seed);

// Olsson et al. call a head an induction head when it does both halves of "A B ... A -> B": it
// attends to the token after the earlier A (prefix matching, models/analysis/heads.h's induction score, at
// least kScoreLevel = 0.5: most of its weight on that one position, which a head spreading its
// weight evenly over the t + 1 >= 4 positions of a second copy cannot reach) and its OV circuit
// raises the logit of what it reads there (copying score above 0: more positive eigenvalue mass
// than negative). Chapter 14's models put prefix matching near 1 or below 0.3, and copying near
// +-1, so these levels separate them with room to spare.
inline constexpr real kCopyingLevel = 0;
bool is_induction_head(real prefix_matching, real copying);

}  // namespace heed
