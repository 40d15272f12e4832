// engine-check: what make yours-test runs on your heed, and the same program on heed's own, so
// that the two can be compared. It calls heed's functions only (heed::linear, heed::cross_entropy,
// ...): linked against your heed (build-yours/libheed.a), those are your pieces.
//   engine-check grad          the gradient check (double, central differences) of every op a
//                              piece of yours can replace, through heed's own entry points, and
//                              of a graph with shared inputs (the backward pass itself)
//   engine-check train STEPS   a short teacher-forced training of Bahdanau attention on reverse
//                              (GRU, Adam, clipping), one loss a line with all 17 digits
//   engine-check train STEPS MODEL   the same for a model kind (additive, general, dot,
//                              transformer, decoder) at the sizes a piece may go wrong past:
//                              sources of 14-20 symbols, a GRU of 35 units, a width of 36 in 4
//                              heads of 9 (built by make_model, as heed train builds it)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "autograd/elementwise.h"
#include "autograd/gradcheck.h"
#include "autograd/matmul.h"
#include "autograd/reduce.h"
#include "autograd/softmax.h"
#include "models/model.h"
#include "models/seq2seq.h"
#include "models/tasks/tasks.h"
#include "models/train.h"
#include "nn/attention.h"
#include "nn/embedding.h"
#include "nn/layer_norm.h"
#include "nn/rnn_cell.h"
#include "nn/self_attention.h"

