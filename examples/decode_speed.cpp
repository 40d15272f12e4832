// How long 128 greedy decoding steps of a Transformer take in a program that does nothing about
// memory: the measure behind "heed is fast without a call" (docs/library.md). An untrained
// encoder-decoder Transformer (D 64, 2 + 2 layers, 4 heads) decodes a batch of 8 sources of 20
// tokens for 128 steps, five times; the program prints each time and the median.
// `decode_speed --tune` calls heed::tune_allocator() first, for comparison.
// Build against an installed heed:  g++ -O2 decode_speed.cpp $(pkg-config --cflags --libs heed)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include <heed/heed.h>

using namespace heed;

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--tune") == 0) tune_allocator();
  ModelConfig config;
  config.model = "transformer";
  config.src_vocab = config.tgt_vocab = 20;
  config.embed = 64;
  config.ff = 256;
  Generator gen(1);
  std::unique_ptr<Model> model = make_model(config, gen);

  std::vector<Example> examples;  // 8 sources of 20 random tokens (ids 3.. are not specials)
  for (int b = 0; b < 8; ++b) {
    Example e;
    for (int i = 0; i < 20; ++i) e.src.push_back(gen.randint(3, 19));
    e.tgt = e.src;
    examples.push_back(e);
  }
  const Batch batch = make_batch(examples);

  std::vector<double> seconds;
  for (int run = 0; run < 5; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
    const Decoded d = model->greedy(batch, 128);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::printf("run %d: %.3f s (%zu tokens in row 0)\n", run + 1, seconds.back(), d.tokens[0].size());
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("median of 5: %.3f s for 128 steps, batch 8\n", seconds[2]);
}
