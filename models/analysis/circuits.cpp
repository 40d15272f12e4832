#include "models/analysis/circuits.h"

#include <algorithm>

#include <cmath>
#include <string>

#include "autograd/functions.h"
#include "models/analysis/heads.h"  // kScoreLevel
#include "nn/encoder.h"         // length_mask
#include "nn/self_attention.h"  // key_mask
#include "tensor/eigen.h"
#include "tensor/ops.h"

namespace heed {

namespace {

// A parameter by its checkpoint name; "" when the model has none of that name.
Tensor parameter(const DecoderModel& model, const std::string& name) {
  for (const auto& [n, v] : model.named_parameters())
    if (n == name) return v.value();
  return {};
}

// W_U (V, D): out.weight, or the embedding's table when the two are tied (held once, as embed.weight).
Tensor unembedding(const DecoderModel& model) {
  return model.config().share_embeddings ? parameter(model, "embed.weight") : parameter(model, "out.weight");
}

real frobenius(const Tensor& a) {
  real s = 0;
  for (int64_t i = 0; i < a.numel(); ++i) s += a[i] * a[i];
  return std::sqrt(s);
}

// ||a b|| / (||a|| ||b||), 0 when a or b is zero.
real composition(const Tensor& a, const Tensor& b) {
  const real na = frobenius(a), nb = frobenius(b);
  return na == 0 || nb == 0 ? 0 : frobenius(matmul(a, b)) / (na * nb);
}

}  // namespace

Tensor HeadCircuit::qk() const { return matmul_tn(w_q, w_k); }
Tensor HeadCircuit::ov() const { return matmul(w_o, w_v); }

HeadCircuit head_circuit(const Model& any, int64_t layer, int64_t head) {
  const DecoderModel& model = decoder_only(any);
  const int64_t L = model.num_layers(), H = model.config().heads;
  if (layer < 0 || layer >= L || head < 0 || head >= H)
    throw Error("circuits: layer " + std::to_string(layer) + ", head " + std::to_string(head) + " of a model of " +
                std::to_string(L) + " layers of " + std::to_string(H) + " heads");
  const TransformerAttention& a = model.self_attention(static_cast<size_t>(layer));
  const int64_t D = a.embed(), dk = D / H;
  const Tensor& in = a.in_proj_weight.value();  // (3D, D): W_q, W_k, W_v stacked
  HeadCircuit c;
  c.w_q = slice(in, 0, head * dk, (head + 1) * dk);
  c.w_k = slice(in, 0, D + head * dk, D + (head + 1) * dk);
  c.w_v = slice(in, 0, 2 * D + head * dk, 2 * D + (head + 1) * dk);
  c.w_o = slice(a.out_proj.weight.value(), 1, head * dk, (head + 1) * dk);
  return c;
}

real eigenvalue_positivity(const Tensor& a) {
  real sum = 0, moduli = 0;
  for (const Eigenvalue& e : eigenvalues(a)) {
    sum += e.re;  // the imaginary parts of a real matrix's eigenvalues cancel in pairs
    moduli += e.modulus();
  }
  return moduli == 0 ? 0 : sum / moduli;
}

real copying_score(const Model& any, int64_t layer, int64_t head) {
  const DecoderModel& model = decoder_only(any);
  const HeadCircuit c = head_circuit(model, layer, head);
  const Tensor embed = parameter(model, "embed.weight");       // (V, D) = W_E^T
  const Tensor e_u = matmul_tn(embed, unembedding(model));       // W_E W_U (D, D)
  return eigenvalue_positivity(matmul(matmul(c.w_v, e_u), c.w_o));  // W_V W_E W_U W_O (d_head, d_head)
}

Composition compose(const HeadCircuit& first, const HeadCircuit& second) {
  const Tensor ov1 = first.ov(), qk2 = second.qk();
  Composition c;
  c.q = composition(transpose(qk2), ov1);
  c.k = composition(qk2, ov1);
  c.v = composition(second.ov(), ov1);
  return c;
}

std::vector<Composition> composition_scores(const Model& any) {
  const DecoderModel& model = decoder_only(any);
  const int64_t L = model.num_layers(), H = model.config().heads;
  std::vector<Composition> out;
  for (int64_t l1 = 0; l1 < L; ++l1)
    for (int64_t l2 = l1 + 1; l2 < L; ++l2)
      for (int64_t h1 = 0; h1 < H; ++h1)
        for (int64_t h2 = 0; h2 < H; ++h2) {
          Composition c = compose(head_circuit(model, l1, h1), head_circuit(model, l2, h2));
          c.layer1 = l1, c.head1 = h1, c.layer2 = l2, c.head2 = h2;
          out.push_back(c);
        }
  return out;
}

CompositionBaseline composition_baseline(int64_t embed, int64_t d_head, int64_t samples, uint64_t seed) {
  if (embed < 1 || d_head < 1 || samples < 1)
    throw Error("circuits: a baseline of " + std::to_string(samples) + " samples of heads of d_head " +
                std::to_string(d_head) + " in D " + std::to_string(embed) + " (each must be at least 1)");
  Generator gen(seed);
  auto random_head = [&] {
    HeadCircuit c;
    c.w_q = Tensor::normal({d_head, embed}, 0, 1, gen);
    c.w_k = Tensor::normal({d_head, embed}, 0, 1, gen);
    c.w_v = Tensor::normal({d_head, embed}, 0, 1, gen);
    c.w_o = Tensor::normal({embed, d_head}, 0, 1, gen);
    return c;
  };
  CompositionBaseline b;
  for (int64_t s = 0; s < samples; ++s) {
    const HeadCircuit first = random_head(), second = random_head();
    const Composition c = compose(first, second);
    b.q += c.q, b.k += c.k, b.v += c.v;
  }
  b.q /= static_cast<real>(samples), b.k /= static_cast<real>(samples), b.v /= static_cast<real>(samples);
  b.samples = samples;
  return b;
}

HeadOutputs head_outputs(const Model& any, const std::vector<int64_t>& ids, int64_t B, int64_t T,
                         const std::vector<int64_t>& lengths) {
  const DecoderModel& model = decoder_only(any);
  const ModelConfig& cfg = model.config();
  if (static_cast<int64_t>(ids.size()) != B * T || static_cast<int64_t>(lengths.size()) != B)
    throw Error("circuits: " + std::to_string(ids.size()) + " ids and " + std::to_string(lengths.size()) +
                " lengths do not make a batch of " + std::to_string(B) + " rows of " + std::to_string(T));
  NoGradGuard no_grad;
  // x_0 = embed(ids) + P, as DecoderModel::embed (no dropout: the model is evaluated).
  const Tensor table = parameter(model, "embed.weight");  // (V, D)
  const int64_t V = table.shape()[0], D = table.shape()[1], H = cfg.heads, dk = D / H;
  Tensor pos = cfg.positions == "learned" ? parameter(model, "pos.weight") : sinusoidal_positions(T, D);
  if (pos.shape()[0] < T)
    throw Error("circuits: position " + std::to_string(T - 1) + " is beyond the " + std::to_string(pos.shape()[0]) +
                " learned positions");
  Tensor x0 = Tensor::zeros({B, T, D});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      const int64_t id = ids[static_cast<size_t>(b * T + t)];
      if (id < 0 || id >= V) throw Error("circuits: token id " + std::to_string(id) + " outside the vocabulary of " +
                                         std::to_string(V));
      for (int64_t d = 0; d < D; ++d) x0[(b * T + t) * D + d] = table[id * D + d] + pos[t * D + d];
    }
  const Tensor mask = key_mask(length_mask(lengths, T, "circuits"), T, true);  // (B, T, T)
  HeadOutputs out;
  Var x(x0);
  for (size_t l = 0; l < static_cast<size_t>(model.num_layers()); ++l) {
    // The layer, run by its own pieces; its attention's input and weights kept on the way.
    const TransformerAttention& attn = model.self_attention(l);
    Var in;
    AttentionOutput a;
    auto attend = [&](const Var& v) {
      in = v;
      a = attn.forward(v, v, mask);
      return a.output;
    };
    x = cfg.attention_only ? x + attend(x) : model.block(l).forward_with(x, attend);
    // Per head: z = w_h V_h (T, d_head), V_h = in W_v^hT + b_v^h; result = z W_O^hT (T, D).
    const Tensor& w = a.weights.value();  // (B, h, T, T)
    const Tensor& bias = attn.in_proj_bias.value();
    Tensor result = Tensor::zeros({B, H, T, D});
    for (int64_t h = 0; h < H; ++h) {
      const HeadCircuit c = head_circuit(model, static_cast<int64_t>(l), h);
      const Tensor b_v = slice(bias, 0, 2 * D + h * dk, 2 * D + (h + 1) * dk);
      const Tensor v = linear(in.value(), c.w_v, &b_v);  // (B, T, d_head)
      for (int64_t b = 0; b < B; ++b) {
        Tensor z = Tensor::zeros({T, dk});
        for (int64_t t = 0; t < T; ++t)
          for (int64_t s = 0; s < T; ++s) {
            const real ws = w[((b * H + h) * T + t) * T + s];
            for (int64_t j = 0; j < dk; ++j) z[t * dk + j] += ws * v[(b * T + s) * dk + j];
          }
        const Tensor r = matmul_nt(z, c.w_o);  // (T, D)
        std::copy(r.data(), r.data() + T * D, result.data() + (b * H + h) * T * D);
      }
    }
    out.result.push_back(std::move(result));
    out.attention_out.push_back(a.output.value());
  }
  out.residual = x.value();
  return out;
}

