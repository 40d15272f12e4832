// Reliability: what heed promises when it meets mistakes and accidents (docs/testing.md, "What heed
// promises"). Sizes that cannot fit are refused before anything is allocated; training stops at
// the first non-finite number and names it; no checkpoint holds a NaN; a save is atomic even when
// the process dies half-way; nothing leaks, not even on the error paths. The command line's
// bad inputs are in reliability_cli_test.cpp; the regression tests of make fuzz are here.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>

#include "autograd/var.h"
#include "io/atomic_file.h"
#include "io/json.h"
#include "io/safetensors.h"
#include "models/evaluate.h"
#include "models/seq2seq.h"
#include "models/train.h"
#include "nn/checkpoint.h"
#include "tests/support/heed_cli.h"  // slurp
#include "tests/support/model_fixtures.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

struct TempDir {
  std::filesystem::path path;
  TempDir() : path(std::filesystem::temp_directory_path() / ("heed-reliability-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
  int entries() const {
    int n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(path)) ++n;
    return n;
  }
};

// The tests' tiny model, its location attention addressing 8 source positions.
ModelConfig tiny(const std::string& model = "additive", const std::string& cell = "gru") {
  ModelConfig c = test::tiny_rnn(model, cell);
  c.max_src_len = 8;
  return c;
}

// The 8-byte little-endian length, then the header.
std::string with_header(const std::string& header, const std::string& data = "") {
  std::string out(8, '\0');
  for (int k = 0; k < 8; ++k) out[k] = static_cast<char>((header.size() >> (8 * k)) & 0xFF);
  return out + header + data;
}

}  // namespace