namespace {

using namespace heed;

// One gradient check, reported on one line, or with its table when it fails.
bool check(const std::string& name, const std::function<Var(const std::vector<Var>&)>& f,
           const std::vector<Tensor>& values) {
  GradcheckOptions opt;
  opt.name = name;
  const GradcheckReport r = gradcheck(f, values, opt);
  if (r.ok)
    std::printf("gradcheck %-16s ok (%lld elements, largest error %.1e)\n", name.c_str(),
                static_cast<long long>(r.elements), r.max_abs_err);
  else
    std::printf("gradcheck %-16s FAILED\n%s\n", name.c_str(), r.str().c_str());
  return r.ok;
}

int gradients() {
  Generator gen(28);
  auto u = [&](Shape s) { return Tensor::uniform(s, -1, 1, gen); };
  Tensor mask = Tensor::ones({2, 5});
  mask[3] = 0;  // row 0 ends early: positions 3 and 4 are padding
  mask[4] = 0;
  bool ok = true;
  // The backward pass itself: h is used three times, x twice, one of them through h.
  ok &= check("shared inputs", [](const std::vector<Var>& in) {
    Var h = tanh(matmul(in[0], in[1]));
    return sum(h + h * h) + sum(in[0]);
  }, {u({3, 4}), u({4, 2})});
  ok &= check("tanh", [](const std::vector<Var>& in) { return tanh(in[0]); }, {u({3, 4})});
  ok &= check("mul", [](const std::vector<Var>& in) { return mul(in[0], in[1]); }, {u({3, 4}), u({3, 4})});
  ok &= check("mul broadcast", [](const std::vector<Var>& in) { return mul(in[0], in[1]); }, {u({3, 4}), u({4})});
  ok &= check("softmax", [](const std::vector<Var>& in) { return softmax(in[0], 1); }, {u({3, 5})});
  ok &= check("softmax axis 0", [](const std::vector<Var>& in) { return softmax(in[0], 0); }, {u({3, 2, 4})});
  ok &= check("add broadcast", [](const std::vector<Var>& in) { return tanh(in[0] + in[1]); }, {u({2, 3, 4}), u({3, 1})});
  ok &= check("matmul", [](const std::vector<Var>& in) { return matmul(in[0], in[1]); }, {u({3, 4}), u({4, 2})});
  ok &= check("matmul batched", [](const std::vector<Var>& in) { return matmul(in[0], in[1]); },
              {u({2, 3, 4}), u({2, 4, 2})});
  ok &= check("linear", [](const std::vector<Var>& in) { return linear(in[0], in[1], in[2]); },
              {u({3, 4}), u({5, 4}), u({5})});
  ok &= check("linear 3-D", [](const std::vector<Var>& in) { return linear(in[0], in[1], Var()); },
              {u({2, 3, 4}), u({5, 4})});
  // id 2 twice (its gradients add up); no padding row among the ids: the padding row's gradient is
  // 0 by design, not the derivative (the exercise's check holds it)
  ok &= check("embedding", [](const std::vector<Var>& in) { return embedding(in[0], {2, 0, 2, 3}); }, {u({4, 3})});
  ok &= check("cross_entropy",
              [](const std::vector<Var>& in) { return cross_entropy(in[0], {1, 0, 4, 2}, 0); },  // row 1 ignored
              {u({4, 6})});
  ok &= check("masked_softmax", [mask](const std::vector<Var>& in) { return masked_softmax(in[0], mask); },
              {u({2, 5})});
  ok &= check("weighted_sum", [](const std::vector<Var>& in) { return weighted_sum(in[0], in[1]); },
              {u({2, 5}), u({2, 5, 3})});
  // The model's pieces: a cell's step (from the projected input xp, and at step t of a projection
  // of every step, as an encoder reads it), the score functions (from the query and the prepared
  // keys; their weights held fixed), the split into heads, the layer norm.
  ok &= check("gru_step", [](const std::vector<Var>& in) { return gru_step(in[0], in[1], in[2], in[3]); },
              {u({2, 6}), u({2, 2}), u({6, 2}), u({6})});
  ok &= check("gru_step at t", [](const std::vector<Var>& in) { return gru_step(in[0], in[1], in[2], in[3], 1); },
              {u({2, 3, 6}), u({2, 2}), u({6, 2}), u({6})});
  ok &= check("lstm_step", [](const std::vector<Var>& in) { return lstm_step(in[0], in[1], in[2], in[3], in[4]); },
              {u({2, 8}), u({2, 2}), u({2, 2}), u({8, 2}), u({8})});
  ok &= check("lstm_step at t", [](const std::vector<Var>& in) { return lstm_step(in[0], in[1], in[2], in[3], in[4], 2); },
              {u({2, 3, 8}), u({2, 2}), u({2, 2}), u({8, 2}), u({8})});
  const AdditiveScore additive(3, 4, 5, gen);
  ok &= check("additive score", [&](const std::vector<Var>& in) { return additive.score(in[0], in[1]); },
              {u({2, 3}), u({2, 4, 5})});
  const GeneralScore general(3, 4, gen);
  ok &= check("general score", [&](const std::vector<Var>& in) { return general.score(in[0], in[1]); },
              {u({2, 3}), u({2, 4, 3})});
  const DotScore scaled(true);
  ok &= check("scaled score", [&](const std::vector<Var>& in) { return scaled.score(in[0], in[1]); },
              {u({2, 3}), u({2, 4, 3})});
  const CosineScore cosine;
  ok &= check("cosine score", [&](const std::vector<Var>& in) { return cosine.score(in[0], cosine.prepare(in[1])); },
              {u({2, 3}), u({2, 4, 3})});
  ok &= check("split_heads", [](const std::vector<Var>& in) { return split_heads(in[0], 2); }, {u({2, 3, 4})});
  ok &= check("layer_norm", [](const std::vector<Var>& in) { return layer_norm(in[0], in[1], in[2]); },
              {u({2, 3, 4}), u({4}), u({4})});
  // A sum along an axis, and a mean (heed's is that sum times 1/n), kept or not (drawn last: the
  // inputs of the checks above stay as they were before these two were added).
  ok &= check("sum axis", [](const std::vector<Var>& in) { return sum(in[0], 1, false); }, {u({2, 3, 4})});
  ok &= check("mean axis", [](const std::vector<Var>& in) { return mean(in[0], -1, true); }, {u({3, 4})});
  return ok ? 0 : 1;
}

int training(int64_t steps) {
  std::unique_ptr<Task> task = make_task("reverse", 10, 3, 8);
  ModelConfig config;
  config.model = "additive";
  config.src_vocab = task->src_vocab().size();
  config.tgt_vocab = task->tgt_vocab().size();
  config.embed = 16;
  config.hidden = 32;
  Generator gen(7);
  Seq2Seq model(config, gen);
  TrainOptions opt;
  opt.steps = steps;
  opt.batch = 16;
  opt.seed = 7;
  for (real loss : train(model, *task, opt).losses) std::printf("%.17g\n", loss);
  return 0;
}

// A model kind at larger sizes: past an unroll or block width of 16 or 32 (the GRU's 35 units,
// the Transformer's width 36 and its heads of 9) and past a source of 12 or 16 (reverse 14-20:
// the attention's products run over the source, K = S).
int training(int64_t steps, const std::string& model) {
  std::unique_ptr<Task> task = make_task("reverse", 10, 14, 20);
  ModelConfig config;
  config.model = model;
  config.src_vocab = task->src_vocab().size();
  config.tgt_vocab = task->tgt_vocab().size();
  config.embed = 36;
  config.hidden = 35;
  config.layers = 1;
  config.heads = 4;
  config.ff = 40;
  config.validate();
  Generator gen(11);
  std::unique_ptr<Model> m = make_model(config, gen);
  TrainOptions opt;
  opt.steps = steps;
  opt.batch = 8;
  opt.seed = 11;
  for (real loss : train(*m, *task, opt).losses) std::printf("%.17g\n", loss);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "grad" && argc == 2) return gradients();
    if (mode == "train" && argc == 3) return training(std::atoll(argv[2]));
    if (mode == "train" && argc == 4) return training(std::atoll(argv[2]), argv[3]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "engine-check: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "usage: engine-check grad | engine-check train STEPS [MODEL]\n");
  return 2;
}
