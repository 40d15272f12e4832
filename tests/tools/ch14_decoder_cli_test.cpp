// The decoder-only model on the command line and on its task: the repeat task (models/tasks/tasks.h),
// the loss on each copy (repeat_halves_loss, models/decoder_model.h), heed train and heed eval
// with --model decoder, a resumed run byte-identical to one that never stopped, and the flags
// that do not apply refused with one clear line.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "models/decoder_model.h"
#include "nn/checkpoint.h"
#include "tests/support/heed_cli.h"
#include "tests/support/precision.h"

using namespace heed;

namespace {

// Each {arguments, words}: heed refuses them with exit status 2 and one line of stderr holding the words.
template <size_t N>
void refused_in_one_line(Scratch& s, const std::string (&bad)[N][2]) {
  for (const auto& bad_case : bad) {
    const std::string& args = bad_case[0];
    const std::string& words = bad_case[1];
    CliRun r = s.heed(args);
    INFO("heed " << args << " -> " << r.status << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(words) != std::string::npos);
  }
}

// `run` for 20 steps, and for 10 then resumed to 20: the resumed file has the bytes of the 20 at
// once (and not those of the 10). The straight run's stdout and the resumed file, for more checks.
struct Resumed {
  std::string straight_out, file;
};
Resumed resume_is_straight(Scratch& s, const std::string& run) {
  const std::string straight = s.path("straight.st"), half = s.path("half.st"), resumed = s.path("resumed.st");
  CliRun t = s.heed(run + "--steps 20 --save " + straight);
  INFO(t.err);
  REQUIRE(t.status == 0);
  REQUIRE(s.heed(run + "--steps 10 --save " + half).status == 0);
  CliRun r = s.heed("train --resume " + half + " --steps 20 --save " + resumed);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(slurp(resumed) == slurp(straight));
  CHECK(slurp(resumed) != slurp(half));
  return {t.out, resumed};
}

}  // namespace

