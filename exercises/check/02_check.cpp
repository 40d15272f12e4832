// Chapter 02's checks: each backward becomes an op of the graph (forward from tensor/ops.h,
// backward the student's) and is gradient-checked in double by central differences, on several
// shapes including 1 x 1, and once with an input used twice (x * x: the gradients must add up).
// The backward pass (02.4) runs on a graph that watches it (CheckGraph): its gradients must be
// heed's bit for bit, each rule must run once and after its node's users, leaves accumulate over
// passes, and a chain of 100,000 ops must not make the stack grow. Each rule also runs on larger
// inputs drawn per seed (sizes up to 99), its gradients held to heed's own op's.
#include "exercises/02_autograd/exercises.h"
#include "exercises/check/02_check.h"

#include <cstdio>

namespace heed::check {
namespace {

// ---- 02.4: a graph that watches a backward pass
// Each node's rule is heed's own op's backward (the op run alone on fresh leaves, its gradients
// handed to add_grad in the op's input order), so a pass that runs the nodes in heed's order
// (newest first) gives heed's gradients bit for bit. Every call is watched: a rule run twice, run
// before all of its node's users, on a leaf or with no gradient is reported at once, and so is a
// pass whose stack grows with the graph's depth (a recursion: on a chain of 100,000 ops it would
// overflow the stack and crash, here it is a wrong answer).
class CheckGraph final : public student::GraphView {
 public:
  using Op = std::function<Var(const std::vector<Var>&)>;

  // A leaf holding v; a node computed by f from the nodes `in` (indices in the order made).
  int64_t leaf(const std::string& name, const Tensor& v) { return add_node(name, {}, v, nullptr); }
  int64_t op(const std::string& name, const std::vector<int64_t>& in, const Op& f) {
    std::vector<Var> values;
    for (int64_t i : in) values.emplace_back(nodes_[i].value);
    return add_node(name, in, f(values).value(), f);
  }
  // y = x with the gradient passed on as it is: the links of a long chain (no heed op: cheap).
  int64_t link(int64_t x) { return add_node("link", {x}, nodes_[x].value, nullptr); }
  void keep(int64_t i) { nodes_[i].keeps = true; }
  // Numbers the nodes for the student (a fixed shuffle: not the order made) and sets the root.
  void finish(int64_t root) {
    const int64_t n = static_cast<int64_t>(nodes_.size());
    id_.resize(n);
    for (int64_t i = 0; i < n; ++i) id_[i] = i;
    uint64_t x = 2026;
    for (int64_t i = n - 1; i > 0; --i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      std::swap(id_[i], id_[static_cast<int64_t>((x >> 33) % static_cast<uint64_t>(i + 1))]);
    }
    index_.assign(n, 0);
    for (int64_t i = 0; i < n; ++i) index_[id_[i]] = i;
    root_ = root;
  }

  // One call of the student's pass, from a fresh start of the watch.
  void pass(const Impl02& impl, const Tensor& seed) {
    for (Node& nd : nodes_) nd.runs = 0;
    base_ = static_cast<const char*>(__builtin_frame_address(0));
    impl.backward_pass(*this, seed);
    // Every inner node that had a gradient to pass on ran once, and let go of it unless kept.
    for (int64_t i = 0; i < static_cast<int64_t>(nodes_.size()); ++i) {
      const Node& nd = nodes_[i];
      if (nd.leaf) continue;
      if (nd.runs == 0) wrong(name(i) + " never ran: the gradient stopped there, and its inputs got none");
      if (nd.has && !nd.keeps)
        wrong(name(i) + " still holds its gradient after the pass: clear_grad an inner node once its rule has run "
                        "(unless keeps_grad: heed frees the gradients it no longer needs)");
    }
  }
  const Tensor& grad(int64_t i) const {
    if (!nodes_[i].has) wrong(name(i) + " received no gradient");
    return nodes_[i].grad;
  }
  // Rebuilds the same graph of heed Vars (leaves wanting gradients, kept nodes retain_grad).
  std::vector<Var> heed_graph() const {
    std::vector<Var> v;
    for (const Node& nd : nodes_) {
      if (nd.leaf) {
        v.emplace_back(nd.value, true);
        continue;
      }
      std::vector<Var> in;
      for (int64_t i : nd.in) in.push_back(v[i]);
      v.push_back(nd.f ? nd.f(in) : in[0]);
      if (nd.keeps) v.back().retain_grad();
    }
    return v;
  }
  std::string name(int64_t i) const {
    return "node " + std::to_string(id_[i]) + " (" + nodes_[i].name + ")";
  }