std::vector<real> direct_logit_attribution(const Model& any, const std::vector<int64_t>& ids,
                                           const std::vector<int64_t>& targets, int64_t B, int64_t T,
                                           const std::vector<int64_t>& lengths) {
  const DecoderModel& model = decoder_only(any);
  const ModelConfig& cfg = model.config();
  if (!cfg.attention_only && !cfg.norm_first)
    throw Error("direct logit attribution: a post-norm model's heads reach the logits only through their own "
                "layer's LayerNorm; it needs attention-only (--attention-only) or pre-norm (--norm-first) layers");
  if (static_cast<int64_t>(targets.size()) != B * T)
    throw Error("direct logit attribution: " + std::to_string(targets.size()) + " targets for a batch of " +
                std::to_string(B) + " rows of " + std::to_string(T));
  const HeadOutputs ho = head_outputs(model, ids, B, T, lengths);
  const Tensor unembed = unembedding(model);  // (V, D)
  const int64_t L = model.num_layers(), H = cfg.heads, D = unembed.shape()[1];
  const Tensor gamma = cfg.attention_only ? Tensor() : parameter(model, "norm.weight");  // (D)
  const real eps = LayerNorm(D).eps();  // the decoder's final norm is a LayerNorm(D) with the default eps
  std::vector<real> sums(static_cast<size_t>(L * H), 0);
  int64_t count = 0;
  std::vector<real> dir(static_cast<size_t>(D));  // the direction a head's output is read along at (b, t)
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < lengths[static_cast<size_t>(b)]; ++t) {
      const int64_t y = targets[static_cast<size_t>(b * T + t)];
      if (y == Vocab::kPad) continue;
      ++count;
      // (gamma / s) * W_U[y], then centred: u . (r - mean r) = (u - mean u) . r.
      real scale = 1;
      if (!cfg.attention_only) {
        const real* r = ho.residual.data() + (b * T + t) * D;
        real mean = 0, var = 0;
        for (int64_t d = 0; d < D; ++d) mean += r[d];
        mean /= static_cast<real>(D);
        for (int64_t d = 0; d < D; ++d) var += (r[d] - mean) * (r[d] - mean);
        var /= static_cast<real>(D);
        scale = 1 / std::sqrt(var + eps);
      }
      real dir_mean = 0;
      for (int64_t d = 0; d < D; ++d) {
        dir[static_cast<size_t>(d)] = unembed[y * D + d] * (cfg.attention_only ? 1 : gamma[d] * scale);
        dir_mean += dir[static_cast<size_t>(d)];
      }
      if (!cfg.attention_only)
        for (real& u : dir) u -= dir_mean / static_cast<real>(D);
      for (int64_t l = 0; l < L; ++l)
        for (int64_t h = 0; h < H; ++h) {
          const real* r = ho.result[static_cast<size_t>(l)].data() + ((b * H + h) * T + t) * D;
          real s = 0;
          for (int64_t d = 0; d < D; ++d) s += dir[static_cast<size_t>(d)] * r[d];
          sums[static_cast<size_t>(l * H + h)] += s;
        }
    }
  if (count == 0) throw Error("direct logit attribution: the batch has no real position to score");
  for (real& s : sums) s /= static_cast<real>(count);
  return sums;
}

