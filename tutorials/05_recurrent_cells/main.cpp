// Chapter 05: recurrent cells. The three cells and their parameters, one GRU step computed
// by hand from its equations, an encoder unrolled over a padded batch (one and two
// directions), backpropagation through the unrolled graph, and the gradient that reaches each
// input of a long sequence: the vanishing gradient. Untrained cells throughout, fixed seeds.
// `--quick` uses a shorter sequence for the last table.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "io/atomic_file.h"
#include "nn/encoder.h"
#include "nn/rnn_cell.h"
#include "tensor/random.h"
#include "viz/diagram.h"
#include "viz/svg.h"

using namespace heed;

namespace {

// "( 0.123, -0.456)": a row of a (rows, n) tensor, or a slice of one.
std::string vec(const real* v, int64_t n, int precision = 3) {
  std::string s = "(";
  for (int64_t i = 0; i < n; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%*.*f", i ? ", " : "", precision + 3, precision, v[i]);
    s += buf;
  }
  return s + ")";
}

void cells() {
  std::printf("== 1. three cells (input size I = 4, hidden size H = 3)\n");
  Generator gen(1);
  for (const char* kind : {"rnn", "gru", "lstm"}) {
    auto cell = make_cell(kind, 4, 3, gen);
    std::printf("%-5s", kind);
    for (const auto& [name, v] : cell->named_parameters())
      std::printf(" %s %-8s", name.c_str(), shape_str(v.shape()).c_str());
    std::printf(" %4lld numbers\n", static_cast<long long>(cell->num_parameters()));
  }
  std::printf("\n");
}

// The GRU equations of nn/rnn_cell.h, written out with tensor ops (no graph), next to the cell.
void gru_by_hand() {
  std::printf("== 2. one gru step, by hand and by the cell (I = 4, H = 3, one sequence)\n");
  Generator gen(2);
  GRUCell cell(4, 3, gen);
  const int64_t H = 3;
  Tensor x({1, 4}, {1.0, -0.5, 0.25, 2.0});
  Tensor h({1, 3}, {0.5, -0.2, 0.1});
  Tensor xp = add(matmul_nt(x, cell.weight_ih.value()), cell.bias_ih.value());  // (1, 3H): W_i* x + b_i*
  Tensor hp = add(matmul_nt(h, cell.weight_hh.value()), cell.bias_hh.value());  // (1, 3H): W_h* h + b_h*
  Tensor r = sigmoid(add(slice(xp, 1, 0, H), slice(hp, 1, 0, H)));
  Tensor z = sigmoid(add(slice(xp, 1, H, 2 * H), slice(hp, 1, H, 2 * H)));
  Tensor n = tanh(add(slice(xp, 1, 2 * H, 3 * H), mul(r, slice(hp, 1, 2 * H, 3 * H))));
  Tensor h_new = add(mul(sub(Tensor::ones({1, H}), z), n), mul(z, h));
  Tensor from_cell = cell.step(Var(x), {Var(h), Var()}).h.value();
  const std::pair<const char*, const Tensor*> rows[] = {
      {"x", &x},         {"h", &h},
      {"r (reset)", &r}, {"z (update)", &z},
      {"n (candidate)", &n}, {"h' = (1 - z) n + z h", &h_new},
      {"h' from GRUCell", &from_cell}};
  for (const auto& [label, t] : rows) std::printf("%-21s %s\n", label, vec(t->data(), t->numel()).c_str());
  real diff = 0;
  for (int64_t j = 0; j < H; ++j) diff = std::max(diff, std::fabs(from_cell[j] - h_new[j]));
  std::printf("the two agree to within 1e-15: %s\n\n", diff <= 1e-15 ? "yes" : "NO");
}

// Prints one sequence of an encoder's states, position by position; `I` inputs per position.
void print_states(const Tensor& x, const Tensor& states, int64_t b, int64_t length, int64_t H) {
  const int64_t S = states.shape()[1], I = x.shape()[2], D = states.shape()[2];
  for (int64_t t = 0; t < S; ++t) {
    const real* xs = x.data() + (b * S + t) * I;
    const real* hs = states.data() + (b * S + t) * D;
    std::printf("  t %lld  x %s  %s", static_cast<long long>(t), vec(xs, I, 2).c_str(), t < length ? "     " : "(pad)");
    std::printf("  h %s", vec(hs, H).c_str());
    if (D > H) std::printf(" | %s", vec(hs + H, H).c_str());
    std::printf("\n");
  }
}

void unrolling() {
  std::printf("== 3. a gru encoder unrolled over a padded batch (B 2, S 5, I 2, H 3; lengths 5 and 3)\n");
  const int64_t B = 2, S = 5, I = 2, H = 3;
  const std::vector<int64_t> lengths = {5, 3};
  Generator gen(3);
  RecurrentEncoder enc("gru", I, H, /*bidirectional=*/false, gen);
  Tensor x = Tensor::normal({B, S, I}, 0, 1, gen);  // (B, S, I)
  for (int64_t t = lengths[1]; t < S; ++t)          // padding: values that must not matter
    for (int64_t i = 0; i < I; ++i) x.at({1, t, i}) = 9.0;
  EncoderOutput out = enc.forward(Var(x), lengths);
  std::printf("states %s, last.h %s\n", shape_str(out.states.shape()).c_str(), shape_str(out.last.h.shape()).c_str());
  for (int64_t b = 0; b < B; ++b) {
    std::printf("sequence %lld\n", static_cast<long long>(b));
    print_states(x, out.states.value(), b, lengths[b], H);
    std::printf("  last.h %s = h at t %lld\n", vec(out.last.h.value().data() + b * H, H).c_str(),
                static_cast<long long>(lengths[b] - 1));
  }

  Tensor alone_x = slice(slice(x, 0, 1, 2), 1, 0, lengths[1]);  // (1, 3, I): sequence 1 alone
  EncoderOutput alone = enc.forward(Var(alone_x), {lengths[1]});
  bool same = equal(alone.states.value(), slice(slice(out.states.value(), 0, 1, 2), 1, 0, lengths[1])) &&
              equal(alone.last.h.value(), slice(out.last.h.value(), 0, 1, 2));
  std::printf("sequence 1 encoded alone (S 3): states and last.h bit-identical to the batch's: %s\n\n",
              same ? "yes" : "NO");

  std::printf("bidirectional: the same inputs, a second gru cell reading right to left\n");
  Generator gen2(3);
  RecurrentEncoder bi("gru", I, H, /*bidirectional=*/true, gen2);
  EncoderOutput both = bi.forward(Var(x), lengths);
  std::printf("states %s = forward | backward, last.h %s\n", shape_str(both.states.shape()).c_str(),
              shape_str(both.last.h.shape()).c_str());
  std::printf("sequence 1\n");
  print_states(x, both.states.value(), 1, lengths[1], H);
  const real* last = both.last.h.value().data() + 1 * 2 * H;
  std::printf("  last.h %s | %s = forward h at t 2 | backward h at t 0\n\n", vec(last, H).c_str(),
              vec(last + H, H).c_str());
}

void backprop_through_time() {
  std::printf("== 4. backpropagation through time\n");
  std::printf("graph nodes recorded by the forward pass of a gru encoder (B 16, I 32, H 64)\n");
  Generator gen(4);
  RecurrentEncoder enc("gru", 32, 64, false, gen);
  for (int64_t T : {10, 20, 40, 80}) {
    Var x(Tensor::normal({16, T, 32}, 0, 1, gen), true);
    int64_t before = Node::live_count();
    EncoderOutput out = enc.forward(x, std::vector<int64_t>(16, T));
    Var loss = sum(out.last.h);
    int64_t nodes = Node::live_count() - before;
    loss.backward();
    std::printf("  T %3lld: %5lld nodes, %4.1f per step\n", static_cast<long long>(T), static_cast<long long>(nodes),
                static_cast<real>(nodes) / static_cast<real>(T));
  }

  Generator gen2(5);
  RecurrentEncoder small("gru", 2, 3, /*bidirectional=*/true, gen2);
  Var x(Tensor::normal({3, 6, 2}, 0, 1, gen2), true);
  std::vector<Var> inputs = small.parameters();
  inputs.push_back(x);
  GradcheckOptions options;
  options.name = "bidirectional gru encoder, 6 steps, lengths 6, 2, 4";
  GradcheckReport r = gradcheck(
      [&] {
        EncoderOutput out = small.forward(x, {6, 2, 4});
        return concat({reshape(out.states, {3, -1}), out.last.h}, 1);
      },
      inputs, options);
  std::printf("gradcheck of the %s,\nw.r.t. every parameter and input: %s (%lld elements; max abs error %s)\n\n",
              r.name.c_str(), r.ok ? "passed" : "FAILED", static_cast<long long>(r.elements),
              r.max_abs_err < 1e-8 ? "below 1e-8" : "1e-8 or more");
}

// ||d loss / d x_t|| for every t, averaged over the batch, where loss = sum(h_T * R) reads the
// final state only. x (B, T, I) is one leaf; its gradient, sliced per step, is the answer.
std::vector<real> input_gradient_norms(const RecurrentEncoder& enc, const Tensor& x_value, const Tensor& R) {
  const int64_t B = x_value.shape()[0], T = x_value.shape()[1], I = x_value.shape()[2];
  Var x(x_value, true);
  EncoderOutput out = enc.forward(x, std::vector<int64_t>(B, T));
  sum(out.last.h * Var(R)).backward();
  std::vector<real> norms(T, 0);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b) {
      real s = 0;
      for (int64_t i = 0; i < I; ++i) s += x.grad().at({b, t, i}) * x.grad().at({b, t, i});
      norms[t] += std::sqrt(s) / static_cast<real>(B);
    }
  return norms;
}