  // ---- the view
  int64_t root() const override { return id_.at(root_); }
  std::vector<int64_t> inputs(int64_t n) const override {
    const Node& nd = nodes_[at(n, "inputs")];
    std::vector<int64_t> ids;
    for (int64_t i : nd.in) ids.push_back(id_[i]);
    return ids;
  }
  uint64_t made(int64_t n) const override { return 1000 + 3 * static_cast<uint64_t>(at(n, "made")); }
  bool is_leaf(int64_t n) const override { return nodes_[at(n, "is_leaf")].leaf; }
  bool has_grad(int64_t n) const override { return nodes_[at(n, "has_grad")].has; }
  bool keeps_grad(int64_t n) const override { return nodes_[at(n, "keeps_grad")].keeps; }
  void add_grad(int64_t n, const Tensor& g) override {
    Node& nd = nodes_[at(n, "add_grad")];
    if (g.shape() != nd.value.shape())
      wrong("add_grad(" + std::to_string(n) + ", g): g is " + shape_str(g.shape()) + ", but " + name(index_[n]) +
            " is " + shape_str(nd.value.shape()));
    accumulate(nd, g);
  }
  void clear_grad(int64_t n) override {
    Node& nd = nodes_[at(n, "clear_grad")];
    nd.grad = Tensor();
    nd.has = false;
  }
  void run(int64_t n) override {
    const int64_t i = at(n, "run");
    Node& nd = nodes_[i];
    if (nd.leaf) wrong("run(" + std::to_string(n) + "): " + name(i) + " is a leaf; a leaf has no rule to run");
    if (nd.runs > 0)
      wrong(name(i) + " ran its rule a second time in one pass: its inputs would receive its gradient twice "
                      "(a node reached by two paths must be visited once)");
    for (int64_t u : nd.users)
      if (nodes_[u].runs == 0)
        wrong(name(i) + " ran before " + name(u) + ", which uses it, had added its share to its gradient: "
                        "each node must run after all of its users (newest first is such an order)");
    if (!nd.has) wrong("run(" + std::to_string(n) + "): " + name(i) + " has no gradient (none arrived, or it was cleared)");
    ++nd.runs;
    if (!nd.f) {  // a link: dx += dy
      accumulate(nodes_[nd.in[0]], nd.grad);
      return;
    }
    std::vector<Var> fresh;
    for (int64_t k : nd.in) fresh.emplace_back(nodes_[k].value, true);
    nd.f(fresh).backward(nd.grad);
    for (size_t k = 0; k < nd.in.size(); ++k) accumulate(nodes_[nd.in[k]], fresh[k].grad());
  }