std::vector<real> direct_logit_attribution(const Model& any, const RepeatTask& task, int64_t samples,
                                           uint64_t seed) {
  const DecoderModel& model = decoder_only(any);
  if (samples < 1) throw Error("direct logit attribution: samples " + std::to_string(samples) + " must be at least 1");
  const size_t heads = static_cast<size_t>(model.num_layers() * model.config().heads);
  std::vector<real> total(heads, 0);
  int64_t positions = 0;
  Generator gen(seed);
  for (int64_t done = 0; done < samples;) {
    const int64_t B = std::min<int64_t>(100, samples - done);
    std::vector<Example> examples;
    for (int64_t b = 0; b < B; ++b) examples.push_back(task.sample(gen));
    const Batch bt = make_batch(examples);
    const std::vector<real> mean = direct_logit_attribution(model, bt.tgt_in, bt.tgt_out, bt.batch, bt.tgt_len,
                                                            bt.tgt_lengths);
    int64_t n = 0;  // the batch's predicted positions, the weight of its mean
    for (int64_t b = 0; b < B; ++b)
      for (int64_t t = 0; t < bt.tgt_lengths[static_cast<size_t>(b)]; ++t)
        n += bt.tgt_out[static_cast<size_t>(b * bt.tgt_len + t)] != Vocab::kPad;
    for (size_t i = 0; i < heads; ++i) total[i] += mean[i] * static_cast<real>(n);
    positions += n;
    done += B;
  }
  for (real& s : total) s /= static_cast<real>(positions);
  return total;
}

bool is_induction_head(real prefix_matching, real copying) {
  return prefix_matching >= kScoreLevel && copying > kCopyingLevel;
}

}  // namespace heed