TEST_SUITE("ch14_decoder_cli") {
  TEST_CASE("repeat: the target is the source twice; the longest target is twice the longest source") {
    RepeatTask task(5, 2, 4);
    CHECK(task.name() == "repeat");
    CHECK(task.max_target_len() == 8);
    Generator gen(1);
    for (int i = 0; i < 20; ++i) {
      Example e = task.sample(gen);
      REQUIRE(e.src.size() >= 2);
      REQUIRE(e.src.size() <= 4);
      std::vector<int64_t> twice = e.src;
      twice.insert(twice.end(), e.src.begin(), e.src.end());
      CHECK(e.tgt == twice);
    }
    CHECK(make_task("repeat", 5, 2, 4)->name() == "repeat");
  }

  TEST_CASE("repeat_halves_loss: the mean cross-entropy of each copy's symbols, EOS in neither") {
    ModelConfig c;
    c.model = "decoder";
    c.src_vocab = c.tgt_vocab = 8;
    c.embed = 8;
    c.heads = 2;
    c.attention_only = true;
    Generator gen(2);
    DecoderModel model(c, gen);
    RepeatTask task(5, 2, 4);
    HalvesLoss h = repeat_halves_loss(model, task, 3, 7);
    CHECK(h.sequences == 3);
    // The same three sequences by hand: Generator(7)'s draws, each scored alone.
    Generator draws(7);
    real first = 0, repeated = 0;
    int64_t n_all = 0;
    for (int i = 0; i < 3; ++i) {
      Example e = task.sample(draws);
      Batch b = make_batch({e});
      Tensor logp = log_softmax(model.forward(b).value(), 2);  // (1, 2n + 1, 8)
      const int64_t n = static_cast<int64_t>(e.src.size());
      for (int64_t t = 0; t < 2 * n; ++t) (t < n ? first : repeated) -= logp[t * 8 + e.tgt[t]];
      n_all += n;
    }
    CHECK(std::fabs(h.first - first / n_all) < 1e-12);
    CHECK(std::fabs(h.repeated - repeated / n_all) < 1e-12);
    CHECK(h.first != h.repeated);
  }

  TEST_CASE("heed train and eval --model decoder on repeat: each copy's loss; a resumed run is the run that never stopped") {
    Scratch s("decoder-cli");
    const std::string run = "train --model decoder --task repeat --vocab 6 --min-len 3 --max-len 5 --embed 8 "
                            "--heads 2 --batch 4 --eval-samples 10 --schedule constant ";
    const std::string file = s.path("d.safetensors");
    CliRun t = s.heed(run + "--attention-only --layers 2 --steps 20 --json --save " + file);
    INFO(t.err);
    REQUIRE(t.status == 0);
    CHECK(t.out.find("training decoder (2 layers, 2 heads, d 8, attention only, sinusoidal positions") !=
          std::string::npos);
    CHECK(t.out.find("held-out: loss ") != std::string::npos);
    CHECK(t.out.find(" on the first copy, ") != std::string::npos);
    const Json j = t.json();
    REQUIRE(j.find("loss_first"));
    REQUIRE(j.find("loss_repeated"));
    CliRun e = s.heed("eval --load " + file + " --samples 10 --json");
    INFO(e.err);
    REQUIRE(e.status == 0);
    CHECK(e.out.find("decoder-only (D 8, 2 layers, 2 heads, attention only) on repeat") != std::string::npos);
    CHECK(e.out.find("repeated copy  ") != std::string::npos);
    const Json ej = e.json();
    CHECK(std::fabs(ej.find("log_v")->as_real() - std::log(6.0)) < test::tol(1e-12));  // log V in real
    // Resumed: 10 steps, then on to 20, gives the bytes of 20 at once (full layers, dropout's
    // stream included).
    const std::string full = run + "--layers 1 --ff 16 --norm-first --positions learned --dropout 0.1 ";
    resume_is_straight(s, full);
  }

  TEST_CASE("--model decoder: the flags and tasks that do not apply are refused, one line, status 2") {
    Scratch s("decoder-cli-bad");
    const std::string file = s.path("d.safetensors");
    REQUIRE(s.heed("train --model decoder --task repeat --attention-only --embed 8 --heads 2 --steps 0 --save " + file)
                .status == 0);
    const std::string bad[][2] = {
        {"train --model decoder --task repeat --cell lstm", "--cell is for the recurrent models, not --model decoder"},
        {"train --model decoder --task repeat --hidden 8", "--hidden is for the recurrent models, not --model decoder"},
        {"train --model transformer --attention-only", "--attention-only is for --model decoder, not transformer"},
        {"train --model additive --attention-only", "--attention-only is for --model decoder, not additive"},
        {"train --model decoder --task repeat --attention-only --ff 16", "--ff does not apply to --attention-only"},
        {"train --model decoder --task repeat --attention-only --norm-first",
         "--norm-first does not apply to --attention-only"},
        {"train --model decoder --task repeat --film " + s.path("f.html") + " --attention cross",
         "--attention cross: --model decoder has one attention, its causal self-attention"},
        {"eval --load " + file + " --lengths 3", "--lengths does not apply to --model decoder"},
        {"predict --load " + file + " \"3 1 4\"", "one sequence without a source to continue from"},
        {"bench --model decoder", "--model"},
        // Tying the output layer to the embedding is the transformer's alone so far.
    };
    refused_in_one_line(s, bad);
  }
}

namespace {

// A small untrained model: its next-token distributions are spread, so draws differ.
ModelConfig sampler_config() {
  ModelConfig c;
  c.model = "decoder";
  c.src_vocab = c.tgt_vocab = 9;
  c.embed = 8;
  c.heads = 2;
  c.layers = 1;
  c.attention_only = true;
  return c;
}

}  // namespace

