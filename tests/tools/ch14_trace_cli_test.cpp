// heed trace (tools/trace_cmd.cpp): each position's next-token log-probability and top K equal
// the model's own log_softmax, for every model kind; --names lists the hook points; --cache
// writes what the library caches; the refusals of docs/cli.md (one line, exit 2; outputs never
// replace inputs; write-protected files kept). PyTorch's reading of the file and its values are
// tests/models/ch14_trace_torch_test.cpp.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "io/safetensors.h"
#include "models/decoder_model.h"
#include "nn/checkpoint.h"
#include "tests/support/heed_cli.h"

using namespace heed;

namespace {

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

const std::string kDecoder = "train --model decoder --task repeat --vocab 8 --min-len 3 --max-len 6 --embed 8 --heads 2 "
                             "--layers 2 --ff 16 --batch 8 --steps 20 --eval-samples 2 --save ";

// The model saved in `path`, loaded as the library loads it.
std::unique_ptr<Model> load(const std::string& path) {
  Generator gen(0);
  std::unique_ptr<Model> model = make_model(ModelConfig::from_metadata(read_checkpoint_metadata(path)), gen);
  load_checkpoint(*model, path);
  return model;
}

}  // namespace

TEST_SUITE("ch14_trace") {
  TEST_CASE("heed trace --json: each position's log p(next) and top K are the model's log_softmax, for every model kind") {
    Scratch s("trace");
    struct Kind {
      std::string train, trace;
      Batch batch;  // what heed trace runs: <bos> tokens, and the source
    };
    // Symbol k of the built-in tasks is id k + 3.
    const std::vector<Kind> kinds = {
        {kDecoder + s.path("m0.st"), "--tokens \"3 1 4 1 5\"", make_batch({{{6, 4, 7, 4, 8}, {6, 4, 7, 4, 8}}})},
        {"train --model transformer --embed 8 --ff 16 --layers 1 --heads 2 --min-len 2 --max-len 6 --batch 8 --steps 10 "
         "--eval-samples 2 --save " + s.path("m1.st"),
         "--source \"3 1 4\" --tokens \"4 1 3\"", make_batch({{{6, 4, 7}, {7, 4, 6}}})},
        {"train --model general --cell lstm --embed 6 --hidden 8 --batch 8 --steps 10 --eval-samples 2 --save " +
             s.path("m2.st"),
         "--source \"3 1 4\" --tokens \"4 1 3\"", make_batch({{{6, 4, 7}, {7, 4, 6}}})},
    };
    for (size_t k = 0; k < kinds.size(); ++k) {
      CAPTURE(kinds[k].trace);
      REQUIRE(s.heed(kinds[k].train).status == 0);
      const std::string file = s.path("m" + std::to_string(k) + ".st");
      CliRun r = s.heed("trace --load " + file + " " + kinds[k].trace + " --top 3 --json");
      REQUIRE_MESSAGE(r.status == 0, r.err);
      const Json j = r.json();
      NoGradGuard no_grad;
      const Tensor logp = log_softmax(load(file)->forward(kinds[k].batch).value(), 2);  // (1, T, V)
      const Batch& b = kinds[k].batch;
      const int64_t V = logp.shape()[2];
      const Json::Array& positions = j.find("positions")->as_array();
      REQUIRE(static_cast<int64_t>(positions.size()) == b.tgt_len);
      real total = 0;
      for (int64_t t = 0; t < b.tgt_len; ++t) {
        const Json& p = positions[static_cast<size_t>(t)];
        const real want = logp[t * V + b.tgt_out[t]];
        CHECK(p.find("log_prob")->as_real() == want);  // the same run, the same bits
        total += want;
        const Json::Array& top = p.find("top")->as_array();
        REQUIRE(top.size() == 3);
        real best = 0;
        for (int64_t v = 0; v < V; ++v) best = v == 0 ? logp[t * V] : std::max(best, logp[t * V + v]);
        CHECK(top[0].find("log_prob")->as_real() == best);
        CHECK(top[0].find("log_prob")->as_real() >= top[1].find("log_prob")->as_real());
        CHECK(top[1].find("log_prob")->as_real() >= top[2].find("log_prob")->as_real());
      }
      CHECK(positions.back().find("next")->as_string() == "<eos>");
      CHECK(std::fabs(j.find("log_prob")->as_real() - total) <= 1e-12);
    }
  }

  TEST_CASE("heed trace on a model of a text: the text split by the model's own rule, no <eos> (a window goes on)") {
    Scratch s("trace-text");
    std::string text;
    for (int i = 0; i < 40; ++i) text += "the cat sat on the mat. ";
    std::ofstream(s.path("t.txt"), std::ios::binary) << text;
    REQUIRE(s.heed("train --model decoder --attention-only --embed 8 --heads 2 --batch 4 --steps 5 --chars --context 8 "
                   "--eval-samples 2 --data " + s.path("t.txt") + " --save " + s.path("m.st"))
                .status == 0);
    CliRun r = s.heed("trace --load " + s.path("m.st") + " --tokens \"the cat\" --top 2 --json");
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const Json j = r.json();
    const Json::Array& positions = j.find("positions")->as_array();
    // One position a character, as the model was trained: reads <bos> t h e ..., predicts t h e ... t.
    const std::vector<std::string> reads = {"<bos>", "t", "h", "e", "<space>", "c", "a"};
    const std::vector<std::string> next = {"t", "h", "e", "<space>", "c", "a", "t"};
    REQUIRE(positions.size() == reads.size());
    real total = 0;
    for (size_t t = 0; t < positions.size(); ++t) {
      CHECK(positions[t].find("reads")->as_string() == reads[t]);
      CHECK(positions[t].find("next")->as_string() == next[t]);
      const real lp = positions[t].find("log_prob")->as_real();
      CHECK(lp <= 0);
      CHECK(positions[t].find("top")->as_array()[0].find("log_prob")->as_real() >= lp);
      total += lp;
    }
    CHECK(std::fabs(j.find("log_prob")->as_real() - total) <= 1e-12);
    CliRun plain = s.heed("trace --load " + s.path("m.st") + " --tokens \"the cat\"");
    CHECK(contains(plain.out, "log p(tokens) = "));
  }

  TEST_CASE("heed trace --names lists every hook point; --cache writes the named ones, as the library caches them") {
    Scratch s("trace-cache");
    const std::string m = s.path("m.st"), out = s.path("cache.safetensors");
    REQUIRE(s.heed(kDecoder + m).status == 0);
    CliRun names = s.heed("trace --load " + m + " --tokens \"3 1 4\" --names");
    REQUIRE(names.status == 0);
    CHECK(names.out.find("blocks.1.attn.hook_pattern [1, 2, 4, 4]\n") != std::string::npos);
    CHECK(names.out.find("ln_final.hook_normalized [1, 4, 8]\n") != std::string::npos);
    CliRun r = s.heed("trace --load " + m + " --tokens \"3 1 4\" --cache blocks.0.hook_resid_post,blocks.1.attn.hook_z --out " + out);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const SafetensorsFile f = read_safetensors(out);
    REQUIRE(f.tensors.size() == 2);
    CHECK(f.tensors[0].name == "blocks.0.hook_resid_post");
    CHECK(f.tensors[1].name == "blocks.1.attn.hook_z");
    Hooks hooks;
    hooks.cache_all();
    NoGradGuard no_grad;
    load(m)->run_with_hooks(make_batch({{{6, 4, 7}, {6, 4, 7}}}), hooks);
    for (const NamedTensor& t : f.tensors) {
      CAPTURE(t.name);
      const Tensor& want = hooks[t.name];
      REQUIRE(t.value.shape() == want.shape());
      for (int64_t i = 0; i < want.numel(); ++i) CHECK(t.value[i] == want[i]);
    }
  }

  TEST_CASE("heed trace refuses in one line, exit 2: no input replaced, no write-protected file written") {
    Scratch s("trace-refusals");
    const std::string m = s.path("m.st"), t = s.path("t.st"), kept = s.path("kept.safetensors");
    REQUIRE(s.heed(kDecoder + m).status == 0);
    REQUIRE(s.heed("train --model transformer --embed 8 --ff 16 --layers 1 --heads 2 --batch 8 --steps 2 "
                   "--eval-samples 2 --save " + t).status == 0);
    REQUIRE(s.heed("trace --load " + m + " --tokens \"3\" --cache logits --out " + kept).status == 0);
    REQUIRE(chmod(kept.c_str(), 0444) == 0);
    const std::string before = slurp(m), kept_before = slurp(kept);
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"trace --tokens \"3 1\"", "--load FILE is required"},
        {"trace --load " + m, "--tokens \"TOKENS\" is required"},
        {"trace --load " + m + " --tokens \"3 1\" --cache logits --out " + m, "are the same file"},
        {"trace --load " + m + " --tokens \"3 1\" --cache logits --out " + kept, "write-protected"},
        {"trace --load " + m + " --tokens \"3 1\" --cache logits", "--cache NAMES and --out FILE go together"},
        {"trace --load " + m + " --tokens \"3 1\" --cache blocks.7.hook_z --out " + s.path("x.st"),
         "this model has no activation 'blocks.7.hook_z'"},
        {"trace --load " + m + " --tokens \"3 x\"", "--tokens: "},
        {"trace --load " + m + " --tokens \"\"", "--tokens needs a value"},
        {"trace --load " + m + " --tokens \"3 <eos>\"", "special token"},
        {"trace --load " + m + " --tokens \"3 1\" --source \"3\"", "reads no source"},
        {"trace --load " + t + " --tokens \"3 1\"", "give --source"},
        {"trace --load " + m + " --tokens \"3 1\" --top 0", "--top"},
    };
    for (const auto& item : bad) {  // not a structured binding: INFO captures it (clang < 16)
      const std::string& args = item.first;
      const std::string& words = item.second;
      CliRun r = s.heed(args);
      INFO("heed " << args << " -> " << r.status << ": " << r.err);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(r.err.find(words) != std::string::npos);
    }
    CHECK(slurp(m) == before);
    CHECK(slurp(kept) == kept_before);
    CHECK(!std::filesystem::exists(s.path("x.st")));
    CHECK(s.heed("trace --load " + m + " --tokens \"3 1\" --cache logits --out " + kept + " --force").status == 0);
    CHECK(slurp(kept) != kept_before);
  }
}
