// A decoder-only Transformer, written as a user writes one with heed's layers, learns to reverse
// six digits: it reads "3 1 4 1 5 9 |" and goes on "9 5 1 4 1 3", one token at a time, each
// predicted from the tokens before it (causal self-attention, the model of GPT), then shows what
// it learned on sequences it never saw. heed's own model of this kind is models/decoder_model.h.
// Build against an installed heed:  g++ -O2 tiny_transformer.cpp $(pkg-config --cflags --libs heed)
#include <cstdio>
#include <vector>

#include <heed/heed.h>

using namespace heed;

constexpr int64_t kDigits = 6, kSep = 10, V = 11, T = 2 * kDigits + 1, D = 32, kHeads = 4, B = 32;

// One pre-norm block: x + attention(norm(x)), then h + mlp(norm(h)), as GPT-2's.
struct Block : Module {
  LayerNorm norm1{D}, norm2{D};
  MultiHeadAttention attn;
  Sequential mlp;
  explicit Block(Generator& gen) : attn(D, kHeads, gen) {
    mlp.add<Linear>(D, 4 * D, true, gen);
    mlp.add(relu);
    mlp.add<Linear>(4 * D, D, true, gen);
    register_module("norm1", norm1), register_module("attn", attn);
    register_module("norm2", norm2), register_module("mlp", mlp);
  }
  Var forward(const Var& x) const {  // (B, t, D) -> (B, t, D)
    Var h = x + attn.forward(norm1.forward(x), /*causal=*/true).output;
    return h + mlp.forward(norm2.forward(h));
  }
};

struct TinyTransformer : Module {
  Embedding tok;
  PositionEmbedding pos;
  Sequential blocks;
  LayerNorm norm{D};
  Linear out;
  explicit TinyTransformer(Generator& gen) : tok(V, D, gen), pos(T, D, gen), out(D, V, true, gen) {
    for (int l = 0; l < 2; ++l) blocks.add<Block>(gen);
    register_module("tok", tok), register_module("pos", pos), register_module("blocks", blocks);
    register_module("norm", norm), register_module("out", out);
  }
  Var forward(const std::vector<int64_t>& ids, int64_t n, int64_t t) const {  // ids (n, t) -> (n, t, V)
    return out.forward(norm.forward(blocks.forward(tok.forward(ids, {n, t}) + pos.forward(t))));
  }
};

// n sequences "d_1 .. d_6 | d_6 .. d_1", row after row.
std::vector<int64_t> sample(int64_t n, Generator& gen) {
  std::vector<int64_t> ids;
  for (int64_t b = 0; b < n; ++b) {
    std::vector<int64_t> d(kDigits);
    for (int64_t& x : d) x = gen.randint(0, 9);
    ids.insert(ids.end(), d.begin(), d.end());
    ids.push_back(kSep);
    ids.insert(ids.end(), d.rbegin(), d.rend());
  }
  return ids;
}

// The digits after the separator, chosen one at a time: each the most probable next token.
std::vector<int64_t> reverse(const TinyTransformer& model, std::vector<int64_t> seq) {
  NoGradGuard no_grad;
  while (static_cast<int64_t>(seq.size()) < T) {
    const int64_t t = static_cast<int64_t>(seq.size());
    Tensor logits = model.forward(seq, 1, t).value();       // (1, t, V)
    seq.push_back(argmax_indices(logits, 2)[t - 1]);      // the last position's choice
  }
  return std::vector<int64_t>(seq.begin() + kDigits + 1, seq.end());
}

int main() {
  Generator gen(1);
  TinyTransformer model(gen);
  Adam adam(model.parameters(), /*lr=*/3e-3);
  for (int step = 1; step <= 200; ++step) {
    const std::vector<int64_t> ids = sample(B, gen);
    std::vector<int64_t> next(B * T, -100);  // targets: the digits after the separator only
    for (int64_t b = 0; b < B; ++b)
      for (int64_t t = kDigits; t < T - 1; ++t) next[b * T + t] = ids[b * T + t + 1];
    Var loss = cross_entropy(reshape(model.forward(ids, B, T), {B * T, V}), next);
    adam.zero_grad();
    loss.backward();
    adam.step();
    if (step == 1 || step % 50 == 0) std::printf("step %3d  loss %.4f\n", step, loss.item());
  }
  int exact = 0;
  for (int i = 0; i < 100; ++i) {
    const std::vector<int64_t> seq = sample(1, gen);
    exact += reverse(model, {seq.begin(), seq.begin() + kDigits + 1}) ==
             std::vector<int64_t>(seq.begin() + kDigits + 1, seq.end());
  }
  std::printf("held out: %d of 100 new sequences reversed exactly\n", exact);
  std::printf("3 1 4 1 5 9 | ->");
  for (int64_t d : reverse(model, {3, 1, 4, 1, 5, 9, kSep})) std::printf(" %lld", static_cast<long long>(d));
  std::printf("\n");
}
