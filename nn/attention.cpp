// Attention's score functions (the layers) and its differentiable ops, read whole:
//   additive_score     Bahdanau's v^T tanh(prepared + q) as one node, its backward below it;
//                      reference additive_score_composed (beside it), held equal by
//                      tests/nn/ch07_fused_test.cpp; tanh_n and dot_n are the fast paths of
//                      tensor/vmath.h, held to heed::math::tanh by tests/tensor/ch01_math_test.cpp
//   weighted_sum       the context sum_i w_i v_i as one node; reference the batched matmul it
//                      replaces, held equal by tests/nn/ch07_fused_test.cpp
// The masked softmax between them is the softmax family's (autograd/softmax.cpp).
#include "nn/attention.h"

#include <cmath>

#include "autograd/functions.h"
#include "tensor/threads.h"
#include "tensor/vmath.h"

namespace heed {

namespace {

void check_query_keys(const char* op, const Var& query, const Var& keys, int64_t want_q, int64_t want_k) {
  bool ok = query.value().dim() == 2 && keys.value().dim() == 3 && query.shape()[0] == keys.shape()[0] &&
            (want_q < 0 || query.shape()[1] == want_q) && (want_k < 0 || keys.shape()[2] == want_k);
  if (!ok)
    throw Error(std::string(op) + " attention: query " + shape_str(query.shape()) + " and keys " +
                shape_str(keys.shape()) + " must be (B, " + (want_q < 0 ? "D" : std::to_string(want_q)) +
                ") and (B, S, " + (want_k < 0 ? "D" : std::to_string(want_k)) + ")");
}

// (B, S, D) x (B, D) -> (B, S): one dot product per position.
Var batched_dot(const Var& keys, const Var& query) {
  const int64_t B = keys.shape()[0], S = keys.shape()[1], D = keys.shape()[2];
  return reshape(matmul(keys, reshape(query, {B, D, 1})), {B, S});
}

}  // namespace

AdditiveScore::AdditiveScore(int64_t query_size, int64_t key_size, int64_t attention_size, Generator& gen)
    : W1(key_size, attention_size, false, gen),
      W2(query_size, attention_size, false, gen),
      v(attention_size, 1, false, gen) {  // v is a linear map A -> 1 in the papers
  register_module("v", v);  // first, as when v was a (A) parameter of this module: the same order
  register_module("W1", W1);
  register_module("W2", W2);
}

Var AdditiveScore::prepare(const Var& keys) const {
  return W1.forward(keys);  // (B, S, A)
}

Var AdditiveScore::score(const Var& query, const Var& prepared) const {
  check_query_keys("additive", query, prepared, W2.in_features(), v.in_features());
  return additive_score(prepared, W2.forward(query), v.weight);  // v^T tanh(W1 h_i + W2 s)
}

namespace {

void check_additive(const char* op, const Var& prepared, const Var& q, const Var& v) {
  const Shape& p = prepared.shape();
  if (p.size() != 3 || q.shape() != Shape{p[0], p[2]} || (v.shape() != Shape{p[2]} && v.shape() != Shape{1, p[2]}))
    throw Error(std::string(op) + ": prepared " + shape_str(p) + ", q " + shape_str(q.shape()) + " and v " +
                shape_str(v.shape()) + " must be (B, S, A), (B, A) and (A) or (1, A)");
}

}  // namespace

Var additive_score_composed(const Var& prepared, const Var& q, const Var& v) {
  check_additive("additive_score_composed", prepared, q, v);
  const int64_t B = prepared.shape()[0], S = prepared.shape()[1], A = prepared.shape()[2];
  Var t = tanh(prepared + reshape(q, {B, 1, A}));                                // (B, S, A)
  return reshape(matmul(reshape(t, {B * S, A}), reshape(v, {A, 1})), {B, S});  // v^T t: (B, S)
}

Var additive_score(const Var& prepared, const Var& q, const Var& v) {
  check_additive("additive_score", prepared, q, v);
  const int64_t B = prepared.shape()[0], S = prepared.shape()[1], A = prepared.shape()[2];
  Tensor t = prepared.value();  // saved, once tanh is applied: its derivative and v's need it
  const real* qv = q.value().data();
  Tensor e = Tensor::empty({B, S});
  // The batch's rows on the thread pool (tensor/threads.h), each whole on one thread, as the
  // one-thread loop computes it: the same bits for any thread count.
  const int64_t grain = 16384 / (S * A > 0 ? S * A : 1) + 1;
  parallel_for(B, grain, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      for (int64_t i = 0; i < S; ++i)
        for (int64_t a = 0; a < A; ++a) t[(b * S + i) * A + a] += qv[b * A + a];  // u = W1 h_i + W2 s
      tanh_n(t.data() + b * S * A, t.data() + b * S * A, S * A);
      for (int64_t k = b * S; k < (b + 1) * S; ++k)
        e[k] = dot_n(t.data() + k * A, v.value().data(), A);  // v^T tanh(u)
    }
  });
  // The gradients of prepared, q and v are added in place: no (B, S, A) tensor per decoder step.
  auto backward = [t = std::move(t), B, S, A, grain](Backward& g) {
    const real* vv = g.input(2).data();
    real* dp = g.wants(0) ? g.buffer(0).data() : nullptr;
    real* dq = g.wants(1) ? g.buffer(1).data() : nullptr;
    real* dv = g.wants(2) ? g.buffer(2).data() : nullptr;
    if (dp || dq)  // row b's dprepared and dq on one thread, dq's sum over i in ascending order
      parallel_for(B, grain, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b)
          for (int64_t i = 0; i < S; ++i) {
            const real de = g.grad()[b * S + i];
            const real* tb = t.data() + (b * S + i) * A;
            for (int64_t a = 0; a < A; ++a) {
              real du = vv[a] * de * std::fma(-tb[a], tb[a], 1);  // du = (1 - t^2) v de, u = prepared + q
              if (dp) dp[(b * S + i) * A + a] += du;        // dprepared += du
              if (dq) dq[b * A + a] += du;                  // dq += sum_i du
            }
          }
      });
    if (dv)  // a sum over the whole batch: one thread, in the order of the rows
      for (int64_t k = 0; k < B * S; ++k) {
        const real de = g.grad()[k];
        const real* tk = t.data() + k * A;
        for (int64_t a = 0; a < A; ++a) dv[a] = std::fma(tk[a], de, dv[a]);  // dv += t de
      }
  };
  return make_var(std::move(e), "additive_score", {prepared, q, v}, std::move(backward));
}