void vanishing(int64_t T) {
  const int64_t B = 16, I = 32, H = 64;
  std::printf("== 5. the gradient that reaches each input (T %lld, B %lld, I %lld, H %lld; untrained cells)\n",
              static_cast<long long>(T), static_cast<long long>(B), static_cast<long long>(I),
              static_cast<long long>(H));
  std::printf("loss = sum(h_T * R), R fixed; the table shows ||d loss / d x_t||, averaged over the batch,\n"
              "k steps before the last (t = T-1-k). The last two columns add 2 to the bias of the gate\n"
              "that keeps the old state (gru z, lstm f), as training can learn to.\n");
  Generator data(7);
  Tensor x = Tensor::normal({B, T, I}, 0, 1, data);  // (B, T, I)
  Tensor R = Tensor::normal({B, H}, 0, 1, data);     // (B, H)
  struct Column {
    const char* title;
    const char* kind;
    real gate_bias;
  };
  const Column columns[] = {{"rnn", "rnn", 0},
                            {"gru", "gru", 0},
                            {"lstm", "lstm", 0},
                            {"gru z+2", "gru", 2},
                            {"lstm f+2", "lstm", 2}};
  std::vector<std::vector<real>> norms;
  for (const Column& c : columns) {
    Generator gen(6);
    RecurrentEncoder enc(c.kind, I, H, false, gen);
    // Gate order: gru r, z, n and lstm i, f, g, o; rows H..2H of the biases are z or f.
    Var bias = enc.cell().bias_hh;
    if (c.gate_bias != 0)  // rnn has one gate: its bias has only H rows
      for (int64_t j = H; j < 2 * H; ++j) bias.value()[j] += c.gate_bias;
    norms.push_back(input_gradient_norms(enc, x, R));
  }
  std::printf("%5s", "k");
  for (const Column& c : columns) std::printf(" %10s", c.title);
  std::printf("\n");
  for (int64_t k : {0, 1, 2, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 99}) {
    if (k >= T) break;
    std::printf("%5lld", static_cast<long long>(k));
    for (const auto& n : norms) std::printf(" %10.1e", n[T - 1 - k]);
    std::printf("\n");
  }
  const int64_t k0 = 10, k1 = std::min<int64_t>(50, T - 1);
  std::printf("%5s", "rate");
  for (const auto& n : norms)
    std::printf(" %10.2f", std::pow(n[T - 1 - k1] / n[T - 1 - k0], 1 / static_cast<real>(k1 - k0)));
  std::printf("\n(rate: the factor per step from k %lld to k %lld)\n", static_cast<long long>(k0),
              static_cast<long long>(k1));
}

