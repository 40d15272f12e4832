// Chapter 06: the same seed gives the same bits on every machine, not only run after run. Two
// short trainings (GRU with additive attention, LSTM with general attention; sizes that are not
// multiples of the vector width, so the kernels' edges run too) must write checkpoints whose bytes
// hash to the values below, which x86-64 g++ wrote. (Made again when the tensors took PyTorch's
// state_dict names, format heed-seq2seq-2: the file changed, every tensor's bytes did not; and
// once more when heed's own exp, log, sin, cos and pow replaced the C library's, tensor/math.h:
// the initial weights and every softmax changed in the last bit.) make test-clang and make test-aarch64 run
// this same test with clang++ and on ARM64 (under qemu); make same-bits compares a longer run. The
// second case trains again with each kernel set this processor runs (tests/tensor/kernels_test.cpp
// compares the sets' products and vector math directly).
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "models/seq2seq.h"
#include "models/tasks/tasks.h"
#include "models/train.h"
#include "nn/checkpoint.h"
#include "tensor/kernels.h"
#include "tests/support/heed_cli.h"  // slurp
#include "tests/support/model_fixtures.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

// FNV-1a, 64 bits: enough to tell two files apart, and short to write down.
uint64_t fnv1a(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325u;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3u;
  return h;
}

std::string hex(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// Trains `model` with `cell` for 20 steps from seed 11 and returns the checkpoint's hash.
std::string train_and_hash(const std::string& model, const std::string& cell) {
  ReverseTask task(10, 3, 9);
  ModelConfig c = test::tiny_rnn(model, cell);
  c.embed = 7;
  c.hidden = 13;
  c.max_src_len = 9;
  test::Trained t = test::train_on(task, c, 11, test::train_options(20, 6, TrainOptions{}.lr, 12));
  std::string path =
      std::filesystem::temp_directory_path() / ("heed-same-bits-" + std::to_string(::getpid()) + ".safetensors");
  save_checkpoint(*t.model, path);
  std::string bytes = slurp(path);
  std::filesystem::remove(path);
  return hex(fnv1a(bytes));
}

}  // namespace

TEST_SUITE("ch06_seq2seq") {
  TEST_CASE("same bits everywhere: fixed-seed trainings write the checkpoints x86-64 g++ wrote" * DOUBLE_ONLY(kGoldenBitsReason)) {
    CHECK(train_and_hash("additive", "gru") == "2c0de9a2015e0203");
    CHECK(train_and_hash("general", "lstm") == "aab93c0fde1a5dae");
  }

  // The same trainings with each kernel set this processor runs (tensor/kernels.h): the sets differ
  // in vector width and tile, never in the operations an element goes through.
  TEST_CASE("same bits everywhere: every kernel set writes the same checkpoints" * DOUBLE_ONLY(kGoldenBitsReason)) {
    struct Restore {  // the set in use before, whatever happens
      std::string name = kernels().name;
      ~Restore() { use_kernels(name); }
    } restore;
    for (const KernelSet& k : kernel_sets()) {
      if (!k.runs_here()) continue;
      const std::string name = k.name;
      CAPTURE(name);
      use_kernels(name);
      CHECK(train_and_hash("additive", "gru") == "2c0de9a2015e0203");
      CHECK(train_and_hash("general", "lstm") == "aab93c0fde1a5dae");
    }
  }
}
