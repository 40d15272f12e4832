// heed trace --cache all equals PyTorch: reference/pytorch/heed_hooks.py reads the file heed wrote
// (its own safetensors reader), runs the loader's model (stock modules) with forward hooks on
// them, and every named activation -- embeddings, the residual stream, each head's q, k, v,
// pattern, z and result, the sublayers' outputs, the norms, the logits -- agrees to 1e-12 of the
// tensor's largest element, for the decoder-only model (attention-only, post-norm, pre-norm) and
// the Transformer (post-norm; pre-norm with learned positions). Runs when python3 imports torch
// (required under HEED_REQUIRE_TORCH, as CI sets), and says it was skipped otherwise.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "io/json.h"
#include "io/safetensors.h"
#include "tests/support/heed_cli.h"
#include "tests/support/precision.h"
#include "tests/support/tools.h"

using namespace heed;

TEST_SUITE("ch14_trace_torch") {
  TEST_CASE("every cached activation equals PyTorch's forward hooks to 1e-12: decoder-only and Transformer" *
            DOUBLE_ONLY(kPytorchFp64Reason)) {
    const std::string py = test::python_or_skip();
    if (py.empty()) return;
    Scratch s("trace-torch");
    struct Case {
      std::string train, tokens, source;
    };
    const std::string decoder = "train --model decoder --task repeat --vocab 8 --min-len 3 --max-len 6 --embed 8 "
                                "--heads 2 --batch 8 --steps 30 --eval-samples 2 ";
    const std::string transformer = "train --model transformer --embed 8 --ff 16 --heads 2 --min-len 2 --max-len 6 "
                                    "--batch 8 --steps 30 --eval-samples 2 ";
    const std::vector<Case> cases = {
        {decoder + "--attention-only --layers 2", "3 1 4 1 5 3 1 4", ""},
        {decoder + "--layers 2 --ff 16", "3 1 4 1 5 3", ""},
        {decoder + "--layers 1 --ff 16 --norm-first --positions learned", "2 7 1 6", ""},
        {transformer + "--layers 2", "4 1 3", "3 1 4"},
        {transformer + "--layers 1 --norm-first --positions learned", "5 1 4 1 3", "3 1 4 1 5"},
    };
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      CAPTURE(c.train);
      const std::string m = s.path("m" + std::to_string(i) + ".st"), out = s.path("c" + std::to_string(i) + ".st");
      REQUIRE(s.heed(c.train + " --save " + m).status == 0);
      const std::string source = c.source.empty() ? "" : " --source \"" + c.source + "\"";
      CliRun r = s.heed("trace --load " + m + " --tokens \"" + c.tokens + "\"" + source + " --cache all --out " + out);
      REQUIRE_MESSAGE(r.status == 0, r.err);
      const size_t names = read_safetensors(out).tensors.size();
      const std::string got = s.path("torch.out"), err = s.path("torch.err");
      const int status = std::system((py + " reference/pytorch/heed_hooks.py " + m + " --tokens \"" + c.tokens + "\"" +
                                      source + " --compare " + out + " >" + got + " 2>" + err).c_str());
      REQUIRE_MESSAGE(status == 0, slurp(err));
      const Json j = parse_json(slurp(got));
      CHECK(j.find("missing")->as_array().empty());
      CHECK(j.find("compared")->as_real() == static_cast<real>(names));
      real worst = 0;
      for (const auto& item : j.find("worst")->items()) {  // not a structured binding: CAPTURE (clang < 16)
        const std::string& name = item.first;
        CAPTURE(name);
        CHECK(item.second.as_real() <= 1e-12);
        worst = std::max(worst, item.second.as_real());
      }
      MESSAGE(c.train << ": " << names << " activations, largest relative difference " << worst);
    }
  }
}
