// heed predict --attention/--layer/--head on a Transformer, run as a user runs it (build/heed, from
// the repository root): the matrix drawn is the one the model computes for that layer and head,
// read here from the model itself (loaded from the same file, its maps taken by TransformerCore's
// own teacher-forced pass); every row sums to 1; --head all draws layers x heads panels; the
// default is the last layer's mean over heads; bad values are refused naming flag, value, range.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/json.h"
#include "models/config.h"
#include "models/tasks/tasks.h"
#include "models/transformer.h"
#include "nn/checkpoint.h"
#include "tests/support/attention_matrix.h"
#include "tests/support/heed_cli.h"
#include "tests/support/precision.h"
#include "tests/support/xml_check.h"
#include "viz/svg.h"

using namespace heed;
using heed::test::tol;

using heed::test::Matrix;
using heed::test::matrix;
using heed::test::max_diff;

namespace {

// Head k of a (1, h, R, C) map.
Matrix head_of(const Tensor& w, int64_t k) {
  const int64_t R = w.shape()[2], C = w.shape()[3];
  Matrix m(static_cast<size_t>(R), std::vector<real>(static_cast<size_t>(C)));
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) m[r][c] = w[(k * R + r) * C + c];
  return m;
}

real worst_row_sum_error(const Matrix& m) {
  real worst = 0;
  for (const auto& row : m) {
    real sum = 0;
    for (real w : row) sum += w;
    worst = std::max(worst, std::abs(sum - 1));
  }
  return worst;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + 1)) ++n;
  return n;
}

const char* const kSource = "3 1 4 1 5";

// A small Transformer of 2 layers of 4 heads, trained a little on reverse, saved in s's folder.
std::string train_transformer(const Scratch& s) {
  const std::string file = s.path("t.safetensors");
  CliRun t = s.heed("train --task reverse --model transformer --min-len 3 --max-len 5 --embed 16 --heads 4 --ff 32 "
                    "--layers 2 --batch 8 --steps 40 --eval-samples 10 --save " + file);
  INFO(t.err);
  REQUIRE(t.status == 0);
  return file;
}

// The file's model, and its attention maps for kSource and the output heed predict wrote, from
// the encoder and decoder directly (make_batch: BOS y_1 .. y_L in, y_1 .. y_L EOS out).
struct Reference {
  TransformerAttentionMaps maps;
  int64_t S = 0, T = 0;
};
Reference reference(const std::string& file, const Json& predicted) {
  ModelConfig c = ModelConfig::from_metadata(read_checkpoint_metadata(file));
  Generator gen(0);
  TransformerSeq2Seq model(c, gen);
  load_checkpoint(model, file);
  auto task = make_task("reverse", c.src_vocab - Vocab::kNumSpecials, 3, 5);
  std::vector<int64_t> src = task->src_vocab().encode(kSource), tgt;
  const auto& words = predicted.find("output")->as_array();
  REQUIRE(words.back().as_string() == "<eos>");  // the test's reading: the output ended
  for (size_t i = 0; i + 1 < words.size(); ++i) tgt.push_back(task->tgt_vocab().encode(words[i].as_string()).at(0));
  Batch b = make_batch({Example{src, tgt}});
  Reference r;
  NoGradGuard no_grad;
  model.core().decode(model.tgt_embed(), b, model.core().encode(model.src_embed(), b, &r.maps), &r.maps);
  r.S = static_cast<int64_t>(src.size());
  r.T = static_cast<int64_t>(words.size());
  return r;
}

}  // namespace