 private:
  struct Node {
    std::string name;
    std::vector<int64_t> in, users;
    Tensor value, grad;
    bool has = false, leaf = false, keeps = false;
    Op f;
    int runs = 0;
  };
  int64_t add_node(const std::string& name, const std::vector<int64_t>& in, const Tensor& v, const Op& f) {
    const int64_t i = static_cast<int64_t>(nodes_.size());
    Node nd;
    nd.name = name;
    nd.in = in;
    nd.value = v;
    nd.leaf = in.empty();
    nd.f = f;
    nodes_.push_back(std::move(nd));
    for (int64_t k : in) nodes_[k].users.push_back(i);
    return i;
  }
  static void accumulate(Node& nd, const Tensor& g) {
    if (!nd.has) {
      nd.grad = g;
      nd.has = true;
    } else {
      add_inplace(nd.grad, g);
    }
  }
  // The node behind the student's number n, after checking the number and the stack's depth.
  int64_t at(int64_t n, const char* call) const {
    const char* here = static_cast<const char*>(__builtin_frame_address(0));
    if (base_ && base_ - here > kMaxStack)
      wrong(std::string(call) + "(" + std::to_string(n) + "): the stack has grown by " +
            std::to_string((base_ - here) / 1024) + " KiB under backward_pass on a chain of " +
            std::to_string(nodes_.size()) + " nodes: the pass recurses, once per node, and a longer chain "
            "overflows the stack; walk the graph with a list (a std::vector used as a stack or a queue)");
    if (n < 0 || n >= static_cast<int64_t>(index_.size()))
      wrong(std::string(call) + "(" + std::to_string(n) + "): no such node (the graph numbers its nodes 0 to " +
            std::to_string(index_.size() - 1) + ")");
    return index_[n];
  }
  static constexpr std::ptrdiff_t kMaxStack = 256 * 1024;
  std::vector<Node> nodes_;
  std::vector<int64_t> id_, index_;  // node (order made) -> the student's number, and back
  int64_t root_ = 0;
  const char* base_ = nullptr;
};

// Throws Wrong unless got equals heed's gradient bit for bit; says whether it is close.
void expect_same_bits(const Tensor& got, const Tensor& heed, const std::string& what, const std::string& graph) {
  expect_close(got, heed, what, graph, 1e-9, 1e-12);
  for (int64_t i = 0; i < got.numel(); ++i)
    if (got[i] != heed[i]) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "element %lld: %.17g, heed's %.17g", static_cast<long long>(i), got[i], heed[i]);
      wrong(what + " is right to 1e-9 but not heed's bits (" + buf + "): your pass sums a node's gradient in "
            "another order; run the nodes newest first (made), as heed does\n  on " + graph);
    }
}

}  // namespace

// What each answer may not call: its reference and anything that does the whole job
// (exercises/README.md, "What an answer may not call"); the checker refuses an answer that does.
const ForbiddenCalls kForbidden02 = {
    {"tanh_backward", {"heed::tanh(heed::Var const&)", "heed::Var::backward"}},
    {"mul_backward", {"heed::mul(heed::Var const&", "heed::Var::backward"}},
    {"matmul_backward", {"heed::matmul(heed::Var const&", "heed::Var::backward"}},
    {"backward_pass", {"heed::Var::backward"}},
    {"sum_backward", {"heed::sum(heed::Var const&", "heed::mean(heed::Var const&", "heed::Var::backward"}},
};