TEST_SUITE("reliability") {
  TEST_CASE("sizes: ModelConfig::parameter_count is the built model's count, for every model, cell and direction") {
    for (const char* model : {"plain", "additive", "general", "dot", "scaled", "cosine", "location"})
      for (const char* cell : {"gru", "lstm", "rnn"})
        for (bool bi : {false, true}) {
          ModelConfig c = tiny(model, cell);
          c.bidirectional = bi;
          if (bi && (c.model == "dot" || c.model == "scaled" || c.model == "cosine")) continue;
          Generator gen(1);
          Seq2Seq m(c, gen);
          INFO(model << " " << cell << (bi ? " bidirectional" : ""));
          CHECK(c.parameter_count() == m.num_parameters());
        }
  }

  TEST_CASE("sizes: a model whose sizes multiply past the limit is refused before it is built") {
    ModelConfig c = tiny();
    c.embed = c.hidden = 4096;  // each within its range; 285 million parameters together
    CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("parameters (embed 4096, hidden 4096"), Error);
    Generator gen(1);
    CHECK_THROWS_WITH_AS(Seq2Seq(c, gen), doctest::Contains("exceed the limit of 67108864"), Error);
    // A checkpoint's metadata goes through the same checks.
    std::map<std::string, std::string> meta = tiny().to_metadata();
    meta["hidden"] = "100000";
    CHECK_THROWS_WITH_AS(ModelConfig::from_metadata(meta), doctest::Contains("hidden is 100000, must be in [1, 4096]"),
                         Error);
    meta["hidden"] = "99999999999999999999999";
    CHECK_THROWS_WITH_AS(ModelConfig::from_metadata(meta),
                         doctest::Contains("model config: 'hidden': 99999999999999999999999 is out of range"), Error);
    meta["hidden"] = "12abc";  // refused here as on the command line (io/parse.h)
    CHECK_THROWS_WITH_AS(ModelConfig::from_metadata(meta),
                         doctest::Contains("model config: 'hidden': '12abc' is not a whole number"), Error);
    // A step's memory: a batch of long sequences is refused, the configurations S and M pass.
    ModelConfig m = tiny();
    m.embed = 64;
    m.hidden = 256;
    CHECK_NOTHROW(check_step_memory(m, 64, 30));  // configuration M
    CHECK_THROWS_WITH_AS(check_step_memory(m, 100000, 1000), doctest::Contains("would need about"), Error);
  }

  TEST_CASE("sizes: safetensors headers that claim too much are refused without allocating it") {
    // A tensor of 2^40 doubles (8 TiB) in a file of a few bytes.
    std::string huge = R"({"w":{"dtype":"F64","shape":[1099511627776],"data_offsets":[0,8796093022208]}})";
    CHECK_THROWS_WITH_AS(parse_safetensors(with_header(huge)), doctest::Contains("run past the end of the 0-byte data section"),
                         Error);
    // A header of 600,000 tiny values would take ~60 MB parsed; the value limit stops it.
    std::string many = R"({"__metadata__":{},"w":{"dtype":"F64","data_offsets":[0,0],"shape":[)";
    for (int i = 0; i < 600000; ++i) many += "0,";
    many += "0]}}";
    CHECK_THROWS_WITH_AS(parse_safetensors(with_header(many)), doctest::Contains("more than 500000 values"), Error);
    CHECK_THROWS_WITH_AS(parse_json("[[0,0],[0,0]]", kJsonMaxDepth, 6), doctest::Contains("more than 6 values"), Error);
    CHECK(parse_json("[[0,0],[0,0]]", kJsonMaxDepth, 7).size() == 2);
  }

  TEST_CASE("non-finite guard: a diverging run stops at the first non-finite loss or gradient, naming the step and the parameter" *
            DOUBLE_ONLY(kDoubleRangeReason)) {
    // Adam moves each weight by about lr per step, so lr = 1e300 makes the weights ~1e300 after
    // the first update and the second forward pass overflows: an honest divergence.
    ReverseTask task(4, 2, 3);
    std::unique_ptr<Model> model = test::model_for(task, tiny("additive"), 1);
    Model& m = *model;
    TrainOptions opt = test::train_options(5, 4, 1e300);
    opt.clip = 0;
    int64_t steps_seen = 0;
    int64_t live = Node::live_count();
    std::string msg;
    try {
      train(m, task, opt, [&](const Progress&) { ++steps_seen; });
    } catch (const Error& e) {
      msg = e.what();
    }
    INFO(msg);
    // The loss or a gradient, depending on how the compiler rounds (a fused multiply-add or not).
    CHECK(msg.rfind("train: step 2: ", 0) == 0);
    bool names_a_parameter = false;
    for (const auto& [name, p] : m.named_parameters())
      names_a_parameter |= msg.find(" " + name + " ") != std::string::npos || msg.find(" " + name + ";") != std::string::npos;
    CHECK(names_a_parameter);
    CHECK(msg.find("lower --lr (now 8e+299)") != std::string::npos);
    CHECK(steps_seen == 1);
    CHECK(Node::live_count() == live);  // the abandoned step's graph is freed
    for (const auto& [name, p] : m.named_parameters())
      for (real v : p.value().values()) REQUIRE(std::isfinite(v));  // stopped before a NaN update
  }

  TEST_CASE("non-finite guard: no checkpoint is written with a NaN, and the previous one stays") {
    TempDir dir;
    Generator gen(1);
    Seq2Seq m(tiny(), gen);
    std::string path = dir.file("m.safetensors");
    save_checkpoint(m, path);
    std::string before = slurp(path);
    m.named_parameters()[3].second.value()[1] = std::numeric_limits<real>::quiet_NaN();
    CHECK_THROWS_WITH_AS(save_checkpoint(m, path), doctest::Contains("holds nan at flat index 1; not saved"), Error);
    CHECK(slurp(path) == before);
    CHECK(dir.entries() == 1);
  }

  TEST_CASE("atomic save: interrupted between write and rename, the previous file is intact and no temporary is left") {
    TempDir dir;
    std::string path = dir.file("m.safetensors");
    write_safetensors(path, {{"w", Tensor({2}, {1, 2})}}, {{"v", "old"}});
    std::string before = slurp(path);
    std::string temp_seen;
    auto interrupt = [&](const std::string& temp) {
      temp_seen = temp;
      CHECK(std::filesystem::file_size(temp) > before.size());  // the new content is complete
      throw Error("interrupted");
    };
    CHECK_THROWS_WITH_AS(write_safetensors(path, {{"w", Tensor({3}, {4, 5, 6})}}, {{"v", "new"}}, interrupt),
                         doctest::Contains("interrupted"), Error);
    CHECK(std::filesystem::path(temp_seen).parent_path() == dir.path);  // same folder: rename is atomic
    CHECK(slurp(path) == before);
    CHECK(dir.entries() == 1);  // the temporary file is gone
  }

  TEST_CASE("atomic save: a process killed between write and rename leaves the previous file intact") {
    TempDir dir;
    std::string path = dir.file("m.safetensors");
    write_safetensors(path, {{"w", Tensor({2}, {1, 2})}}, {{"v", "old"}});
    std::string before = slurp(path);
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // no doctest in here: die the hard way, or leave with a distinct status
      try {
        write_safetensors(path, {{"w", Tensor({3}, {4, 5, 6})}}, {{"v", "new"}},
                          [](const std::string&) { std::raise(SIGKILL); });
      } catch (...) {
      }
      ::_exit(3);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
    CHECK(slurp(path) == before);
    CHECK(read_safetensors(path).metadata.at("v") == "old");
    // The dead process's temporary file stays (nobody was left to remove it), hidden and named
    // after its process; the next save is unaffected by it.
    CHECK(dir.entries() == 2);
    write_safetensors(path, {{"w", Tensor({1}, {7})}}, {{"v", "next"}});
    CHECK(read_safetensors(path).metadata.at("v") == "next");
  }

  TEST_CASE("check_writable: a missing folder or a folder as the file is refused, and nothing is left behind") {
    TempDir dir;
    CHECK_NOTHROW(check_writable(dir.file("m.safetensors")));
    CHECK(dir.entries() == 0);
    CHECK_THROWS_WITH_AS(check_writable(dir.file("missing/m.safetensors")), doctest::Contains("No such file or directory"),
                         Error);
    CHECK_THROWS_WITH_AS(check_writable(dir.path.string()), doctest::Contains("is a folder; give a file name"), Error);
  }

  TEST_CASE("leaks: graph nodes return to their count after training, graphs dropped mid-way and failed loads") {
    const int64_t start = Node::live_count();
    {
      TempDir dir;
      ReverseTask task(4, 2, 4);
      std::unique_ptr<Model> model = test::model_for(task, tiny("general", "lstm"), 1);
      Model& m = *model;
      const int64_t with_model = Node::live_count();
      train(m, task, test::train_options(3, 4));
      evaluate_held_out(m, task, 10, 1);
      CHECK(Node::live_count() == with_model);
      {
        Generator data(2);
        Var loss = m.loss(sample_batch(task, data, 3));  // built, never run backward
        CHECK(Node::live_count() > with_model);
      }
      CHECK(Node::live_count() == with_model);
      // Failed loads: a file of another architecture, a truncated one.
      Generator gen2(2);
      Seq2Seq plain(tiny("plain"), gen2);
      save_checkpoint(plain, dir.file("plain.safetensors"));
      const int64_t with_both = Node::live_count();
      CHECK_THROWS_AS(load_checkpoint(m, dir.file("plain.safetensors")), Error);
      std::string bytes = slurp(dir.file("plain.safetensors"));
      std::ofstream(dir.file("cut.safetensors"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
      CHECK_THROWS_AS(load_checkpoint(plain, dir.file("cut.safetensors")), Error);
      CHECK(Node::live_count() == with_both);
    }
    CHECK(Node::live_count() == start);
  }
}