int run(bool quick) {
  cells();
  gru_by_hand();
  unrolling();
  backprop_through_time();
  vanishing(quick ? 60 : 100);
  return 0;
}

}  // namespace

// The chapter's figure: a cell unrolled over four steps, one set of weights used at each, and the
// path the gradient of a loss on h_4 takes back to x_1 (section 5 measures it).
void figures(const std::string& dir) {
  Diagram d;
  d.title = "a recurrent cell unrolled: the same weights at every step";
  d.caption = "h_t = cell(x_t, h_{t-1}); the gradient from h_4 reaches x_1 through three step Jacobians";
  int prev = d.add({"h_0 = 0", 0, 1, "#f2f2f2", true});
  for (int t = 1; t <= 4; ++t) {
    int x = d.add({"x_" + std::to_string(t) + " (I)", static_cast<real>(t), 2, "#eef4fb", true});
    int c = d.add({"cell\nW_ih, W_hh", static_cast<real>(t), 1});
    int h = d.add({"h_" + std::to_string(t) + " (H)", static_cast<real>(t), 0, "#e8f5e9", true});
    d.arrow(x, c);
    d.arrow(prev, c, t == 1 ? "" : "h_" + std::to_string(t - 1));
    d.arrow(c, h);
    prev = c;
  }
  const std::string path = dir + "/unrolled_rnn.svg";
  write_text_file(path, svg_diagram(d));
  std::printf("wrote %s\n", path.c_str());
}

int main(int argc, char** argv) {
  heed::tune_allocator();  // keep freed tensors with the process (tensor/tensor.h)
  if (argc > 1 && std::string(argv[1]) == "figures") {  // figures [DIR]
    figures(argc > 2 ? argv[2] : "build/ch05");
    return 0;
  }
  try {
    return run(argc > 1 && std::string(argv[1]) == "--quick");
  } catch (const Error& e) {
    std::fprintf(stderr, "tutorial-05: %s\n", e.what());
    return 2;
  }
}