GeneralScore::GeneralScore(int64_t query_size, int64_t key_size, Generator& gen) : W(key_size, query_size, false, gen) {
  register_module("W", W);
}

Var GeneralScore::prepare(const Var& keys) const {
  return W.forward(keys);  // W h_i: (B, S, Dq)
}

Var GeneralScore::score(const Var& query, const Var& prepared) const {
  check_query_keys("general", query, prepared, W.out_features(), W.out_features());
  return batched_dot(prepared, query);  // s^T (W h_i)
}

Var DotScore::score(const Var& query, const Var& prepared) const {
  check_query_keys(scaled_ ? "scaled" : "dot", query, prepared, -1, query.shape().back());
  Var e = batched_dot(prepared, query);  // s^T h_i
  return scaled_ ? e * (1 / std::sqrt(static_cast<real>(query.shape()[1]))) : e;
}

CosineScore::CosineScore() { beta = register_parameter("beta", Tensor::ones({1})); }

namespace {

// x / |x| along the last axis; |x| floored at 1e-8 so a zero vector (a padded state) stays zero.
Var normalize_last(const Var& x) {
  Var norm = sqrt(sum(x * x, -1, true) + 1e-16);  // (.., 1)
  return x / norm;
}

}  // namespace

Var CosineScore::prepare(const Var& keys) const { return normalize_last(keys); }

Var CosineScore::score(const Var& query, const Var& prepared) const {
  check_query_keys("cosine", query, prepared, -1, query.shape().back());
  return batched_dot(prepared, normalize_last(query)) * beta;  // beta cos(s, h_i)
}

LocationScore::LocationScore(int64_t query_size, int64_t max_positions, Generator& gen)
    : W_a(query_size, max_positions, false, gen) {
  register_module("W_a", W_a);
}

