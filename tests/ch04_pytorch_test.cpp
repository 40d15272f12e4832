// Continue in PyTorch: reference/pytorch/heed_checkpoint.py builds each model kind (the seven
// recurrent ones and the Transformer) from stock modules, loads a heed checkpoint with
// load_state_dict(strict=True), with or without the run's training state, and decodes greedily;
// its tokens, attention and log-probability must equal `heed predict --json`'s to 1e-12 (both in
// float64). A file it cannot run, an unknown model or word is one clear line, not a traceback.
// Runs when python3 can import torch (Debian's python3-torch; .ci/run installs it), and says it
// was skipped otherwise: `make test` never needs torch.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "models/decoder_model.h"
#include "nn/checkpoint.h"
#include "tests/heed_cli.h"
#include "tests/precision.h"
#include "tests/tools.h"

using namespace heed;
using heed::test::python_or_skip;

namespace {

struct Config {
  std::string flags, source;
};

}  // namespace

TEST_SUITE("ch04_pytorch") {
  TEST_CASE("PyTorch: stock modules load every heed checkpoint strictly and decode the same to 1e-12" * DOUBLE_ONLY(kPytorchFp64Reason)) {
    const std::string py = python_or_skip();
    if (py.empty()) return;
    Scratch s("pytorch");
    const std::string toy = " --min-len 2 --max-len 6 --embed 6 --hidden 8 --batch 8 --steps 40 --eval-samples 2";
    std::vector<Config> configs;
    for (const char* model : {"plain", "additive", "general", "dot", "scaled", "cosine", "location"})
      for (const char* cell : {"gru", "lstm", "rnn"})
        configs.push_back({std::string("--model ") + model + " --cell " + cell + toy, "3 1 4 1 5"});
    for (const char* model : {"plain", "additive", "general", "location"})
      for (const char* cell : {"gru", "lstm"})
        configs.push_back({std::string("--model ") + model + " --cell " + cell + " --bidirectional" + toy, "2 7 1 8"});
    for (const char* cell : {"gru", "lstm"})  // input feeding: the cell also reads h~_{t-1}
      configs.push_back({std::string("--model general --input-feeding --cell ") + cell + toy, "3 1 4 1 5"});
    const std::string sentence = "ich habe keinen hunger , weil ich ein brot gegessen habe .";
    configs.push_back({"--task translate --model additive --embed 8 --hidden 8 --batch 8 --steps 20 --eval-samples 2", sentence});
    // The Transformer: saved with the run's training state (Adam's moments, the step), which the
    // loader leaves out, and with --weights-only; post-norm and sinusoidal, pre-norm and learned.
    configs.push_back({"--task translate --model transformer --embed 16 --batch 8 --steps 30 --eval-samples 2", sentence});
    configs.push_back({"--model transformer --embed 8 --ff 16 --layers 1 --heads 2 --norm-first --positions learned"
                       " --weights-only --min-len 2 --max-len 6 --batch 8 --steps 40 --eval-samples 2", "3 1 4 1 5"});
    // Shared embeddings: the file holds the tied table once, as tgt_embed.weight; the loader ties
    // out.weight to it as the module does.
    configs.push_back({"--model transformer --share-embeddings --embed 8 --ff 16 --layers 1 --heads 2"
                       " --min-len 2 --max-len 6 --batch 8 --steps 40 --eval-samples 2", "2 7 1 8"});
    configs.push_back({"--model general --cell gru --weights-only" + toy, "2 7 1 8"});

    std::vector<Json> expected;
    for (size_t i = 0; i < configs.size(); ++i) {
      const std::string f = s.path("m" + std::to_string(i) + ".st");
      CliRun t = s.heed("train " + configs[i].flags + " --save " + f);
      REQUIRE_MESSAGE(t.status == 0, configs[i].flags << ": " << t.err);
      CliRun p = s.heed("predict --load " + f + " --json \"" + configs[i].source + "\"");
      REQUIRE(p.status == 0);
      expected.push_back(p.json());
    }
    // One interpreter per source, each loading several checkpoints: importing torch takes seconds.
    std::vector<std::string> lines(configs.size());
    for (const std::string& source : {std::string("3 1 4 1 5"), std::string("2 7 1 8"), sentence}) {
      std::string args;
      std::vector<size_t> which;
      for (size_t i = 0; i < configs.size(); ++i)
        if (configs[i].source == source) {
          args += " " + s.path("m" + std::to_string(i) + ".st");
          which.push_back(i);
        }
      const std::string out = s.path("torch.out"), err = s.path("torch.err");
      int status = std::system((py + " reference/pytorch/heed_checkpoint.py" + args + " --source \"" + source + "\" >" +
                                out + " 2>" + err).c_str());
      REQUIRE_MESSAGE(status == 0, slurp(err));
      std::string text = slurp(out);
      size_t at = 0;
      for (size_t i : which) {
        size_t nl = text.find('\n', at);
        REQUIRE(nl != std::string::npos);
        lines[i] = text.substr(at, nl - at);
        at = nl + 1;
      }
    }
    real worst = 0;
    for (size_t i = 0; i < configs.size(); ++i) {
      CAPTURE(configs[i].flags);
      Json torch_json = parse_json(lines[i]);
      const Json& want = expected[i];
      CHECK(*torch_json.find("source") == *want.find("source"));
      CHECK(*torch_json.find("output") == *want.find("output"));  // the same tokens, the file's words
      real dlp = std::abs(torch_json.find("log_prob")->as_real() - want.find("log_prob")->as_real());
      CHECK(dlp <= 1e-12);
      worst = std::max(worst, dlp);
      const Json::Array &ta = torch_json.find("attention")->as_array(), &wa = want.find("attention")->as_array();
      REQUIRE(ta.size() == wa.size());
      for (size_t r = 0; r < ta.size(); ++r) {
        REQUIRE(ta[r].size() == wa[r].size());
        for (size_t c = 0; c < ta[r].size(); ++c) {
          real d = std::abs(ta[r].as_array()[c].as_real() - wa[r].as_array()[c].as_real());
          CHECK(d <= 1e-12);
          worst = std::max(worst, d);
        }
      }
    }
    MESSAGE("PyTorch and heed agree on " << configs.size() << " checkpoints; largest difference " << worst);
  }

  // A decoder-only checkpoint (chapter 14's model) has no source: the loader scores the words as
  // the start of a sequence (each word's loss given the words before it) and continues it
  // greedily; heed computes the same from the same file, the continuation on its per-layer cache.
  TEST_CASE("PyTorch: a decoder-only checkpoint loads strictly; its word losses and continuation equal heed's to 1e-12" * DOUBLE_ONLY(kPytorchFp64Reason)) {
    const std::string py = python_or_skip();
    if (py.empty()) return;
    Scratch s("pytorch-decoder");
    const std::string run = "train --model decoder --task repeat --vocab 8 --min-len 3 --max-len 6 --embed 8 --heads 2 "
                            "--batch 8 --steps 40 --eval-samples 2 --save ";
    const std::vector<std::string> flags = {"--attention-only --layers 2", "--layers 1 --ff 16 --norm-first --positions learned --weights-only",
                                            "--attention-only --layers 1 --share-embeddings"};
    const std::string source = "3 1 4 1 5 3 1 4";
    std::string args;
    for (size_t i = 0; i < flags.size(); ++i) {
      CliRun t = s.heed(run + s.path("d" + std::to_string(i) + ".st") + " " + flags[i]);
      REQUIRE_MESSAGE(t.status == 0, flags[i] << ": " << t.err);
      args += " " + s.path("d" + std::to_string(i) + ".st");
    }
    const std::string out = s.path("torch.out"), err = s.path("torch.err");
    REQUIRE_MESSAGE(std::system((py + " reference/pytorch/heed_checkpoint.py" + args + " --source \"" + source + "\" >" +
                                 out + " 2>" + err).c_str()) == 0,
                    slurp(err));
    const std::string text = slurp(out);
    size_t at = 0;
    for (size_t i = 0; i < flags.size(); ++i) {
      CAPTURE(flags[i]);
      const size_t nl = text.find('\n', at);
      REQUIRE(nl != std::string::npos);
      const Json torch_json = parse_json(text.substr(at, nl - at));
      at = nl + 1;
      // heed: the same file, the words' ids in its vocabulary (symbol k is id k + 3).
      const std::string path = s.path("d" + std::to_string(i) + ".st");
      Generator gen(0);
      const std::map<std::string, std::string> meta = read_checkpoint_metadata(path);
      std::unique_ptr<Model> model = make_model(ModelConfig::from_metadata(meta), gen);
      std::vector<std::string> vocab;  // the file's words by id, as the loader reads them
      for (size_t from = 0, to = 0; to != std::string::npos; from = to + 1) {
        to = meta.at("tgt_tokens").find(' ', from);
        vocab.push_back(meta.at("tgt_tokens").substr(from, to == std::string::npos ? std::string::npos : to - from));
      }
      load_checkpoint(*model, path);
      const std::vector<int64_t> ids = {6, 4, 7, 4, 8, 6, 4, 7};
      Tensor logp = log_softmax(model->forward(make_batch({{ids, ids}})).value(), 2);  // (1, 2n + 1, V)
      const int64_t V = logp.shape()[2];
      const Json::Array& nll = torch_json.find("nll")->as_array();
      REQUIRE(nll.size() == ids.size());
      for (size_t t = 0; t < ids.size(); ++t)
        CHECK(std::fabs(nll[t].as_real() + logp[static_cast<int64_t>(t) * V + ids[t]]) <= 1e-12);
      // The greedy continuation, step by step on the cache after <bos> and the words.
      std::unique_ptr<StepState> st = model->start_decoding(make_batch({{ids, ids}}));
      std::vector<int64_t> feed = {Vocab::kBos};
      feed.insert(feed.end(), ids.begin(), ids.end());
      Tensor last;
      for (int64_t id : feed) last = log_softmax(model->logits(model->decode_step({id}, *st).out).value(), 1);
      std::vector<std::string> words;
      real log_prob = 0;
      for (size_t k = 0; k < ids.size() + 10; ++k) {
        const int64_t best = static_cast<int64_t>(argmax(last, 1)[0]);
        log_prob += last[best];
        words.push_back(vocab.at(static_cast<size_t>(best)));
        if (best == Vocab::kEos) break;
        last = log_softmax(model->logits(model->decode_step({best}, *st).out).value(), 1);
      }
      const Json::Array& output = torch_json.find("output")->as_array();
      REQUIRE(output.size() == words.size());
      for (size_t k = 0; k < words.size(); ++k) CHECK(output[k].as_string() == words[k]);
      CHECK(std::fabs(torch_json.find("log_prob")->as_real() - log_prob) <= 1e-12);
    }
  }

  TEST_CASE("PyTorch: importing the loader changes nothing global; bad input is one clear line, not a traceback" * DOUBLE_ONLY(kPytorchFp64Reason)) {
    const std::string py = python_or_skip();
    if (py.empty()) return;
    Scratch s("pytorch-errors");
    const std::string good = s.path("m.st");
    REQUIRE(s.heed("train --model additive --embed 6 --hidden 8 --batch 8 --steps 5 --eval-samples 2 --save " + good).status == 0);

    // Importing the library leaves torch's default dtype as it was (float32 in a fresh torch).
    const std::string out = s.path("py.out"), err = s.path("py.err");
    const std::string import = "import sys, torch; sys.path.insert(0, 'reference/pytorch'); before = torch.get_default_dtype(); "
                               "import heed_checkpoint; print(before, torch.get_default_dtype())";
    REQUIRE(std::system((py + " -c \"" + import + "\" >" + out + " 2>" + err).c_str()) == 0);
    CHECK(slurp(out) == "torch.float32 torch.float32\n");

    // A file that is not a checkpoint, one cut short, a model the loader does not know, a word
    // outside the vocabulary, a file that is not there: exit status 1 and one line naming the problem.
    std::ofstream(s.path("words.txt")) << "not a checkpoint\n";
    const std::string bytes = slurp(good);
    std::ofstream(s.path("short.st"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    std::string renamed = bytes;
    const std::string model = "\"model\":\"additive\"", other = "\"model\":\"additivX\"";  // the same length
    const size_t at = renamed.find(model);
    REQUIRE(at != std::string::npos);
    renamed.replace(at, model.size(), other);  // the header's length is unchanged: still a valid file
    std::ofstream(s.path("unknown.st"), std::ios::binary) << renamed;
    struct Bad {
      std::string file, source, says;
    };
    const std::vector<Bad> cases = {
        {s.path("words.txt"), "3 1 4", "not a safetensors file: the header length at offset 0 says"},
        {s.path("short.st"), "3 1 4", "do not hold shape"},
        {s.path("unknown.st"), "3 1 4", "unknown model 'additivX'"},
        {good, "3 1 x 4", "the source word 'x' is not in its source vocabulary"},
        {s.path("absent.st"), "3 1 4", "cannot read it"},
    };
    for (const Bad& b : cases) {
      CAPTURE(b.file);
      int status = std::system((py + " reference/pytorch/heed_checkpoint.py " + b.file + " --source \"" + b.source + "\" >" + out +
                                " 2>" + err).c_str());
      const std::string said = slurp(err);
      CHECK(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 1);
      CHECK(said.find("heed_checkpoint: " + b.file + ": ") == 0);
      CHECK(said.find(b.says) != std::string::npos);
      CHECK(said.find("Traceback") == std::string::npos);
      CHECK(count_lines(said) == 1);
      CHECK(slurp(out).empty());
    }
  }
}  // TEST_SUITE
