#include "models/model.h"

#include "autograd/functions.h"
#include "models/decoder_model.h"
#include "models/seq2seq.h"
#include "models/transformer.h"
#include "models/tasks/vocab.h"
#include "nn/loss.h"

namespace heed {

namespace {

const ModelConfig& validated(const ModelConfig& c) {
  c.validate();
  return c;
}

}  // namespace

Model::Model(const ModelConfig& config) : config_(validated(config)) {}

Var Model::loss(const Batch& batch) const {
  Var logits = forward(batch);
  return cross_entropy(reshape(logits, {-1, config_.tgt_vocab}), batch.tgt_out, Vocab::kPad);
}

Decoded Model::greedy(const Batch& batch, int64_t steps) const {
  NoGradGuard no_grad;
  const int64_t B = batch.batch;
  std::unique_ptr<StepState> st = start_decoding(batch);
  Decoded d;
  d.tokens.assign(B, {});
  d.log_prob.assign(B, 0);
  d.token_log_prob.assign(B, {});
  if (has_attention()) d.attention.assign(B, {});
  std::vector<int64_t> prev(B, Vocab::kBos);
  for (int64_t t = 0; t < steps; ++t) {
    StepOutput o = decode_step(prev, *st);
    Tensor logp = log_softmax(logits(o.out).value(), 1);  // (B, V)
    const std::vector<int64_t> best = argmax_indices(logp, 1);  // (B) token ids
    const int64_t V = logp.shape()[1], S = batch.src_len;
    for (int64_t b = 0; b < B; ++b) {
      prev[b] = best[b];
      d.tokens[b].push_back(prev[b]);
      d.log_prob[b] += logp[b * V + prev[b]];
      d.token_log_prob[b].push_back(logp[b * V + prev[b]]);
      if (has_attention()) {
        const real* w = o.weights.value().data() + b * S;
        d.attention[b].emplace_back(w, w + S);
      }
    }
  }
  return d;
}

AttentionMaps Model::attention_maps(const std::vector<int64_t>&, const std::vector<int64_t>&) const {
  throw Error("model: the " + config_.model + " model has no layers of heads to map");
}

void Model::set_training(bool, uint64_t) {}
void Model::set_training(bool) {}
std::string Model::dropout_state() const { return ""; }

void Model::set_dropout_state(const std::string& state) {
  if (!state.empty()) throw Error("model: a dropout stream state is given for a model without dropout");
}

std::unique_ptr<Model> make_model(const ModelConfig& config, Generator& gen) {
  if (config.is_transformer()) return std::make_unique<TransformerSeq2Seq>(config, gen);
  if (config.is_decoder()) return std::make_unique<DecoderModel>(config, gen);
  return std::make_unique<Seq2Seq>(config, gen);
}

}  // namespace heed