Var LocationScore::score(const Var& query, const Var& prepared) const {
  check_query_keys("location", query, prepared, W_a.in_features(), -1);
  const int64_t S = prepared.shape()[1], S_max = W_a.out_features();
  if (S > S_max)
    throw Error("location attention: source length " + std::to_string(S) + " exceeds the " +
                std::to_string(S_max) + " positions the model was built for");
  return slice(W_a.forward(query), 1, 0, S);  // (W_a s)[:S]
}

std::unique_ptr<Score> make_score(const std::string& kind, int64_t query_size, int64_t key_size,
                                  int64_t attention_size, int64_t max_positions, Generator& gen) {
  if (kind == "additive") return std::make_unique<AdditiveScore>(query_size, key_size, attention_size, gen);
  if (kind == "general") return std::make_unique<GeneralScore>(query_size, key_size, gen);
  if ((kind == "dot" || kind == "scaled" || kind == "cosine") && query_size != key_size)
    throw Error(kind + " attention: query size " + std::to_string(query_size) + " and key size " +
                std::to_string(key_size) + " must be equal");
  if (kind == "dot") return std::make_unique<DotScore>(false);
  if (kind == "scaled") return std::make_unique<DotScore>(true);
  if (kind == "cosine") return std::make_unique<CosineScore>();
  if (kind == "location") return std::make_unique<LocationScore>(query_size, max_positions, gen);
  throw Error("attention: unknown score '" + kind + "' (choose additive, general, dot, scaled, cosine or location)");
}

Attention attend(const Var& scores, const Var& values, const Tensor& mask) {
  if (values.value().dim() != 3 || scores.value().dim() != 2 || values.shape()[0] != scores.shape()[0] ||
      values.shape()[1] != scores.shape()[1])
    throw Error("attend: scores " + shape_str(scores.shape()) + " and values " + shape_str(values.shape()) +
                " must be (B, S) and (B, S, D)");
  Var weights = masked_softmax(scores, mask);
  return {weighted_sum(weights, values), weights};  // sum_i a_i h_i
}

Var weighted_sum(const Var& weights, const Var& values) {
  const Shape& vs = values.shape();
  if (vs.size() != 3 || weights.shape() != Shape{vs[0], vs[1]})
    throw Error("weighted_sum: weights " + shape_str(weights.shape()) + " and values " + shape_str(vs) +
                " must be (B, S) and (B, S, D)");
  const int64_t B = vs[0], S = vs[1], D = vs[2];
  Tensor context = Tensor::zeros({B, D});
  const real* w = weights.value().data();
  // Each row b of the batch whole on one thread (tensor/threads.h): the same bits for any count.
  const int64_t grain = 16384 / (S * D > 0 ? S * D : 1) + 1;
  parallel_for(B, grain, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      for (int64_t i = 0; i < S; ++i) {
        const real* v = values.value().data() + (b * S + i) * D;
        for (int64_t d = 0; d < D; ++d) context[b * D + d] = std::fma(w[b * S + i], v[d], context[b * D + d]);
      }
  });
  return make_var(std::move(context), "weighted_sum", {weights, values}, [B, S, D, grain](Backward& g) {
    const Tensor& w = g.input(0);       // (B, S)
    const Tensor& values = g.input(1);  // (B, S, D)
    Tensor dw = g.wants(0) ? Tensor::empty({B, S}) : Tensor();
    real* dv = g.wants(1) ? g.buffer(1).data() : nullptr;
    parallel_for(B, grain, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b)
        for (int64_t i = 0; i < S; ++i) {
          const real* dc = g.grad().data() + b * D;
          if (g.wants(0)) dw[b * S + i] = dot_n(values.data() + (b * S + i) * D, dc, D);  // dw_i += dcontext . v_i
          if (dv) {
            const real wi = w[b * S + i];
            for (int64_t d = 0; d < D; ++d) dv[(b * S + i) * D + d] = std::fma(wi, dc[d], dv[(b * S + i) * D + d]);  // dv_i += w_i dc
          }
        }
    });
    if (g.wants(0)) g.add(0, std::move(dw));
  });
}

}  // namespace heed
