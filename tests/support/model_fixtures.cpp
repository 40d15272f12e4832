#include "tests/support/model_fixtures.h"

namespace heed::test {

ModelConfig tiny_rnn(const std::string& model, const std::string& cell) {
  ModelConfig c;
  c.model = model;
  c.cell = cell;
  c.src_vocab = c.tgt_vocab = 7;
  c.embed = 3;
  c.hidden = 4;
  c.max_src_len = 6;
  return c;
}

ModelConfig tiny_transformer(bool norm_first, const std::string& positions) {
  ModelConfig c;
  c.model = "transformer";
  c.src_vocab = c.tgt_vocab = 7;
  c.embed = 4;
  c.layers = 2;
  c.heads = 2;
  c.ff = 6;
  c.norm_first = norm_first;
  c.positions = positions;
  c.max_src_len = 6;
  return c;
}

ModelConfig tiny_decoder(bool attention_only, bool norm_first, const std::string& positions) {
  ModelConfig c = tiny_transformer(norm_first, positions);
  c.model = "decoder";
  c.attention_only = attention_only;
  return c;
}

ModelConfig learner(const std::string& model) {
  ModelConfig c;
  c.model = model;
  c.embed = 32;
  c.hidden = 64;
  return c;
}

Batch two_sequences() { return make_batch({{{3, 4, 5, 6}, {6, 5, 4, 3}}, {{5, 3}, {3, 5}}}); }

TrainOptions train_options(int64_t steps, int64_t batch, real lr, uint64_t seed) {
  TrainOptions opt;
  opt.steps = steps;
  opt.batch = batch;
  opt.lr = lr;
  opt.seed = seed;
  return opt;
}

std::unique_ptr<Model> model_for(const Task& task, ModelConfig c, uint64_t init_seed) {
  c.src_vocab = task.src_vocab().size();
  c.tgt_vocab = task.tgt_vocab().size();
  Generator gen(init_seed);
  return make_model(c, gen);
}

Trained train_on(const Task& task, const ModelConfig& c, uint64_t init_seed, const TrainOptions& opt) {
  Trained t{model_for(task, c, init_seed), {}};
  t.result = train(*t.model, task, opt);
  return t;
}

}  // namespace heed::test
