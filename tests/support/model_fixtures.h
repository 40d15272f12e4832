// The small models the tests build and train, written once: the configurations (a recurrent one
// small enough to gradient-check, its Transformer counterpart, the size that learns reverse), the
// padded batch most model tests feed them, and a model built for a task and trained on it. A test
// states only what differs from these; a size or a seed changed here changes every test that
// uses it, which is the point (and tests/models/ch06_same_bits_test.cpp's golden hashes say if it did).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "models/seq2seq.h"
#include "models/tasks/tasks.h"
#include "models/train.h"

namespace heed::test {

// A recurrent model small enough to gradient-check every parameter: vocabularies of 7 (PAD, BOS,
// EOS and four symbols), E 3, H 4, sources of up to 6 positions.
ModelConfig tiny_rnn(const std::string& model, const std::string& cell = "gru");

// The Transformer counterpart: d 4, 2 encoder and 2 decoder layers of 2 heads, ff 6.
ModelConfig tiny_transformer(bool norm_first = false, const std::string& positions = "sinusoidal");
// The decoder-only counterpart: the same sizes, 2 layers (attention-only or full).
ModelConfig tiny_decoder(bool attention_only, bool norm_first = false, const std::string& positions = "sinusoidal");

// The size of the learning tests (E 32, H 64, the library's other defaults): what learns reverse
// in a few hundred steps of 32.
ModelConfig learner(const std::string& model);

// Two pairs of lengths 4 and 2 (reversed), so that source and target both hold padding.
Batch two_sequences();

// What `heed train --seed 1` and its held-out evaluation use as seeds (tools/train_cmd.cpp adds
// 1000003 and 7777777 to the seed), so a test's numbers can be reproduced on the command line.
inline constexpr uint64_t kCliDataSeed1 = 1000004;
inline constexpr uint64_t kCliHeldOutSeed1 = 7777778;

// A training run of `steps` batches of `batch`; lr and the data seed TrainOptions' own unless given.
TrainOptions train_options(int64_t steps, int64_t batch, real lr = TrainOptions{}.lr, uint64_t seed = TrainOptions{}.seed);

// The model of config c, its vocabularies sized to task's, its weights drawn from Generator(init_seed).
// Behind a pointer: a Model registers its own members, so it is built where it stays.
std::unique_ptr<Model> model_for(const Task& task, ModelConfig c, uint64_t init_seed);

struct Trained {
  std::unique_ptr<Model> model;
  TrainResult result;
};
// model_for(task, c, init_seed), then train(model, task, opt).
Trained train_on(const Task& task, const ModelConfig& c, uint64_t init_seed, const TrainOptions& opt);

}  // namespace heed::test