TEST_SUITE("ch14_decoder_sample") {
  TEST_CASE("sample_continuation: seeded and reproducible; temperature 0 and top-k 1 are greedy; stops after <eos>") {
    Generator init(3);
    DecoderModel model(sampler_config(), init);
    const std::vector<int64_t> prompt = {3, 5, 4};
    Generator g1(11), g2(11), g3(12);
    const std::vector<int64_t> a = sample_continuation(model, prompt, 30, {}, g1);
    CHECK(a == sample_continuation(model, prompt, 30, {}, g2));
    CHECK(a != sample_continuation(model, prompt, 30, {}, g3));
    for (size_t i = 0; i + 1 < a.size(); ++i) CHECK(a[i] != Vocab::kEos);  // <eos> only last
    // Greedy by hand: the most probable token of the full forward over <bos> prompt so far.
    std::vector<int64_t> seq = {Vocab::kBos}, greedy;
    seq.insert(seq.end(), prompt.begin(), prompt.end());
    for (int i = 0; i < 6; ++i) {
      const int64_t T = static_cast<int64_t>(seq.size()), V = 9, last = T - 1;
      Tensor logits = model.logits(model.hidden(seq, 1, T, {T})).value();  // (1, T, V), any ids (specials too)
      int64_t best = 0;
      for (int64_t v = 1; v < V; ++v)
        if (logits[last * V + v] > logits[last * V + best]) best = v;
      greedy.push_back(best);
      if (best == Vocab::kEos) break;
      seq.push_back(best);
    }
    Generator g4(1), g5(2);
    CHECK(sample_continuation(model, prompt, 6, {.temperature = 0}, g4) == greedy);
    CHECK(sample_continuation(model, prompt, 6, {.temperature = 1, .top_k = 1}, g5) == greedy);
    Generator g6(1);
    CHECK_THROWS_WITH_AS(sample_continuation(model, prompt, 6, {.temperature = -1}, g6),
                         doctest::Contains("temperature -1"), Error);
  }

  TEST_CASE("sample_continuation: the first token's frequencies over 4000 draws follow softmax(logits / T) over the top k") {
    Generator init(4);
    DecoderModel model(sampler_config(), init);
    const std::vector<int64_t> prompt = {6, 7};
    Tensor logits = model.forward(make_batch({{{3}, prompt}})).value();  // (1, 3, 9)
    const int64_t V = 9;
    for (const std::pair<real, int64_t>& Tk : {std::pair<real, int64_t>{1, 0}, {0.5, 0}, {2, 3}}) {
      const real T = Tk.first;  // (not a structured binding: clang 14 cannot capture one in doctest's lambda)
      const int64_t k = Tk.second;
      CAPTURE(T);
      CAPTURE(k);
      // The expected distribution: the k largest logits of the last position, softmax at T.
      std::vector<real> l(logits.data() + 2 * V, logits.data() + 3 * V), p(V, 0);
      std::vector<real> sorted = l;
      std::sort(sorted.begin(), sorted.end(), std::greater<real>());
      const real cutoff = k ? sorted[static_cast<size_t>(k - 1)] : -1e300;
      real total = 0;
      for (int64_t v = 0; v < V; ++v)
        if (l[v] >= cutoff) total += p[v] = std::exp(l[v] / T);
      std::vector<int64_t> count(V, 0);
      Generator gen(5);
      const int n = 4000;
      for (int i = 0; i < n; ++i) ++count[sample_continuation(model, prompt, 1, {.temperature = T, .top_k = k}, gen)[0]];
      for (int64_t v = 0; v < V; ++v) {
        const real want = p[v] / total, got = static_cast<real>(count[v]) / n;
        INFO("token " << v << ": drawn " << got << ", probability " << want);
        CHECK(std::fabs(got - want) <= 4 * std::sqrt(want * (1 - want) / n) + 1e-12);  // 4 standard deviations
        if (want == 0) CHECK(count[v] == 0);
      }
    }
  }

  TEST_CASE("heed sample: the same seed prints the same tokens; bad input is one clear line") {
    Scratch s("decoder-sample");
    const std::string file = s.path("d.safetensors"), learned = s.path("l.safetensors"), other = s.path("a.safetensors");
    REQUIRE(s.heed("train --model decoder --task repeat --vocab 6 --min-len 3 --max-len 5 --attention-only --embed 8 "
                   "--heads 2 --batch 4 --steps 10 --eval-samples 2 --save " + file).status == 0);
    REQUIRE(s.heed("train --model decoder --task repeat --vocab 6 --min-len 3 --max-len 5 --positions learned --embed 8 "
                   "--heads 2 --ff 8 --batch 4 --steps 0 --save " + learned).status == 0);
    REQUIRE(s.heed("train --model additive --embed 4 --hidden 4 --steps 0 --save " + other).status == 0);
    CliRun a = s.heed("sample --load " + file + " --prompt \"3 1 4\" --seed 7 --json");
    INFO(a.err);
    REQUIRE(a.status == 0);
    CHECK(a.out.rfind("prompt: 3 1 4\nsample: ", 0) == 0);
    CHECK(s.heed("sample --load " + file + " --prompt \"3 1 4\" --seed 7 --json").out == a.out);
    CHECK(s.heed("sample --load " + file + " --prompt \"3 1 4\" --seed 8 --json").out != a.out);
    CHECK(a.json().find("output")->as_array().size() >= 1);
    const std::string bad[][2] = {
        {"sample --load " + file, "--prompt \"TOKENS\" is required"},
        {"sample --load " + file + " --prompt \"3 x\"", "--prompt: "},
        {"sample --load " + file + " --prompt \"3\" --temperature -1", "--temperature"},
        {"sample --load " + file + " --prompt \"3\" --top-k -2", "--top-k"},
        {"sample --load " + other + " --prompt \"3\"", "is a additive model, which reads a source"},
        {"sample --load " + learned + " --prompt \"3 1\" --max-tokens 100", "need more than the model's 64 learned positions"},
    };
    refused_in_one_line(s, bad);
  }

  TEST_CASE("shared embeddings from heed train: a resumed run is the run that never stopped; eval reads the tied file") {
    Scratch s("decoder-tied-cli");
    const std::string run = "train --model decoder --task repeat --vocab 6 --min-len 3 --max-len 5 --embed 8 --heads 2 "
                            "--batch 4 --eval-samples 10 --schedule constant --attention-only --layers 2 "
                            "--share-embeddings --dropout 0.1 ";
    const Resumed r = resume_is_straight(s, run);
    CHECK(r.straight_out.find("attention only, sinusoidal positions, shared embeddings") != std::string::npos);
    const std::string& resumed = r.file;
    CHECK(read_checkpoint_metadata(resumed).at("share_embeddings") == "1");
    CliRun e = s.heed("eval --load " + resumed + " --samples 10");
    INFO(e.err);
    CHECK(e.status == 0);
    CHECK(e.out.find("decoder-only (D 8, 2 layers, 2 heads, attention only, shared embeddings) on repeat") !=
          std::string::npos);
  }

  TEST_CASE("heed train's closing line on repeat: each copy's loss and the in-context one, heed eval's numbers") {
    Scratch s("decoder-closing");
    const std::string file = s.path("d.safetensors");
    CliRun t = s.heed("train --model decoder --task repeat --vocab 6 --min-len 3 --max-len 5 --embed 8 --heads 2 "
                      "--batch 4 --eval-samples 10 --attention-only --layers 2 --steps 20 --seed 3 --json --save " + file);
    INFO(t.err);
    REQUIRE(t.status == 0);
    const Json j = t.json();
    REQUIRE(j.find("loss_in_context"));
    const real first = j.find("loss_first")->as_real(), repeated = j.find("loss_repeated")->as_real(),
               in_context = j.find("loss_in_context")->as_real();
    CHECK(in_context != repeated);  // the second copy without its first symbol is another mean
    char line[200];
    std::snprintf(line, sizeof line,
                  "held-out: loss %.4f on the first copy, %.4f on the repeated one, %.4f on it from its 2nd symbol, "
                  "log V %.4f (10 sequences)\n",
                  first, repeated, in_context, std::log(6.0));
    CHECK(t.out.find(line) != std::string::npos);
    // train scores 10 sequences drawn from seed + 7777777: heed eval --seed 7777780 reads the same ones.
    CliRun e = s.heed("eval --load " + file + " --samples 10 --seed 7777780 --json");
    INFO(e.err);
    REQUIRE(e.status == 0);
    const Json ej = e.json();
    CHECK(ej.find("loss_first")->as_real() == first);
    CHECK(ej.find("loss_repeated")->as_real() == repeated);
    CHECK(ej.find("loss_in_context")->as_real() == in_context);
  }
}