TEST_SUITE("ch13_transformer_heads") {
  TEST_CASE("heed predict --layer L --head K draws that layer's and head's weights, each row summing to 1") {
    Scratch s("heads");
    const std::string file = train_transformer(s);
    CliRun one = s.heed("predict --load " + file + " --layer 1 --head 3 --json \"" + kSource + "\"");
    INFO(one.err);
    REQUIRE(one.status == 0);
    CHECK(one.out.find("cross-attention, layer 1 (of 0-1), head 3 (of 0-3)") != std::string::npos);
    Json j = one.json();
    CHECK(j.find("kind")->as_string() == "cross");
    CHECK(j.find("layer")->as_int() == 1);
    CHECK(j.find("head")->as_int() == 3);
    Reference ref = reference(file, j);
    Matrix drawn = matrix(*j.find("attention"));
    CHECK(drawn.size() == static_cast<size_t>(ref.T));
    CHECK(max_diff(drawn, head_of(ref.maps.cross[1], 3)) <= tol(1e-12));
    CHECK(worst_row_sum_error(drawn) <= tol(1e-12));
    // And it is that head, not another: every other head of either layer differs from it.
    for (int64_t l = 0; l < 2; ++l)
      for (int64_t k = 0; k < 4; ++k)
        if (l != 1 || k != 3) CHECK(max_diff(drawn, head_of(ref.maps.cross[l], k)) > 1e-3);

    // Layer 0, head 0 is layer 0's.
    CliRun first = s.heed("predict --load " + file + " --layer 0 --head 0 --json \"" + kSource + "\"");
    REQUIRE(first.status == 0);
    CHECK(max_diff(matrix(*first.json().find("attention")), head_of(ref.maps.cross[0], 0)) <= tol(1e-12));

    // --attention encoder: source x source; decoder: output x (<bos> y_1 ..), nothing above the diagonal.
    CliRun enc = s.heed("predict --load " + file + " --attention encoder --layer 0 --head 2 --json \"" + kSource + "\"");
    CliRun dec = s.heed("predict --load " + file + " --attention decoder --layer 1 --head 1 --json \"" + kSource + "\"");
    INFO(enc.err << dec.err);
    REQUIRE(enc.status == 0);
    REQUIRE(dec.status == 0);
    Matrix e = matrix(*enc.json().find("attention")), d = matrix(*dec.json().find("attention"));
    CHECK(e.size() == static_cast<size_t>(ref.S));
    CHECK(max_diff(e, head_of(ref.maps.encoder[0], 2)) <= tol(1e-12));
    CHECK(max_diff(d, head_of(ref.maps.self[1], 1)) <= tol(1e-12));
    CHECK(worst_row_sum_error(e) <= tol(1e-12));
    CHECK(worst_row_sum_error(d) <= tol(1e-12));
    for (size_t r = 0; r < d.size(); ++r)
      for (size_t c = r + 1; c < d[r].size(); ++c) CHECK(d[r][c] == 0);
    CHECK(dec.out.find("<bos>") != std::string::npos);  // the decoder's first input labels a column
  }

  TEST_CASE("heed predict: the default is the last layer's cross-attention averaged over heads, as decoded") {
    Scratch s("heads-default");
    const std::string file = train_transformer(s);
    CliRun plain = s.heed("predict --load " + file + " --json \"" + kSource + "\"");
    CliRun mean = s.heed("predict --load " + file + " --layer 1 --json \"" + kSource + "\"");
    INFO(plain.err << mean.err);
    REQUIRE(plain.status == 0);
    REQUIRE(mean.status == 0);
    // Without the flags nothing is added: the output of before.
    CHECK(plain.out.find("teacher-forced") == std::string::npos);
    CHECK(plain.json().find("layer") == nullptr);
    CHECK(mean.out.find("cross-attention, layer 1 (of 0-1), mean of heads 0-3") != std::string::npos);
    CHECK(mean.json().find("head")->as_string() == "mean");
    // The stepwise decoder's weights and the teacher-forced pass's are the same numbers up to rounding.
    CHECK(max_diff(matrix(*plain.json().find("attention")), matrix(*mean.json().find("attention"))) <= tol(1e-12));
  }

  TEST_CASE("heed predict --head all: a matrix per layer and head, and an SVG grid of layers x heads panels") {
    Scratch s("heads-grid");
    const std::string file = train_transformer(s);
    const std::string svg = s.path("grid.svg");
    CliRun all = s.heed("predict --load " + file + " --head all --svg " + svg + " --json \"" + kSource + "\"");
    INFO(all.err);
    REQUIRE(all.status == 0);
    Json j = all.json();
    Reference ref = reference(file, j);
    const auto& layers = j.find("heads")->as_array();
    REQUIRE(layers.size() == 2);
    for (size_t l = 0; l < 2; ++l) {
      REQUIRE(layers[l].as_array().size() == 4);
      for (size_t k = 0; k < 4; ++k) {
        Matrix m = matrix(layers[l].as_array()[k]);
        CHECK(max_diff(m, head_of(ref.maps.cross[l], static_cast<int64_t>(k))) <= tol(1e-12));
        CHECK(worst_row_sum_error(m) <= tol(1e-12));
        CHECK(all.out.find("layer " + std::to_string(l) + ", head " + std::to_string(k) + "\n") != std::string::npos);
      }
    }
    const std::string picture = slurp(svg);
    std::string why;
    CHECK_MESSAGE(xml_well_formed(picture, &why), why);
    CHECK(count(picture, "class=\"heed-heatmap\"") == 8);  // 2 layers x 4 heads
    CHECK(count(picture, "<rect class=\"cell\"") == 8 * static_cast<size_t>(ref.S * ref.T));
    CHECK(picture.find(">layer 1, head 3</text>") != std::string::npos);
    CHECK(picture.find("every layer (0-1) and head (0-3)") != std::string::npos);

    // With --layer, one row: that layer's heads.
    CliRun row = s.heed("predict --load " + file + " --layer 0 --head all --svg " + svg + " --json \"" + kSource + "\"");
    REQUIRE(row.status == 0);
    CHECK(row.json().find("heads")->as_array().size() == 1);
    CHECK(count(slurp(svg), "class=\"heed-heatmap\"") == 4);
  }

  TEST_CASE("heed predict --attention/--layer/--head: bad values are refused naming the flag, the value and the range") {
    Scratch s("heads-errors");
    const std::string file = train_transformer(s);
    auto refused = [&](const std::string& flags, const std::string& message) {
      CliRun r = s.heed("predict --load " + file + " " + flags + " \"" + kSource + "\"");
      INFO(flags << ": " << r.err);
      CHECK(r.status == 2);
      CHECK(r.err.find(message) != std::string::npos);
      CHECK(r.out.empty());
    };
    refused("--layer 2", "--layer 2: this model has 2 decoder layers, numbered 0 to 1");
    refused("--attention encoder --layer 7", "--layer 7: this model has 2 encoder layers, numbered 0 to 1");
    refused("--layer -1", "--layer -1: this model has 2 decoder layers, numbered 0 to 1");
    refused("--head 4", "--head 4: this model has 4 heads in each layer, numbered 0 to 3 (or all)");
    refused("--head first", "--head first: this model has 4 heads in each layer, numbered 0 to 3 (or all)");
    refused("--attention self", "--attention: 'self' is not one of cross, encoder, decoder");
    refused("--head all --html " + s.path("x.html"), "--html shows one matrix");
    CliRun t = s.heed("train --task reverse --model additive --min-len 3 --max-len 5 --embed 8 --hidden 12 --batch 8 "
                      "--steps 5 --eval-samples 10 --save " + s.path("a.safetensors"));
    REQUIRE(t.status == 0);
    CliRun r = s.heed("predict --load " + s.path("a.safetensors") + " --head 1 \"" + kSource + "\"");
    CHECK(r.status == 2);
    CHECK(r.err.find("--head 1: the additive model attends once per output step") != std::string::npos);
  }

  TEST_CASE("heed train --film on a Transformer says which layer and heads its frames draw") {
    Scratch s("heads-film");
    const std::string film = s.path("f.html");
    CliRun t = s.heed("train --task reverse --model transformer --min-len 3 --max-len 5 --embed 16 --heads 4 --ff 32 "
                      "--layers 2 --batch 8 --steps 4 --eval-samples 4 --watch-every 2 --film " + film);
    INFO(t.err);
    REQUIRE(t.status == 0);
    CHECK(slurp(film).find("transformer cross-attention (layer 1, the last: mean of 4 heads) learning reverse") !=
          std::string::npos);
  }

  TEST_CASE("svg_heatmap_grid: refuses no panels, an empty row and a panel that does not fit, naming it") {
    const std::vector<std::string> src = {"a", "b"}, out = {"x"};
    CHECK_THROWS_WITH_AS(svg_heatmap_grid(src, out, {}, "t"), doctest::Contains("no panels"), Error);
    CHECK_THROWS_WITH_AS(svg_heatmap_grid(src, out, {{{"p", {{0.5, 0.5}}}}, {}}, "t"),
                         doctest::Contains("row 1 has no panels"), Error);
    CHECK_THROWS_WITH_AS(svg_heatmap_grid(src, out, {{{"p", {{0.5, 0.5}}}, {"layer 0, head 1", {{1.0}}}}}, "t"),
                         doctest::Contains("panel 'layer 0, head 1'"), Error);
    const std::string two = svg_heatmap_grid(src, out, {{{"p", {{0.5, 0.5}}}, {"q", {{1.0, 0.0}}}}}, "t");
    std::string why;
    CHECK_MESSAGE(xml_well_formed(two, &why), why);
    CHECK(count(two, "class=\"heed-heatmap\"") == 2);
    // Each panel's legend has a gradient of its own (ids are unique in a document).
    CHECK(count(two, "id=\"heed-scale-0-0\"") == 1);
    CHECK(count(two, "id=\"heed-scale-0-1\"") == 1);
  }
}
