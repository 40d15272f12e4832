// Interrupting and resuming heed train, through the real program: a run stopped by SIGINT,
// SIGTERM or kill -9 (after a periodic save) and resumed, any number of times, ends with a
// checkpoint byte-identical to the uninterrupted run's, and prints the same losses for the steps
// it resumed. The signals are real: heed-faults with HEED_FAULT_SIGNAL=NAME@K (heed itself, built
// for the tests: tests/faults/heed_faults.cpp) sends itself NAME at the end of step K, so the
// tests can choose the step.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "models/seq2seq.h"
#include "nn/checkpoint.h"
#include "tests/support/chapter_check.h"
#include "tests/support/heed_cli.h"

using namespace heed;

namespace {

const std::string kSmall = "--min-len 2 --max-len 5 --embed 6 --hidden 8 --batch 4 --eval-samples 10";

// "step K/N  loss X" lines of stderr (printed every step when N <= 20... and every N/20 steps).
std::map<int, std::string> losses_by_step(const std::string& err) {
  std::map<int, std::string> out;
  static const std::regex line(R"(step (\d+)/\d+  loss (\S+))");
  for (auto it = std::sregex_iterator(err.begin(), err.end(), line); it != std::sregex_iterator(); ++it)
    out[std::stoi((*it)[1])] = (*it)[2];
  return out;
}

std::string summary_loss(const std::string& out) {
  std::smatch m;
  REQUIRE(std::regex_search(out, m, std::regex(R"(; loss (\S+))")));
  return m[1];
}

// Files in the scratch folder: a refused command must leave no temporary file behind.
std::vector<std::string> listing(const Scratch& s) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(s.folder())) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_SUITE("ch04_resume") {
  TEST_CASE("resume: interrupted by SIGINT, SIGTERM and kill -9, resumed, the final checkpoint is byte-identical") {
    // One leg is one process: it starts the run (the first) or resumes it, and is stopped by
    // `signal` at the end of step `at`; `every` > 0 adds --checkpoint-every. Each model meets each
    // signal, at points that differ between the models: the first and the last step included, a
    // kill just before and just after a periodic save.
    struct Leg {
      const char* signal;
      int at, every;
    };
    struct Case {
      const char *model, *cell;
      std::vector<Leg> legs;
      const char* sizes = nullptr;  // instead of kSmall
    };
    const std::vector<Case> cases = {
        {"plain", "gru", {{"INT", 1, 0}, {"TERM", 12, 0}, {"KILL", 20, 4}}},            // killed before the save at 20
        {"plain", "lstm", {{"KILL", 9, 4}, {"INT", 10, 0}, {"TERM", 11, 0}}},          // resumes at 8
        {"additive", "gru", {{"INT", 7, 0}, {"TERM", 16, 0}, {"KILL", 23, 5}}},        // resumes at 20
        {"additive", "lstm", {{"TERM", 3, 0}, {"KILL", 22, 7}, {"INT", 30, 0}}},       // the last step
        // Dropout's masks come from a stream of their own, saved beside the data stream's.
        // The transformer has no cell: --cell is refused with it.
        {"transformer", "", {{"INT", 6, 0}, {"KILL", 17, 5}, {"TERM", 24, 0}},
         "--min-len 2 --max-len 5 --embed 8 --heads 2 --ff 12 --layers 1 --dropout 0.2 --batch 4 --eval-samples 10"}};
    const int steps = 30;
    for (const Case& c : cases) {
      CAPTURE(c.model);
      CAPTURE(c.cell);
      Scratch s(std::string("resume-") + c.model + "-" + c.cell);
      const std::string run = "train --model " + std::string(c.model) + (*c.cell ? std::string(" --cell ") + c.cell : "") + " " +
                              (c.sizes ? c.sizes : kSmall) +
                              " --steps " + std::to_string(steps);
      const std::string full = s.path("full.st"), f = s.path("f.st");
      CliRun whole = s.heed(run + " --save " + full);
      REQUIRE(whole.status == 0);
      const std::map<int, std::string> expected = losses_by_step(whole.err);
      REQUIRE(expected.size() == static_cast<size_t>(steps));  // 30 steps: a line each

      int saved_at = 0, compared = 0, want_compared = 0;  // the step f holds
      std::vector<CliRun> resumed;
      for (size_t i = 0; i <= c.legs.size(); ++i) {
        const bool last = i == c.legs.size();  // the final leg runs to the end
        std::string args = i == 0 ? run + " --save " + f : "train --resume " + f;
        std::string env;
        if (!last) {
          const Leg& leg = c.legs[i];
          if (leg.every) args += " --checkpoint-every " + std::to_string(leg.every);
          env = "HEED_FAULT_SIGNAL=" + std::string(leg.signal) + "@" + std::to_string(leg.at);
        }
        CAPTURE(args);
        CAPTURE(env);
        CliRun r = s.heed_with_faults(args, env);
        if (i > 0) CHECK(r.out.find("resuming " + f + " at step " + std::to_string(saved_at)) != std::string::npos);
        const int end = last ? steps : c.legs[i].at;
        if (i > 0) want_compared += end - saved_at;
        if (last) {
          REQUIRE(r.status == 0);
        } else if (std::string(c.legs[i].signal) == "KILL") {
          CHECK((r.status != 0 && r.status != 2));  // killed: no line, no exit status of its own
          const int every = c.legs[i].every;
          for (int k = saved_at + 1; k < end; ++k)  // saves come after the step's signal check
            if (k % every == 0) saved_at = k;
        } else {
          const bool is_int = std::string(c.legs[i].signal) == "INT";
          CHECK(r.status == (is_int ? 130 : 143));
          // The hint names the program as invoked and repeats the output flags.
          const std::string hint = build_dir() + "/heed-faults train --resume " + f +
                                   (c.legs[i].every ? " --checkpoint-every " + std::to_string(c.legs[i].every) : "");
          CHECK(r.err.find(std::string("heed train: ") + (is_int ? "SIGINT" : "SIGTERM") + " at step " +
                           std::to_string(end) + "/30; saved to " + f + "; resume with: " + hint + "\n") !=
                std::string::npos);
          saved_at = end;
        }
        // Every step a resumed process printed has the uninterrupted run's loss, to the digit.
        if (i > 0)
          for (const auto& step_loss : losses_by_step(r.err)) {
            const int step = step_loss.first;  // not a structured binding: clang before 16 cannot capture one
            const std::string& loss = step_loss.second;
            CAPTURE(step);
            CHECK(loss == expected.at(step));
            ++compared;
          }
        if (last) {
          CHECK(summary_loss(r.out) == summary_loss(whole.out));
          auto held_out = [](const std::string& out) {
            size_t a = out.find("held-out");
            return out.substr(a, out.find("saved to") - a);
          };
          CHECK(held_out(r.out) == held_out(whole.out));
        }
      }
      CHECK(compared == want_compared);
      CHECK(slurp(f) == slurp(full));
      CHECK(listing(s) == std::vector<std::string>{"f.st", "full.st"});  // no temporary file left
    }
  }

  TEST_CASE("resume: a second SIGINT during the save does not corrupt the file") {
    Scratch s("resume-twice");
    const std::string run = "train --model additive " + kSmall + " --steps 12";
    const std::string full = s.path("full.st"), f = s.path("f.st");
    REQUIRE(s.heed(run + " --save " + full).status == 0);
    // The second SIGINT arrives after the temporary file is written, before the rename.
    CliRun a = s.heed_with_faults(run + " --save " + f, "HEED_FAULT_SIGNAL=INT@5 HEED_FAULT_SIGNAL_IN_SAVE=1");
    CHECK(a.status == 130);
    CHECK(count_lines(a.err.substr(a.err.find("heed train: SIGINT"))) == 1);
    REQUIRE(s.heed("train --resume " + f).status == 0);
    CHECK(slurp(f) == slurp(full));

    // A SIGINT during a periodic save: the save completes and the run stops at that step.
    const std::string g = s.path("g.st");
    CliRun b = s.heed_with_faults(run + " --checkpoint-every 5 --save " + g, "HEED_FAULT_SIGNAL_IN_SAVE=1");
    CHECK(b.status == 130);
    CHECK(b.err.find("heed train: SIGINT at step 5/12; saved to " + g) != std::string::npos);
    REQUIRE(s.heed("train --resume " + g).status == 0);
    CHECK(slurp(g) == slurp(full));
  }

  TEST_CASE("resume: --steps raised trains on; with a constant rate it is the longer run exactly") {
    Scratch s("resume-longer");
    const std::string run = "train --model general --cell gru --schedule constant " + kSmall;
    const std::string longer = s.path("longer.st"), f = s.path("f.st"), g = s.path("g.st");
    REQUIRE(s.heed(run + " --steps 25 --save " + longer).status == 0);
    REQUIRE(s.heed(run + " --steps 15 --save " + f).status == 0);
    const std::string finished = slurp(f);
    CliRun r = s.heed("train --resume " + f + " --steps 25 --save " + g);
    REQUIRE(r.status == 0);
    CHECK(slurp(g) == slurp(longer));
    CHECK(slurp(f) == finished);  // --save G: F is left as it was
  }

  TEST_CASE("train: --steps 0 saves the untrained model; --load starts a new run from a file's weights") {
    Scratch s("load");
    const std::string untrained = s.path("untrained.st"), copy = s.path("copy.st"), tuned = s.path("tuned.st");
    CliRun z = s.heed("train --task copy --model additive " + kSmall + " --steps 0 --seed 5 --save " + untrained);
    REQUIRE(z.status == 0);
    // The file holds exactly the weights the seed draws.
    std::vector<NamedTensor> state;
    Generator gen(0);
    ModelConfig config = ModelConfig::from_metadata(read_checkpoint_metadata(untrained));
    Seq2Seq loaded(config, gen);
    load_checkpoint(loaded, untrained, &state);
    Generator seed5(5);
    Seq2Seq fresh(config, seed5);
    auto a = loaded.named_parameters(), b = fresh.named_parameters();
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) CHECK(a[i].second.value().to_vector() == b[i].second.value().to_vector());
    CHECK(!state.empty());  // and a training state at step 0: it can be resumed

    // A copy model, fine-tuned on reverse: the first loss is the copy model's on reverse data.
    REQUIRE(s.heed("train --task copy --model additive " + kSmall + " --steps 30 --save " + copy).status == 0);
    CliRun t = s.heed("train --task reverse --load " + copy + " " + kSmall + " --steps 10 --save " + tuned);
    REQUIRE(t.status == 0);
    CHECK(t.out.find("starting from the weights of " + copy) != std::string::npos);
    CliRun t0 = s.heed("train --task reverse --load " + copy + " " + kSmall + " --steps 0 --save " + tuned);
    REQUIRE(t0.status == 0);
    SafetensorsFile from = read_safetensors(copy), to = read_safetensors(tuned);
    std::map<std::string, std::vector<real>> weights;
    for (const NamedTensor& x : from.tensors)
      if (x.name.rfind(kTrainingPrefix, 0) != 0) weights[x.name] = x.value.to_vector();
    int same = 0;
    for (const NamedTensor& x : to.tensors) {
      if (x.name.rfind(kTrainingPrefix, 0) == 0) continue;
      CHECK(weights.at(x.name) == x.value.to_vector());
      ++same;
    }
    CHECK(same == static_cast<int>(weights.size()));
    CHECK(to.metadata.at("task") == "reverse");
    CHECK(to.metadata.at("training.adam_steps") == "0");  // a fresh optimiser
  }

  TEST_CASE("train: --weights-only files are small and load for eval; without --save a signal says nothing was saved") {
    Scratch s("weights-only");
    const std::string with = s.path("with.st"), without = s.path("without.st");
    REQUIRE(s.heed("train " + kSmall + " --steps 3 --save " + with).status == 0);
    REQUIRE(s.heed("train " + kSmall + " --steps 3 --weights-only --save " + without).status == 0);
    CHECK(slurp(without).size() * 2 < slurp(with).size());  // no moments: less than half
    CHECK(s.heed("eval --load " + without + " --samples 5").status == 0);
    CHECK(s.heed("eval --load " + with + " --samples 5").status == 0);

    CliRun r = s.heed_with_faults("train " + kSmall + " --steps 20", "HEED_FAULT_SIGNAL=INT@4");
    CHECK(r.status == 130);
    CHECK(r.err.find("heed train: SIGINT at step 4/20; nothing saved (give --save FILE") != std::string::npos);
  }

  TEST_CASE("resume: every bad input is one line, exit 2, and changes nothing on disk") {
    Scratch s("resume-bad");
    const std::string f = s.path("f.st"), w = s.path("w.st");
    REQUIRE(s.heed("train --model additive " + kSmall + " --steps 6 --save " + f).status == 0);
    REQUIRE(s.heed("train --model additive " + kSmall + " --steps 6 --weights-only --save " + w).status == 0);
    // A location model has a row per source position (max_src_len of them): it cannot be fine-tuned
    // on longer sources. The additive model reads any length (its fine-tuning on 100 is below).
    const std::string loc = s.path("loc.st");
    REQUIRE(s.heed("train --model location " + kSmall + " --steps 1 --weights-only --save " + loc).status == 0);
    const std::string bytes = slurp(f);
    auto spit = [&](const std::string& name, const std::string& content) {
      std::ofstream(s.path(name), std::ios::binary) << content;
      return s.path(name);
    };
    const std::string truncated = spit("truncated.st", bytes.substr(0, bytes.size() - 100));
    std::string flipped = bytes;
    flipped[20] = '\x01';  // inside the JSON header
    const std::string corrupt = spit("corrupt.st", flipped);
    SafetensorsFile file = read_safetensors(f);
    file.metadata["hidden"] = "7";  // tensors of hidden 8
    write_safetensors(s.path("other-shape.st"), file.tensors, file.metadata);
    file = read_safetensors(f);
    for (NamedTensor& t : file.tensors)
      if (t.name == "training.exp_avg.out.bias") t.value = Tensor::zeros({3});
    write_safetensors(s.path("bad-moment.st"), file.tensors, file.metadata);
    file = read_safetensors(f);
    file.metadata["training.data_generator"] = "0 0 0 0 -";
    write_safetensors(s.path("bad-generator.st"), file.tensors, file.metadata);

    // One change to a copy of f: a metadata entry, or the tensors.
    auto edited = [&](const std::string& name, const std::string& key, const std::string& value,
                      const std::function<void(std::vector<NamedTensor>&)>& tensors = {}) {
      SafetensorsFile g = read_safetensors(f);
      if (!key.empty()) g.metadata[key] = value;
      if (tensors) tensors(g.tensors);
      write_safetensors(s.path(name), g.tensors, g.metadata);
      return s.path(name);
    };
    const std::string no_moment = edited("no-moment.st", "", "", [](std::vector<NamedTensor>& ts) {
      std::erase_if(ts, [](const NamedTensor& t) { return t.name == "training.exp_avg.out.bias"; });
    });
    const std::string extra = edited("extra.st", "", "", [](std::vector<NamedTensor>& ts) {
      ts.push_back({"training.exp_avg.nothing", Tensor::zeros({2})});
    });
    const std::string beyond = edited("beyond.st", "training.step", "99");
    const std::string bad_lr = edited("bad-lr.st", "lr", "fast");
    const std::string bad_steps = edited("bad-steps.st", "steps", "12abc");
    const std::string negative_step = edited("negative-step.st", "training.step", "-3");
    const std::string few_tokens = edited("few-tokens.st", "tgt_tokens", "<pad> <bos> <eos> 0");
    const std::string no_specials = edited("no-specials.st", "src_tokens", "a b c 0 1 2 3 4 5 6 7 8 9");
    const std::string twice = edited("twice.st", "src_tokens", "<pad> <bos> <eos> 0 0 2 3 4 5 6 7 8 9");
    const std::string renamed = edited("renamed.st", "src_tokens", "<pad> <bos> <eos> a b c d e f g h i j");
    // Crafted numbers: each has the range of the flag that set it.
    const std::string adam_max = edited("adam-max.st", "training.adam_steps", "9223372036854775807");
    const std::string samples_max = edited("samples-max.st", "eval_samples", "9223372036854775807");
    const std::string samples_0 = edited("samples-0.st", "eval_samples", "0");
    const std::string huge_lr = edited("huge-lr.st", "lr", "1e300");
    const std::string odd_schedule = edited("odd-schedule.st", "schedule", "cosine");

    struct Bad {
      std::string args, says;
    };
    const std::vector<Bad> table = {
        {"train --resume " + w, "holds no training state (it was saved with --weights-only"},
        {"train --resume " + truncated, "run past the end of the"},
        {"train --resume " + corrupt, "invalid JSON header"},
        {"train --resume " + s.path("other-shape.st"), "the file does not match the module"},
        {"train --resume " + s.path("bad-moment.st"), "the moments of parameter"},
        {"train --resume " + s.path("bad-generator.st"), "Generator: state '0 0 0 0 -'"},
        {"train --resume " + s.path("absent.st"), "cannot open"},
        {"train --resume " + f + " --hidden 16", "--hidden cannot be given with --resume"},
        {"train --resume " + f + " --steps 3", "--steps 3 is below step 6, which"},
        {"train --steps 5 --checkpoint-every 2", "--checkpoint-every needs --save FILE"},
        {"train --load " + f + " --hidden 16", "--hidden 16 differs from the model in"},
        {"train --load " + f + " --vocab 4", "vocabularies of 7 and 7 tokens, the model reads 13 and 13"},
        {"train --load " + w + " --model plain", "--model plain differs from the model in"},
        {"train --load " + w + " --bidirectional", "--bidirectional differs from the model in"},
        {"train --load " + loc + " --max-len 100", "sources of up to 100 tokens are longer than the 64 the model reads"},
        {"train --load " + renamed, "the model's vocabularies are not task reverse's"},
        {"train --resume " + no_moment, "the training state has no tensor training.exp_avg.out.bias"},
        {"train --resume " + extra, "its training state holds tensors this model has no parameter for"},
        {"train --resume " + beyond, "it records step 99 of a 6-step run"},
        {"train --resume " + bad_lr, "metadata 'lr' is 'fast', not a number in (0, 10]"},
        {"train --resume " + adam_max, "metadata 'training.adam_steps': 9223372036854775807 is out of range [0, 100000000]"},
        {"train --resume " + samples_max, "metadata 'eval_samples': 9223372036854775807 is out of range [1, 1000000]"},
        {"train --resume " + samples_0, "metadata 'eval_samples': 0 is out of range [1, 1000000]"},
        {"train --resume " + huge_lr, "metadata 'lr' is '1e300', not a number in (0, 10]"},
        {"train --resume " + odd_schedule, "metadata 'schedule' is 'cosine', not linear, constant or warmup"},
        {"train --resume " + bad_steps, "metadata 'steps': '12abc' is not a whole number"},
        {"train --resume " + negative_step, "metadata 'training.step': -3 is out of range [0, "},
        {"train --resume " + few_tokens, "metadata 'tgt_tokens' holds 4 tokens; the model's vocabulary has 13"},
        {"train --resume " + no_specials, "metadata 'src_tokens' must start with <pad> <bos> <eos>"},
        {"train --resume " + twice, "word '0' appears twice"},
        {"train --resume " + renamed, "the file's vocabularies differ from those of this heed's task reverse"},
    };
    const std::vector<std::string> before = listing(s);
    const std::string before_f = slurp(f);
    for (const Bad& b : table) {
      CliRun r = s.heed(b.args);
      INFO("heed " << b.args << " -> " << r.status << ": " << r.err);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(r.err.rfind("heed train: ", 0) == 0);
      CHECK(r.err.find(b.says) != std::string::npos);
      CHECK(listing(s) == before);
      CHECK(slurp(f) == before_f);
    }
    // The additive model has no longest source: fine-tuned on sources of 70 to 100 symbols, past the
    // 64 of its max_src_len.
    CliRun longer = s.heed("train --load " + w + " --min-len 70 --max-len 100 --batch 2 --steps 1 --eval-samples 2");
    INFO(longer.err);
    CHECK(longer.status == 0);
  }
}  // TEST_SUITE