std::vector<Exercise> exercises_02(const Impl02& impl) {
  auto tanh_op = [impl](const Var& x) {
    Tensor y = tanh(x.value());
    return custom_op("tanh", {x}, y, [impl, x, y](const Tensor& dy) {
      return std::vector<Tensor>{impl.tanh_backward(x.value(), y, dy)};
    });
  };
  auto mul_op = [impl](const Var& a, const Var& b) {
    return custom_op("mul", {a, b}, mul(a.value(), b.value()), [impl, a, b](const Tensor& dy) {
      auto [da, db] = impl.mul_backward(a.value(), b.value(), dy);
      return std::vector<Tensor>{da, db};
    });
  };
  auto matmul_op = [impl](const Var& a, const Var& b) {
    return custom_op("matmul", {a, b}, matmul(a.value(), b.value()), [impl, a, b](const Tensor& dy) {
      auto [da, db] = impl.matmul_backward(a.value(), b.value(), dy);
      return std::vector<Tensor>{da, db};
    });
  };
  auto sum_op = [impl](const Var& x, int64_t axis, bool keepdim) {
    return custom_op("sum", {x}, sum(x.value(), axis, keepdim), [impl, x, axis, keepdim](const Tensor& dy) {
      Tensor dx = impl.sum_backward(x.value(), axis, keepdim, dy);
      if (dx.shape() != x.shape())
        wrong("sum_backward returned " + shape_str(dx.shape()) + " for x of " + shape_str(x.shape()) + " (axis " +
              std::to_string(axis) + ", keepdim " + (keepdim ? "true" : "false") + ", dy of " +
              shape_str(dy.shape()) + "): dx has x's shape");
      return std::vector<Tensor>{dx};
    });
  };
  return {
      {"tanh_backward",
       [tanh_op] {
         Generator gen(seed(201));
         for (Shape s : {Shape{3, 4}, Shape{1, 1}, Shape{5}}) {
           Tensor x = random(s, gen, -2, 2);
           expect_gradcheck("tanh with your tanh_backward", [&](const std::vector<Var>& v) { return tanh_op(v[0]); },
                            {x}, describe("x", x));
         }
         // A larger x, drawn per seed (check.h, odd_size): the gradient against heed's tanh's.
         Tensor x = random({odd_size(gen, 33, 99), odd_size(gen, 33, 99)}, gen, -2, 2);
         expect_same_as("tanh with your tanh_backward", [&](const std::vector<Var>& v) { return tanh_op(v[0]); },
                        [](const std::vector<Var>& v) { return tanh(v[0]); }, {x}, describe("x", x), gen);
       }},
      {"mul_backward",
       [mul_op] {
         Generator gen(seed(202));
         for (Shape s : {Shape{2, 3}, Shape{1, 1}, Shape{4}}) {
           Tensor a = random(s, gen, -2, 2), b = random(s, gen, -2, 2);
           expect_gradcheck("a * b with your mul_backward",
                            [&](const std::vector<Var>& v) { return mul_op(v[0], v[1]); }, {a, b},
                            describe("a", a) + "\n  " + describe("b", b));
         }
         Tensor x = random({3}, gen, -2, 2);
         expect_gradcheck("x * x (one input used twice) with your mul_backward",
                          [&](const std::vector<Var>& v) { return mul_op(v[0], v[0]); }, {x}, describe("x", x));
         // Larger ones, drawn per seed: the gradients against heed's mul's.
         const Shape large = {odd_size(gen, 33, 99), odd_size(gen, 33, 99)};
         Tensor a = random(large, gen, -2, 2), b = random(large, gen, -2, 2);
         expect_same_as("a * b with your mul_backward", [&](const std::vector<Var>& v) { return mul_op(v[0], v[1]); },
                        [](const std::vector<Var>& v) { return mul(v[0], v[1]); }, {a, b},
                        describe("a", a) + "\n  " + describe("b", b), gen);
       }},
      {"matmul_backward",
       [matmul_op] {
         Generator gen(seed(203));
         const std::vector<std::array<int64_t, 3>> cases = {{3, 3, 3}, {2, 3, 4}, {1, 4, 1}, {4, 1, 2}};
         for (auto [M, K, N] : cases) {
           Tensor a = random({M, K}, gen), b = random({K, N}, gen);
           expect_gradcheck("a b with your matmul_backward",
                            [&](const std::vector<Var>& v) { return matmul_op(v[0], v[1]); }, {a, b},
                            describe("a", a) + "\n  " + describe("b", b));
         }
         // Larger ones, drawn per seed, past the widths a loop may be unrolled or blocked by: the
         // gradients against heed's matmul's.
         for (auto [lo, hi] : {std::pair<int64_t, int64_t>{17, 63}, {65, 99}}) {
           Tensor a = random({odd_size(gen, lo, hi), odd_size(gen, lo, hi)}, gen);
           Tensor b = random({a.shape()[1], odd_size(gen, lo, hi)}, gen);
           expect_same_as("a b with your matmul_backward", [&](const std::vector<Var>& v) { return matmul_op(v[0], v[1]); },
                          [](const std::vector<Var>& v) { return matmul(v[0], v[1]); }, {a, b},
                          describe("a", a) + "\n  " + describe("b", b), gen);
         }
       }},
      {"backward_pass",
       [impl] {
         Generator gen(seed(204));
         auto scalar = [&] { return Tensor::scalar(random({1}, gen, -1, 1)[0]); };
         // Chapter 02's neuron: d is used twice (d * d), every leaf once.
         {
           const std::string graph = "chapter 02's neuron, loss = (tanh(w1 x1 + w2 x2 + b) - 0.5)^2";
           CheckGraph g;
           const int64_t x1 = g.leaf("x1", scalar()), x2 = g.leaf("x2", scalar()), w1 = g.leaf("w1", scalar()),
                         w2 = g.leaf("w2", scalar()), b = g.leaf("b", scalar());
           const int64_t p1 = g.op("w1 * x1", {w1, x1}, [](const std::vector<Var>& v) { return v[0] * v[1]; });
           const int64_t p2 = g.op("w2 * x2", {w2, x2}, [](const std::vector<Var>& v) { return v[0] * v[1]; });
           const int64_t s = g.op("+", {p1, p2}, [](const std::vector<Var>& v) { return v[0] + v[1]; });
           const int64_t z = g.op("+ b", {s, b}, [](const std::vector<Var>& v) { return v[0] + v[1]; });
           const int64_t y = g.op("tanh", {z}, [](const std::vector<Var>& v) { return tanh(v[0]); });
           const int64_t d = g.op("- 0.5", {y}, [](const std::vector<Var>& v) { return v[0] - 0.5; });
           const int64_t loss = g.op("d * d", {d, d}, [](const std::vector<Var>& v) { return v[0] * v[1]; });
           g.finish(loss);
           g.pass(impl, Tensor::scalar(1));
           std::vector<Var> heed = g.heed_graph();
           heed[loss].backward();
           for (auto [leaf, name] : std::vector<std::pair<int64_t, const char*>>{
                    {x1, "x1"}, {x2, "x2"}, {w1, "w1"}, {w2, "w2"}, {b, "b"}})
             expect_same_bits(g.grad(leaf), heed[leaf].grad(), std::string("dloss/d") + name, graph);
         }
         // A diamond of tensors: h is used three times (h + h * h), and reached first by the short
         // path; h keeps its gradient (retain_grad).
         {
           const std::string graph = "a diamond, loss = sum(h + h * h), h = tanh(W x), W [3, 4], x [4, 2], h kept";
           CheckGraph g;
           const int64_t W = g.leaf("W", random({3, 4}, gen)), x = g.leaf("x", random({4, 2}, gen));
           const int64_t z = g.op("W x", {W, x}, [](const std::vector<Var>& v) { return matmul(v[0], v[1]); });
           const int64_t h = g.op("tanh", {z}, [](const std::vector<Var>& v) { return tanh(v[0]); });
           g.keep(h);
           const int64_t hh = g.op("h * h", {h, h}, [](const std::vector<Var>& v) { return v[0] * v[1]; });
           const int64_t s = g.op("h + h * h", {h, hh}, [](const std::vector<Var>& v) { return v[0] + v[1]; });
           const int64_t loss = g.op("sum", {s}, [](const std::vector<Var>& v) { return sum(v[0]); });
           g.finish(loss);
           g.pass(impl, Tensor::scalar(1));
           std::vector<Var> heed = g.heed_graph();
           heed[loss].backward();
           expect_same_bits(g.grad(W), heed[W].grad(), "dloss/dW", graph);
           expect_same_bits(g.grad(x), heed[x].grad(), "dloss/dx", graph);
           expect_same_bits(g.grad(h), heed[h].grad(), "dloss/dh (kept)", graph);
         }
         // Two passes: leaves add the second pass's gradient to the first's, inner nodes start
         // again from nothing. x is reached three times, x * x twice from one node.
         {
           const std::string graph = "f = x * x + x, x = 3, x * x kept, backward_pass called twice";
           CheckGraph g;
           const int64_t x = g.leaf("x", Tensor::scalar(3));
           const int64_t m = g.op("x * x", {x, x}, [](const std::vector<Var>& v) { return v[0] * v[1]; });
           g.keep(m);
           const int64_t f = g.op("x * x + x", {m, x}, [](const std::vector<Var>& v) { return v[0] + v[1]; });
           g.finish(f);
           g.pass(impl, Tensor::scalar(1));
           expect_close(g.grad(x), Tensor::scalar(7), "df/dx after one pass (2x + 1)", graph);
           g.pass(impl, Tensor::scalar(1));
           if (g.grad(x).item() == 7)
             wrong("df/dx is 7 after two passes, not 14: a leaf keeps its gradient and the next pass adds to it "
                   "(clear only inner nodes)\n  on " + graph);
           if (g.grad(m).item() == 2)
             wrong("the kept gradient of x * x is 2 after two passes, not 1: an inner node starts each pass from "
                   "nothing (clear_grad every inner node before seeding the root)\n  on " + graph);
           std::vector<Var> heed = g.heed_graph();
           heed[f].backward();
           heed[f].backward();
           expect_same_bits(g.grad(x), heed[x].grad(), "df/dx after two passes", graph);
           expect_same_bits(g.grad(m), heed[m].grad(), "df/d(x * x), kept, after two passes", graph);
         }
         // The root is a leaf: the seed is its gradient, added to what it holds.
         {
           CheckGraph g;
           const int64_t x = g.leaf("x", random({3}, gen));
           g.finish(x);
           const Tensor seed = random({3}, gen);
           g.pass(impl, seed);
           g.pass(impl, seed);
           expect_close(g.grad(x), add(seed, seed), "the gradient of a leaf root after two passes", describe("seed", seed));
         }
         // A chain of 100,000 ops: no recursion (the stack must not grow with the graph's depth).
         {
           CheckGraph g;
           const int64_t x = g.leaf("x", random({2}, gen));
           int64_t y = x;
           for (int i = 0; i < 100000; ++i) y = g.link(y);
           g.finish(y);
           const Tensor seed = random({2}, gen);
           g.pass(impl, seed);
           expect_close(g.grad(x), seed, "dy/dx through a chain of 100,000 ops that pass the gradient on",
                        describe("seed", seed));
         }
       }},
      {"sum_backward",
       [sum_op] {
         // A square x summed along its last axis first: dy repeated along the wrong axis has the
         // right shape there, and only the values tell.
         struct Case {
           Shape shape;
           int64_t axis;
           bool keepdim;
         };
         const std::vector<Case> cases = {{{3, 3}, 1, false}, {{3, 4}, 0, false}, {{3, 4}, 1, true},  {{3, 4}, -1, false},
                                          {{2, 3, 4}, 1, false}, {{2, 3, 4}, 1, true}, {{2, 3, 4}, -1, true},
                                          {{2, 3, 4}, 0, false}, {{5}, 0, false},     {{1, 1}, 0, true}};
         Generator gen(seed(205));
         for (const Case& c : cases) {
           Tensor x = random(c.shape, gen, -2, 2);
           expect_gradcheck("sum(x, " + std::to_string(c.axis) + ", keepdim " + (c.keepdim ? "true" : "false") +
                                ") with your sum_backward",
                            [&](const std::vector<Var>& v) { return sum_op(v[0], c.axis, c.keepdim); }, {x},
                            describe("x", x));
         }
         // A larger x, drawn per seed, summed along each axis: the gradients against heed's sum's.
         Tensor x = random({odd_size(gen, 17, 41), odd_size(gen, 17, 41), odd_size(gen, 33, 71)}, gen, -2, 2);
         for (int64_t axis : {0, 1, 2})
           expect_same_as("sum(x, " + std::to_string(axis) + ") with your sum_backward",
                          [&](const std::vector<Var>& v) { return sum_op(v[0], axis, false); },
                          [&](const std::vector<Var>& v) { return sum(v[0], axis, false); }, {x}, describe("x", x), gen);
       }},
  };
}

static Register reg({"02", "exercises/02_autograd", "student", [] { return exercises_02(HEED_IMPL_02(heed::student)); }, kForbidden02});

}  // namespace heed::check
