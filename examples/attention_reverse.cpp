// Bahdanau's additive attention learns to reverse sequences of symbols, through heed's library:
// a model from models/, trained on a toy task, then asked about a sequence it never saw, showing
// where it looked. (heed train --task reverse --model additive does the same from the command line.)
// Build against an installed heed:  g++ -O2 attention_reverse.cpp $(pkg-config --cflags --libs heed)
#include <cstdio>
#include <vector>

#include <heed/models/evaluate.h>
#include <heed/models/seq2seq.h>
#include <heed/models/tasks/tasks.h>
#include <heed/models/train.h>

using namespace heed;

int main() {
  ReverseTask task(/*V=*/8, /*min_len=*/3, /*max_len=*/6);  // "3 1 4 1" -> "1 4 1 3"
  ModelConfig config;                                      // additive attention on GRU cells
  config.src_vocab = task.src_vocab().size();
  config.tgt_vocab = task.tgt_vocab().size();
  config.embed = 16;
  config.hidden = 32;
  Generator gen(1);  // the weights' seed
  Seq2Seq model(config, gen);

  TrainOptions options;  // Adam, the learning rate decayed to 0, gradients clipped
  options.steps = 400;
  options.batch = 32;
  train(model, task, options, [](const Progress& p) {
    if (p.step == 1 || p.step % 100 == 0) std::printf("step %3lld  loss %.4f\n", (long long)p.step, p.loss);
  });
  Accuracy held_out = evaluate_held_out(model, task, /*samples=*/200, /*seed=*/7);
  std::printf("held out: %.0f%% of 200 new sequences reversed exactly\n", 100 * held_out.exact());

  // One source, decoded greedily: each output symbol, and the source position it looked at most.
  const std::vector<int64_t> src = task.src_vocab().encode("5 2 7 3 6");
  Batch one = make_batch({Example{src, task.target(src)}});
  Decoded d = model.greedy(one, one.tgt_len);
  std::printf("source     %s\nprediction %s\n", task.src_vocab().decode(src).c_str(),
              task.tgt_vocab().decode(d.tokens[0]).c_str());
  for (size_t t = 0; t < src.size(); ++t) {
    const std::vector<real>& w = d.attention[0][t];
    size_t peak = 0;
    for (size_t s = 1; s < w.size(); ++s)
      if (w[s] > w[peak]) peak = s;
    std::printf("output %zu looked at source %zu (weight %.2f)\n", t + 1, peak + 1, w[peak]);
  }
}
