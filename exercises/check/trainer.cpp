#include "exercises/check/trainer.h"

#include "exercises/check/check.h"

#include <cmath>

#include "autograd/functions.h"
#include "models/tasks/tasks.h"
#include "nn/attention.h"
#include "nn/embedding.h"
#include "nn/encoder.h"
#include "nn/linear.h"
#include "nn/loss.h"
#include "nn/optim.h"

namespace heed::check {

namespace {

struct Model {
  Model(const TrainSetup& c, Generator& gen)
      : V(c.vocab + 3),
        src(V, c.embed, gen, Vocab::kPad),
        tgt(V, c.embed, gen, Vocab::kPad),
        enc("gru", c.embed, c.hidden, false, gen),
        dec(c.embed + c.hidden, c.hidden, gen),
        out(2 * c.hidden, V, true, gen) {}

  std::vector<Var> parameters() const {
    std::vector<Var> p;
    for (const Module* m : std::initializer_list<const Module*>{&src, &tgt, &enc, &dec, &out})
      for (const Var& v : m->parameters()) p.push_back(v);
    return p;
  }

  // Logits (B, T, V) of every target step: teacher forced (tgt_in) or, when greedy, fed its own
  // choices, which go into `chosen` (B, T).
  Var run(const ScoreOf& score, const Batch& batch, std::vector<int64_t>* chosen) const {
    const int64_t B = batch.batch, S = batch.src_len, T = batch.tgt_len;
    EncoderOutput e = enc.forward(reshape(src.forward(batch.src), {B, S, -1}), batch.lengths);
    Tensor mask = length_mask(batch.lengths, S, "trainer");
    Var s = e.last.h;
    std::vector<Var> outs;
    std::vector<int64_t> prev(B, Vocab::kBos);
    for (int64_t t = 0; t < T; ++t) {
      if (!chosen)
        for (int64_t b = 0; b < B; ++b) prev[b] = batch.tgt_in[b * T + t];
      Attention a = attend(score(e.states, s), e.states, mask);  // with s_{t-1}
      s = dec.step(concat({tgt.forward(prev), a.context}, 1), {s, Var()}).h;
      Var o = concat({s, a.context}, 1);
      if (chosen) {
        Tensor best = argmax(out.forward(o).value(), 1);
        for (int64_t b = 0; b < B; ++b) (*chosen)[b * T + t] = prev[b] = static_cast<int64_t>(best[b]);
      }
      outs.push_back(o);
    }
    return out.forward(stack(outs, 1));
  }

  int64_t V;
  Embedding src, tgt;
  RecurrentEncoder enc;
  GRUCell dec;
  Linear out;
};

}  // namespace

real train_reverse(const ScoreOf& score, const std::vector<Var>& score_params, const TrainSetup& c) {
  Generator gen(seed(c.seed));
  Model model(c, gen);
  std::vector<Var> params = model.parameters();
  params.insert(params.end(), score_params.begin(), score_params.end());
  ReverseTask task(c.vocab, c.min_len, c.max_len);
  Adam adam(params, 3e-3);
  Generator data(seed(c.seed + 1));
  for (int64_t step = 0; step < c.steps; ++step) {
    adam.set_lr(3e-3 * (1 - static_cast<real>(step) / c.steps));
    Batch batch = sample_batch(task, data, c.batch);
    Var logits = model.run(score, batch, nullptr);
    Var loss = cross_entropy(reshape(logits, {-1, model.V}), batch.tgt_out, Vocab::kPad);
    adam.zero_grad();
    loss.backward();
    clip_grad_norm(params, 1.0);
    adam.step();
  }
  NoGradGuard no_grad;
  Generator eval(seed(c.seed + 2));
  Batch batch = sample_batch(task, eval, 200);
  std::vector<int64_t> chosen(batch.batch * batch.tgt_len);
  model.run(score, batch, &chosen);
  int64_t exact = 0;
  for (int64_t b = 0; b < batch.batch; ++b) {
    bool ok = true;
    for (int64_t t = 0; t < batch.tgt_lengths[b]; ++t) ok = ok && chosen[b * batch.tgt_len + t] == batch.tgt_out[b * batch.tgt_len + t];
    exact += ok;
  }
  return static_cast<real>(exact) / batch.batch;
}

}  // namespace heed::check
