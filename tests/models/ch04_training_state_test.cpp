// The pieces of a resumable run, below the command line: a generator's state as text, Adam's
// state put back, the training tensors of a checkpoint, and a Trainer stopped and restored.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "models/seq2seq.h"
#include "models/train.h"
#include "nn/checkpoint.h"
#include "nn/linear.h"
#include "nn/optim.h"
#include "tensor/random.h"

using namespace heed;

TEST_SUITE("ch04_training_state") {
  TEST_CASE("Generator: a generator restored from its state continues the same stream, spare normal included") {
    Generator a(42);
    for (int i = 0; i < 5; ++i) a.next_u64();
    a.normal();  // leaves a spare normal behind
    Generator b = Generator::from_state(a.state());
    CHECK(b.state() == a.state());
    CHECK(a.normal() == b.normal());  // the spare, exactly
    for (int i = 0; i < 100; ++i) CHECK(a.next_u64() == b.next_u64());
    CHECK(Generator::from_state(Generator(7).state()).randint(0, 1000000) == Generator(7).randint(0, 1000000));
  }

  TEST_CASE("Generator: a malformed state is refused with the text") {
    for (const std::string bad : {"", "1 2 3", "1 2 3 4", "1 2 3 4 x", "1 2 3 4 - 5", "-1 2 3 4 -", "1 2 3 4 inf",
                                  "0 0 0 0 -", "99999999999999999999999 2 3 4 -"}) {
      CAPTURE(bad);
      CHECK_THROWS_WITH_AS(Generator::from_state(bad), doctest::Contains("Generator: state '"), Error);
    }
  }

  TEST_CASE("Adam: load_state puts back a state that continues bit for bit, and refuses one that does not fit") {
    Generator g1(3), g2(3);
    Linear a(3, 2, true, g1), b(3, 2, true, g2);
    Adam oa(a.parameters(), 0.01), ob(b.parameters(), 0.01);
    auto step = [](Linear& m, Adam& o, real x) {
      o.zero_grad();
      Var loss = sum(m.forward(Var(Tensor({1, 3}, {x, -x, 2 * x}))) * m.forward(Var(Tensor({1, 3}, {x, 1, -1}))));
      loss.backward();
      o.step();
    };
    for (int i = 0; i < 4; ++i) step(a, oa, 0.1 * i);
    for (int i = 0; i < 4; ++i) step(b, ob, 0.1 * i);
    Generator g3(9);
    Linear c(3, 2, true, g3);  // other weights, then a's state
    for (size_t i = 0; i < 2; ++i) c.parameters()[i].value() = a.parameters()[i].value();
    Adam oc(c.parameters(), 0.01);
    oc.load_state(oa.steps(), oa.exp_avg(), oa.exp_avg_sq());
    for (int i = 4; i < 8; ++i) step(a, oa, 0.1 * i);
    for (int i = 4; i < 8; ++i) step(c, oc, 0.1 * i);
    for (size_t i = 0; i < 2; ++i) CHECK(a.parameters()[i].value().to_vector() == c.parameters()[i].value().to_vector());

    auto moments = oa.exp_avg();
    CHECK_THROWS_WITH_AS(oc.load_state(-1, moments, oa.exp_avg_sq()), doctest::Contains("steps -1 is outside [0, 2^53]"), Error);
    // A crafted count that step() would overflow.
    CHECK_THROWS_WITH_AS(oc.load_state(INT64_MAX, moments, oa.exp_avg_sq()),
                         doctest::Contains("steps 9223372036854775807 is outside [0, 2^53]"), Error);
    CHECK_THROWS_WITH_AS(oc.load_state(1, {moments[0]}, oa.exp_avg_sq()),
                         doctest::Contains("1 and 2 moments for 2 parameters"), Error);
    auto wrong = moments;
    wrong[1] = Tensor::zeros({3});
    CHECK_THROWS_WITH_AS(oc.load_state(1, wrong, oa.exp_avg_sq()),
                         doctest::Contains("the moments of parameter 1 are [3] and [2], not [2]"), Error);
    auto negative = oa.exp_avg_sq();
    negative[0][0] = -1;
    CHECK_THROWS_WITH_AS(oc.load_state(1, moments, negative), doctest::Contains("exp_avg_sq >= 0"), Error);
  }

  TEST_CASE("checkpoint: training tensors go after the parameters and come back apart") {
    const std::string path = (std::filesystem::temp_directory_path() / "heed-training-state-test.st").string();
    Generator g(1);
    Linear m(2, 2, false, g);
    save_checkpoint(m, path, {}, {{"training.x", Tensor({2}, {1, 2})}});
    std::vector<NamedTensor> training;
    Generator h(2);
    Linear n(2, 2, false, h);
    load_checkpoint(n, path, &training);
    CHECK(n.weight.value().to_vector() == m.weight.value().to_vector());
    REQUIRE(training.size() == 1);
    CHECK(training[0].name == "training.x");
    CHECK(training[0].value.to_vector() == std::vector<real>{1, 2});
    CHECK(read_safetensors(path).tensors[0].name == "weight");  // the parameters first
    CHECK_THROWS_WITH_AS(save_checkpoint(m, path, {}, {{"x", Tensor({1}, {1})}}),
                         doctest::Contains("training tensor 'x' must start with training."), Error);
    CHECK_THROWS_WITH_AS(save_checkpoint(m, path, {}, {{"training.nan", Tensor({1}, {std::nan("")})}}),
                         doctest::Contains("training tensor 'training.nan' [1] holds nan"), Error);
    std::filesystem::remove(path);
  }

  TEST_CASE("Trainer: stopped, its state restored into a new Trainer, it computes the same bits") {
    ModelConfig c;
    c.embed = 4;
    c.hidden = 6;
    CopyTask task(10, 2, 4);
    TrainOptions opt;
    opt.steps = 12;
    opt.batch = 3;
    Generator g1(5), g2(5);
    Seq2Seq whole(c, g1), parts(c, g2);
    TrainResult r = train(whole, task, opt);
    TrainingState saved;
    {
      Trainer first(parts, task, opt);
      for (int i = 0; i < 5; ++i) first.step();
      saved = first.state();
    }
    CHECK(saved.step == 5);
    Trainer second(parts, task, opt);  // a fresh Adam and data stream, then the saved state
    second.restore(saved);
    std::vector<real> losses;
    while (!second.done()) losses.push_back(second.step().loss);
    CHECK(losses == std::vector<real>(r.losses.begin() + 5, r.losses.end()));
    auto a = whole.parameters(), b = parts.parameters();
    for (size_t i = 0; i < a.size(); ++i) CHECK(a[i].value().to_vector() == b[i].value().to_vector());

    TrainingState beyond = saved;
    beyond.step = 13;
    CHECK_THROWS_WITH_AS(second.restore(beyond), doctest::Contains("reached step 13, outside [0, 12]"), Error);
  }
}  // TEST_SUITE
