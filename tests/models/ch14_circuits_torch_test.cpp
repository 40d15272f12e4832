// Every head score of heed eval --heads equals a PyTorch computation on the same checkpoint to
// 1e-12: reference/pytorch/circuit_scores.py loads the file into stock modules (heed_checkpoint.py)
// and computes copying from the full V x V OV circuit with torch.linalg.eigvals (heed solves the
// small d_head x d_head matrix with its own solver), the Q/K/V composition scores, and, on rows
// both programs read, direct logit attribution, the previous-token and prefix-matching scores.
// Attention-only layers (sinusoidal, and tied embeddings with learned positions), pre-norm layers,
// and post-norm ones (no direct logit attribution). Runs where python3 imports torch; CI requires it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "models/analysis/circuits.h"
#include "models/analysis/heads.h"
#include "nn/checkpoint.h"
#include "tests/support/heed_cli.h"
#include "tests/support/precision.h"
#include "tests/support/tools.h"

using namespace heed;

namespace {

real worst = 0;  // the largest difference seen, for the closing message

void check_close(real heed_value, real torch_value, const std::string& what) {
  INFO(what << ": heed " << heed_value << ", PyTorch " << torch_value);
  const real d = std::fabs(heed_value - torch_value);
  CHECK(d <= 1e-12 * std::max<real>(1, std::fabs(torch_value)));
  worst = std::max(worst, d);
}

}  // namespace

TEST_SUITE("ch14_circuits_torch") {
  TEST_CASE("PyTorch: copying, composition, direct logit attribution, previous-token and prefix matching equal heed's to 1e-12" *
            DOUBLE_ONLY(kPytorchFp64Reason)) {
    const std::string py = test::python_or_skip();
    if (py.empty()) return;
    Scratch s("circuits-torch");
    const std::string run = "train --model decoder --task repeat --vocab 8 --min-len 2 --max-len 5 --embed 8 --heads 2 "
                            "--layers 2 --batch 8 --steps 60 --eval-samples 2 --save ";
    const std::vector<std::string> flags = {"--attention-only", "--attention-only --share-embeddings --positions learned",
                                            "--ff 16 --norm-first --positions learned", "--ff 16"};
    std::string args;
    std::vector<Json> cli;
    for (size_t i = 0; i < flags.size(); ++i) {
      const std::string f = s.path("d" + std::to_string(i) + ".st");
      CliRun t = s.heed(run + f + " " + flags[i]);
      REQUIRE_MESSAGE(t.status == 0, flags[i] << ": " << t.err);
      CliRun e = s.heed("eval --load " + f + " --heads --samples 20 --json");
      REQUIRE_MESSAGE(e.status == 0, e.err);
      cli.push_back(e.json());
      args += " " + f;
    }
    // Two repeat rows, BOS s s (symbol k is id k + 3): segments of 4 and 2 symbols.
    const std::vector<std::vector<int64_t>> segments = {{6, 4, 7, 5}, {5, 8}};
    std::string rows;
    std::vector<Example> examples;
    for (const auto& seg : segments) {
      std::vector<int64_t> tgt = seg;
      tgt.insert(tgt.end(), seg.begin(), seg.end());
      examples.push_back({seg, tgt});
      rows += std::string(rows.empty() ? "" : "|") + "1";
      for (int64_t id : tgt) rows += " " + std::to_string(id);
    }
    const std::string out = s.path("torch.out"), err = s.path("torch.err");
    REQUIRE_MESSAGE(std::system((py + " reference/pytorch/circuit_scores.py" + args + " --rows \"" + rows + "\" >" + out +
                                 " 2>" + err).c_str()) == 0,
                    slurp(err));
    std::istringstream lines(slurp(out));  // one JSON line per checkpoint
    int compared = 0;
    for (size_t i = 0; i < flags.size(); ++i) {
      CAPTURE(flags[i]);
      std::string line;
      REQUIRE(std::getline(lines, line));
      const Json torch_json = parse_json(line);
      // Copying and composition as heed eval --heads --json prints them.
      const Json::Array& heads = cli[i].find("heads")->as_array();
      const Json::Array& copying = torch_json.find("copying")->as_array();
      REQUIRE(heads.size() == copying.size());
      for (size_t h = 0; h < heads.size(); ++h, ++compared)
        check_close(heads[h].find("copying")->as_real(), copying[h].as_real(), "copying of head " + std::to_string(h));
      const Json::Array& comp = cli[i].find("composition")->as_array();
      const Json::Array& tcomp = torch_json.find("composition")->as_array();
      REQUIRE(comp.size() == 4);
      REQUIRE(comp.size() == tcomp.size());
      for (size_t k = 0; k < comp.size(); ++k)
        for (const char* key : {"layer1", "head1", "layer2", "head2"})
          CHECK(comp[k].find(key)->as_int() == tcomp[k].find(key)->as_int());
      for (size_t k = 0; k < comp.size(); ++k)
        for (const char* key : {"q", "k", "v"}) {
          ++compared;
          check_close(comp[k].find(key)->as_real(), tcomp[k].find(key)->as_real(), std::string(key) + "-composition");
        }
      // The scores of a forward pass, on the rows both programs read.
      Generator gen(0);
      const std::string path = s.path("d" + std::to_string(i) + ".st");
      std::unique_ptr<Model> any = make_model(ModelConfig::from_metadata(read_checkpoint_metadata(path)), gen);
      load_checkpoint(*any, path);
      const auto& model = dynamic_cast<const DecoderModel&>(*any);
      const Batch bt = make_batch(examples);
      std::vector<Var> weights;
      model.hidden(bt.tgt_in, bt.batch, bt.tgt_len, bt.tgt_lengths, &weights);
      const Json::Array& prev = torch_json.find("previous_token")->as_array();
      const Json::Array& prefix = torch_json.find("prefix_matching")->as_array();
      for (int64_t l = 0; l < 2; ++l)
        for (int64_t h = 0; h < 2; ++h, compared += 2) {
          const ScoreSums sc = score_head(weights[static_cast<size_t>(l)].value(), h, {4, 2});
          const size_t k = static_cast<size_t>(l * 2 + h);
          check_close(sc.previous_token / static_cast<real>(sc.previous_terms), prev[k].as_real(), "previous token");
          check_close(sc.induction / static_cast<real>(sc.induction_terms), prefix[k].as_real(), "prefix matching");
        }
      const Json* dla = torch_json.find("dla");
      if (i == 3) {  // post-norm: no direct path, in either program
        CHECK(!dla);
        CHECK(heads[0].find("direct_logit")->is_null());
        continue;
      }
      REQUIRE(dla);
      const std::vector<real> got = direct_logit_attribution(model, bt.tgt_in, bt.tgt_out, bt.batch, bt.tgt_len,
                                                             bt.tgt_lengths);
      REQUIRE(got.size() == dla->as_array().size());
      for (size_t k = 0; k < got.size(); ++k, ++compared)
        check_close(got[k], dla->as_array()[k].as_real(), "direct logit attribution of head " + std::to_string(k));
    }
    MESSAGE("heed and PyTorch agree on " << compared << " head scores of " << flags.size() << " checkpoints; largest difference "
                                         << worst);
  }
}
