// heed train: train a model on a task, report progress, evaluate on held-out data, save.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "io/atomic_file.h"
#include "io/json.h"
#include "io/os.h"
#include "io/paths.h"
#include "io/safetensors.h"
#include "io/utf8.h"
#include "models/tasks/data.h"
#include "models/decoder_model.h"
#include "models/evaluate.h"
#include "models/tasks/text.h"
#include "models/train.h"
#include "models/tasks/translate.h"
#include "nn/checkpoint.h"
#include "tensor/math.h"
#include "tools/common.h"
#include "tools/train_state.h"
#include "tools/train_watch.h"

namespace heed {

namespace {

const char* kHelp =
    "usage: heed train [flags]\n"
    "\n"
    "Trains a sequence-to-sequence model on a toy task, evaluates it on held-out sequences and\n"
    "optionally saves it. Progress goes to stderr (a bar on a terminal, periodic lines otherwise).\n"
    "\n"
    "  --task copy|reverse|sort|repeat|translate|german   the task (reverse); repeat: a segment of\n"
    "                            --min-len..--max-len symbols, then the same segment again; german:\n"
    "                            translate's German sentences as a language (--model decoder only)\n"
    "  --data FILE               train on your own pairs instead: UTF-8 lines of source<TAB>target\n"
    "                            (docs/cli.md, \"Data files\"; heed data writes an example); with\n"
    "                            --model decoder, your own text: a plain UTF-8 file, next-token\n"
    "                            prediction on windows of --context tokens (docs/cli.md, \"Text\n"
    "                            files\"; data/chapters.txt is a corpus heed ships)\n"
    "  --context N               text: tokens per window (64; 2 to 1000)\n"
    "  --chars                   text: one token per UTF-8 character (default: the pairs' words)\n"
    "  --valid FILE              data: the validation pairs (default: a --valid-fraction of --data)\n"
    "  --valid-fraction F        data: each pair goes to validation with probability F (0.1); text:\n"
    "                            the last F of the tokens are the validation text\n"
    "  --min-count N             data: tokens seen fewer than N times in training are <unk> (1)\n"
    "  --max-len N               data: pairs with a side longer than N tokens are skipped (50)\n"
    "  --lower                   data: lower-case A-Z before splitting\n"
    "  --model plain|additive|general|dot|scaled|cosine|location|transformer|decoder   the model\n"
    "                            (additive); decoder: a decoder-only Transformer of --layers causal\n"
    "                            layers that reads one sequence: repeat and german as they are, the\n"
    "                            other tasks as source <sep> target, scored on the target\n"
    "  --attention-only          decoder: layers of attention alone, no feed-forward, no LayerNorm\n"
    "  --cell gru|lstm|rnn       recurrent models: the cell of encoder and decoder (gru)\n"
    "  --bidirectional           recurrent models: a bidirectional encoder\n"
    "  --input-feeding           Luong models: the cell also reads the previous step's\n"
    "                            attentional state h~_{t-1} (Luong et al. 2015, section 3.3)\n"
    "  --vocab V                 number of symbols of copy, reverse and sort (10)\n"
    "  --min-len N, --max-len N  source lengths of copy, reverse and sort (5, 10); translate's\n"
    "                            grammar fixes its own, so these three are refused with it\n"
    "  --embed E, --hidden H     embedding and hidden sizes (32, 64); the transformer's width\n"
    "                            is E, and --hidden, --cell and --bidirectional are refused with it\n"
    "  --batch B                 sequences per step (32)\n"
    "  --steps N                 training steps (3000); 0 saves the untrained model\n"
    "  --lr X                    Adam's learning rate (0.003)\n"
    "  --schedule linear|constant|warmup  the learning rate over the run (linear): linear decays\n"
    "                            --lr to 0; constant keeps it; warmup is the Transformer paper's\n"
    "                            (Vaswani et al. 2017, section 5.3): up in a straight line to --lr\n"
    "                            at step --warmup, then down as 1/sqrt(step). --lr is the peak (the\n"
    "                            paper's d_model^-0.5 warmup^-0.5 would be 0.0125 for --embed 32\n"
    "                            and --warmup 200)\n"
    "  --warmup N                warmup: the steps of the rise (200; the paper's 4000 is 4 %% of its\n"
    "                            100,000 steps, heed's runs are 1,500 to 5,000)\n"
    "  --label-smoothing E       train against targets smoothed by E (section 5.4; the paper's 0.1):\n"
    "                            1-E on the right token, E spread evenly over the vocabulary, as\n"
    "                            PyTorch's CrossEntropyLoss(label_smoothing=E); the loss shown is the\n"
    "                            smoothed one (0)\n"
    "  --clip X                  gradient-norm clip, 0 for none (1.0)\n"
    "%s"
    "  --share-embeddings        transformer: the output layer's weight is the target embedding's\n"
    "                            table (Vaswani et al. 2017, section 3.4; the paper also shares it\n"
    "                            with the source side, over one joint vocabulary); decoder: the\n"
    "                            output layer's weight is the one embedding's table, tied as in\n"
    "                            GPT-2 (the same flag: in both the output reads the table of the\n"
    "                            tokens it predicts)\n"
    "  --seed N                  seed of the weights and the data (1)\n"
    "  --eval-samples N          held-out sequences scored at the end (500)\n"
    "  --save FILE               write the trained model (safetensors) to FILE, with the training\n"
    "                            state that --resume needs; on SIGINT (Ctrl-C), SIGTERM, SIGHUP (a\n"
    "                            closed terminal) or SIGPIPE (a closed pipe), save the run at the end\n"
    "                            of the current step and exit (status 128 + the signal: 130, 143, 129, 141)\n"
    "  --checkpoint-every N      also save FILE every N steps (a kill -9 loses at most N steps)\n"
    "  --weights-only            the final save holds the weights alone (smaller; --resume refuses it)\n"
    "  --force                   replace --save (or --resume's file) and --film even when write-protected\n"
    "  --resume FILE             continue the run saved in FILE with its settings, to its --steps\n"
    "                            (which may be raised), saving to FILE (or --save): the result is\n"
    "                            byte-identical to the run that never stopped; a --data run reads its\n"
    "                            file again (the recorded path, or --data FILE) and checks it is the same\n"
    "  --load FILE               a new run (a fresh optimiser) from FILE's weights: fine-tuning;\n"
    "                            the model's shape is FILE's, the task and options are the flags'\n"
    "  --json                    end stdout with one JSON object: task, model, cell, steps,\n"
    "                            seconds, loss (mean of the last 50 steps), exact, token,\n"
    "                            tokens_per_second; with --data also bleu, perplexity and pairs\n"
    "                            (the validation pairs scored)\n";

// One line of progress: a bar redrawn in place on a terminal, a plain line otherwise.
class Reporter {
 public:
  // first_step: the steps a resumed run had done before this process.
  Reporter(int64_t steps, int64_t first_step = 0)
      : tty_(os::is_terminal(2)), every_(std::max<int64_t>(1, steps / 20)), first_(first_step) {}

  void operator()(const Progress& p) {
    real rate = p.seconds > 0 ? (p.step - first_) / p.seconds : 0;
    real left = rate > 0 ? (p.steps - p.step) / rate : 0;
    if (tty_) {
      const int width = 24;
      int filled = static_cast<int>(width * p.step / p.steps);
      std::string bar = std::string(filled, '#') + std::string(width - filled, '-');
      std::fprintf(stderr, "\r[%s] step %lld/%lld  loss %.4f  acc %.3f  %.1f steps/s  %s left   ", bar.c_str(),
                   static_cast<long long>(p.step), static_cast<long long>(p.steps), p.loss, p.accuracy, rate,
                   format_duration(left).c_str());
      if (p.step == p.steps) std::fputc('\n', stderr);
    } else if (p.step % every_ == 0 || p.step == 1 || p.step == p.steps) {
      std::fprintf(stderr, "step %lld/%lld  loss %.4f  acc %.3f  lr %.5f  %.1f steps/s  %s left\n",
                   static_cast<long long>(p.step), static_cast<long long>(p.steps), p.loss, p.accuracy, p.lr, rate,
                   format_duration(left).c_str());
    }
    std::fflush(stderr);
  }

 private:
  bool tty_;
  int64_t every_, first_;
};

}  // namespace

namespace {

// --model decoder --data FILE.txt: the text task (models/tasks/text.h) from its flags.
void read_text_flags(const Args& a, TrainPlan& plan) {
  for (const char* flag : {"--task", "--vocab", "--min-len", "--max-len"})
    if (a.has(flag))
      throw a.error(std::string(flag) + " does not apply to a text (--model decoder --data): the file gives the "
                    "tokens, --context N the window");
  if (a.has("--valid") && a.has("--valid-fraction")) throw a.error("give --valid FILE or --valid-fraction F, not both");
  TextOptions opt;
  opt.chars = a.has("--chars");
  if (opt.chars && a.has("--lower")) throw a.error("--lower is for words; --chars keeps every character as it is");
  opt.tok.lower = a.has("--lower");
  opt.min_count = a.integer("--min-count", 1, 1, INT64_MAX);
  opt.context = a.integer("--context", 64, TextOptions::kMinContext, TextOptions::kMaxContext);
  opt.valid_path = a.text("--valid", "");
  opt.valid_fraction = a.has("--valid-fraction") ? a.number_from("--valid-fraction", 0.1, 0, 0.99) : 0.1;
  plan.data = a.text("--data", "");
  plan.valid = opt.valid_path;
  try {
    plan.task = std::make_unique<TextTask>(plan.data, opt);
  } catch (const Error& e) {
    throw a.error(e.what());
  }
}

}  // namespace

TrainPlan parse_train_flags(const std::vector<std::string>& argv) {
  std::set<std::string> valued = {"--task",  "--model", "--cell",     "--vocab", "--min-len", "--max-len",
                                  "--embed", "--hidden", "--batch",   "--steps", "--lr",      "--schedule",
                                  "--clip",  "--seed",   "--save",    "--eval-samples", "--resume", "--load",
                                  "--checkpoint-every", "--film", "--watch-every", "--warmup", "--label-smoothing",
                                  "--data", "--valid", "--valid-fraction", "--min-count",
                                  "--attention", "--layer", "--head", "--context"};  // the film's matrix (tools/train_watch.h)
  valued.insert(kTransformerFlags.begin(), kTransformerFlags.end());
  Args a("train", argv, valued,
         {"--json", "--help", "--bidirectional", "--weights-only", "--input-feeding", "--watch", "--lower", "--force",
          kTransformerSwitch, kAttentionOnlySwitch, kShareEmbeddings, "--chars"});
  TrainPlan plan;
  if (a.has("--help")) {
    plan.help = true;
    return plan;
  }
  if (a.has("--resume")) return plan_from_checkpoint(a);
  for (const char* flag : {"--valid", "--valid-fraction", "--min-count", "--lower"})
    if (a.has(flag) && !a.has("--data")) throw a.error(std::string(flag) + " is for --data FILE (your own pairs)");
  const bool text = a.has("--data") && a.text("--model", "") == "decoder";
  for (const char* flag : {"--context", "--chars"})
    if (a.has(flag) && !text) throw a.error(std::string(flag) + " is for --model decoder --data FILE.txt (your own text)");
  if (text) {
    read_text_flags(a, plan);
  } else if (a.has("--data")) {
    for (const char* flag : {"--task", "--vocab", "--min-len"})
      if (a.has(flag)) throw a.error(std::string(flag) + " does not apply to --data: the file gives the pairs");
    if (a.has("--valid") && a.has("--valid-fraction"))
      throw a.error("give --valid FILE or --valid-fraction F, not both");
    DataOptions data;
    data.tok.lower = a.has("--lower");
    data.min_count = a.integer("--min-count", 1, 1, INT64_MAX);
    data.max_len = a.integer("--max-len", 50, 1, SymbolTask::kMaxLength);
    data.valid_path = a.text("--valid", "");
    data.valid_fraction = a.has("--valid-fraction") ? a.number_from("--valid-fraction", 0.1, 0, 0.99) : 0.1;
    plan.data = a.text("--data", "");
    plan.valid = data.valid_path;
    try {
      plan.task = std::make_unique<DataTask>(plan.data, data);
    } catch (const Error& e) {
      throw a.error(e.what());
    }
  }
  std::string task_name = a.choice("--task", "reverse", task_names());
  if (task_name == "translate" || task_name == "german")
    for (const char* flag : {"--vocab", "--min-len", "--max-len"})
      if (a.has(flag))
        throw a.error(std::string(flag) + " does not apply to --task " + task_name +
                      ": its grammar fixes the vocabulary and the lengths (5 to 13 tokens)");
  int64_t min_len = a.integer("--min-len", 5, 1, SymbolTask::kMaxLength);
  int64_t max_len = a.integer("--max-len", std::max<int64_t>(10, min_len), 1, SymbolTask::kMaxLength);
  if (min_len > max_len)
    throw a.error("--min-len " + std::to_string(min_len) + " is greater than --max-len " + std::to_string(max_len));
  if (!plan.task) plan.task = make_task(task_name, a.integer("--vocab", 10, 1, SymbolTask::kMaxVocab), min_len, max_len);

  ModelConfig& config = plan.config;
  config.model = a.choice("--model", "additive", model_names());
  // A decoder-only model reads one sequence: repeat and german are one already; the other tasks
  // are written as one, source <sep> target (OneSequenceTask, models/tasks/tasks.h). german has no
  // source for an encoder to read.
  const bool one_sequence = plan.task->name() == "repeat" || plan.task->name() == "german" || text;
  if (config.model == "decoder" && !one_sequence) plan.task = std::make_unique<OneSequenceTask>(std::move(plan.task));
  if (config.model != "decoder" && plan.task->name() == "german")
    throw a.error("--task german is a language to model, one sentence a sequence with no source: train it with "
                  "--model decoder (--task translate pairs it with English for --model " + config.model + ")");
  config.cell = a.choice("--cell", "gru", {"gru", "lstm", "rnn"});
  config.bidirectional = a.has("--bidirectional");
  config.input_feeding = a.has("--input-feeding");
  config.embed = a.integer("--embed", 32, 1, 4096);
  config.hidden = a.integer("--hidden", 64, 1, 4096);
  config.src_vocab = plan.task->src_vocab().size();
  config.tgt_vocab = plan.task->tgt_vocab().size();
  // Room for the longest source (and, for a data file, target: the transformer's positions).
  config.max_src_len = std::max<int64_t>(64, 2 * std::max(plan.task->max_len(), plan.task->max_target_len()));
  read_transformer_flags(a, config);
  try {
    config.validate();  // the product of the sizes, before anything is allocated
  } catch (const Error& e) {
    throw a.error(e.what());
  }

  TrainOptions& opt = plan.opt;
  opt.steps = a.integer("--steps", 3000, 0, 100000000);
  opt.batch = a.integer("--batch", 32, 1, 100000);
  opt.lr = a.number("--lr", 3e-3, 0, 10);
  opt.schedule = a.choice("--schedule", "linear", {"linear", "constant", "warmup"});
  if (a.has("--warmup") && opt.schedule != "warmup")
    throw a.error("--warmup is for --schedule warmup (the schedule is " + opt.schedule + ")");
  opt.warmup = a.integer("--warmup", 200, 1, 100000000);
  opt.label_smoothing = a.number_from("--label-smoothing", 0, 0, 0.99);
  opt.clip = a.number_from("--clip", 1.0, 0, 1e6);
  plan.seed = a.integer("--seed", 1, 0, INT64_MAX);
  opt.seed = static_cast<uint64_t>(plan.seed) + 1000003;  // the data stream, apart from the weights'
  plan.eval_samples = a.integer("--eval-samples", 500, 1, 1000000);
  plan.save = a.text("--save", "");
  plan.json = a.has("--json");
  plan.checkpoint_every = a.integer("--checkpoint-every", 0, 0, 100000000);
  plan.weights_only = a.has("--weights-only");
  plan.force = a.has("--force");
  plan.watch = parse_watch_flags(a, config);
  check_step_memory(config, opt.batch, plan.task->max_len());
  if (a.has("--load")) adopt_loaded_model(plan, a);
  choose_film_heads(a, plan.config, plan.watch);  // the model's shape is now known
  return plan;
}

namespace {

// Before any work: no output may destroy an input or another output, and --save must be
// writable (when it holds another run's training checkpoint, say which run it replaces).
void check_outputs(const TrainPlan& plan) {
  if (plan.checkpoint_every > 0 && plan.save.empty())
    throw Error("heed train: --checkpoint-every needs --save FILE (where to save)");
  // No output may destroy an input or another output; the checkpoint may replace the one the
  // run resumed or started from (that is --resume's own default).
  const char* save_flag = !plan.resume.empty() && plan.save == plan.resume ? "--resume" : "--save";
  check_no_collisions({{save_flag, plan.save, true, true},
                       {"--film", plan.watch.film, true, false},
                       {"--resume", plan.resume, false, true},
                      {"--data", plan.data, false},
                      {"--valid", plan.valid, false},
                       {"--load", plan.load, false, true}},
                      "heed train");
  // A run that cannot save should fail now, not after training.
  if (!plan.save.empty()) {
    std::error_code ec;
    if (std::filesystem::is_directory(plan.save, ec))
      throw Error("heed train: --save " + plan.save + ": is a folder; give a file name, e.g. " +
                  (std::filesystem::path(plan.save) / "model.safetensors").string());
    if (output_stream(plan.save) >= 0)
      throw Error("heed train: " + std::string(save_flag) + " " + plan.save +
                  ": is a stream; a checkpoint is a file heed replaces whole and resumes from: give a file name");
    try {
      check_writable(plan.save, plan.force);
    } catch (const Error& e) {
      throw Error("heed train: " + std::string(save_flag) + ": " + e.what() +
                  (plan.save == plan.resume ? " (--save FILE saves the resumed run to another file)" : ""));
    }
    // A new run saved over another run's training checkpoint: say which run it replaces.
    if (plan.resume.empty() && std::filesystem::is_regular_file(plan.save, ec)) {
      try {
        const std::map<std::string, std::string> old = read_checkpoint_metadata(plan.save);
        if (old.count("training.step") && old.count("steps") && old.count("task") && old.count("model"))
          std::printf("replacing %s, the training checkpoint of a run (model %s, task %s) at step %s of %s\n",
                      terminal_safe(plan.save).c_str(), terminal_safe(old.at("model")).c_str(), terminal_safe(old.at("task")).c_str(),
                      terminal_safe(old.at("training.step")).c_str(), terminal_safe(old.at("steps")).c_str());
      } catch (const Error&) {
        // Not a checkpoint: nothing to say about it.
      }
    }
  }
}

// A text's counts at the start of a run: its tokens, the validation text and the vocabulary.
void print_text_counts(const TrainPlan& plan, const TextTask& t) {
  const TextOptions& o = t.options();
  std::printf("text %s: %lld training tokens (%s), windows of %lld; validation %lld tokens%s\n",
              terminal_safe(plan.data).c_str(), static_cast<long long>(t.train_tokens().size()),
              o.chars ? "characters" : "words and punctuation", static_cast<long long>(o.context),
              static_cast<long long>(t.valid_tokens().size()),
              plan.valid.empty() ? " (the end of the file)" : (" (from " + terminal_safe(plan.valid) + ")").c_str());
  std::printf("vocabulary: %lld (specials and <unk> included; --min-count %lld); <unk>: training %lld, validation %lld\n",
              static_cast<long long>(t.tgt_vocab().size()), static_cast<long long>(o.min_count),
              static_cast<long long>(t.train_unknown()), static_cast<long long>(t.valid_unknown()));
}

// The run's opening lines: the model and the task, a data file's counts, and what --save,
// --resume, --load and a raised --steps mean for this run.
void print_start(const TrainPlan& plan, const Model& model, const Trainer& trainer, bool finished) {
  const ModelConfig& config = plan.config;
  const TrainOptions& opt = plan.opt;
  const Task* task = plan.task.get();
  const std::string& save = plan.save;
  std::printf("training %s (%s, %lld parameters) on %s, %lld steps of %lld sequences\n", config.model.c_str(),
              config.shape().c_str(), static_cast<long long>(model.num_parameters()), task->name().c_str(),
              static_cast<long long>(opt.steps), static_cast<long long>(opt.batch));
  if (const auto* d = dynamic_cast<const DataTask*>(task)) {
    const DataCounts& c = d->train_counts();
    const DataCounts& v = d->valid().counts;
    std::printf("data %s: %lld lines, %lld pairs longer than --max-len %lld skipped\n", terminal_safe(plan.data).c_str(),
                static_cast<long long>(c.lines), static_cast<long long>(c.skipped),
                static_cast<long long>(d->options().max_len));
    std::printf("training %lld pairs, validation %lld%s\n", static_cast<long long>(c.pairs),
                static_cast<long long>(v.pairs), plan.valid.empty() ? "" : (" (from " + terminal_safe(plan.valid) + ")").c_str());
    std::printf("vocabularies: source %lld, target %lld (specials and <unk> included; --min-count %lld)\n",
                static_cast<long long>(d->src_vocab().size()), static_cast<long long>(d->tgt_vocab().size()),
                static_cast<long long>(d->options().min_count));
    std::printf("<unk>: training %lld of %lld source and %lld of %lld target tokens; validation %lld of %lld and "
                "%lld of %lld\n",
                static_cast<long long>(c.src_unknown), static_cast<long long>(c.src_tokens),
                static_cast<long long>(c.tgt_unknown), static_cast<long long>(c.tgt_tokens),
                static_cast<long long>(v.src_unknown), static_cast<long long>(v.src_tokens),
                static_cast<long long>(v.tgt_unknown), static_cast<long long>(v.tgt_tokens));
  }
  if (const auto* t = dynamic_cast<const TextTask*>(task)) print_text_counts(plan, *t);
  if (save.empty()) std::printf("no --save FILE: the trained model will be discarded when heed exits\n");
  if (!plan.resume.empty())
    std::printf("resuming %s at step %lld\n", terminal_safe(plan.resume).c_str(),
                static_cast<long long>(trainer.steps_done()));
  if (!plan.load.empty()) std::printf("starting from the weights of %s\n", terminal_safe(plan.load).c_str());
  if (finished)
    std::printf("%s is a finished run (step %lld of %lld): nothing left to train; give --steps above %lld to "
                "train on\n",
                terminal_safe(plan.resume).c_str(), static_cast<long long>(trainer.steps_done()),
                static_cast<long long>(opt.steps),
                static_cast<long long>(opt.steps));
  if (!plan.resume.empty() && opt.steps > plan.recorded_steps && opt.schedule == "linear") {
    TrainOptions before = opt;
    before.steps = plan.recorded_steps;
    const int64_t at = trainer.steps_done();
    std::printf("--steps raised from %lld to %lld: the linear schedule now decays the rate to 0 at step %lld, so at "
                "step %lld it is %.6g (it was %.6g)\n",
                static_cast<long long>(plan.recorded_steps), static_cast<long long>(opt.steps),
                static_cast<long long>(opt.steps), static_cast<long long>(at), scheduled_lr(opt, at),
                scheduled_lr(before, at));
  }
  std::fflush(stdout);
}

// The steps to the last, with --watch and --film taking their snapshots on the way. Returns the
// exit status: a signal's (the run saved with --save, *stopped set), else the film's (2 when it
// could not be written). The losses, tokens and time in r.
int train_steps(const TrainPlan& plan, Model& model, Trainer& trainer, Watcher* watcher, TrainResult& r,
                bool& stopped) {
  const TrainOptions& opt = plan.opt;
  const std::string& save = plan.save;
  Reporter reporter(opt.steps, trainer.steps_done());
  if (watcher) watcher->start(model, trainer.steps_done());  // a resumed film starts where the run does
  auto report = [&](const Progress& p) {
    if (watcher) watcher->on_step(model, p);
    if (!watcher || !watcher->draws_progress()) reporter(p);
    if (run_observer().after_step) run_observer().after_step(model, p);
  };
  // The film is optional: when it cannot be written, the run (already saved) is not lost; the
  // failure is reported and the exit status is 2.
  auto finish_film = [&]() -> int {
    if (!watcher) return 0;
    try {
      watcher->finish();
      return 0;
    } catch (const Error& e) {
      std::fprintf(stderr, "heed train: --film: %s\n",
                   terminal_safe(e.what() + (save.empty() ? "" : "; the run itself is saved to " + save)).c_str());
      return 2;
    }
  };
  RunGuard guard(plan, model, trainer);  // SIGINT, SIGTERM, SIGHUP, SIGPIPE and --checkpoint-every
  auto start = std::chrono::steady_clock::now();
  while (!trainer.done()) {
    Progress p = trainer.step();
    report(p);
    if (int status = guard.after_step()) {  // saved (with --save); then the film so far
      finish_film();
      stopped = true;
      return status;
    }
  }
  r.losses = trainer.recent_losses();
  r.target_tokens = trainer.target_tokens();
  r.seconds = std::chrono::duration<real>(std::chrono::steady_clock::now() - start).count();
  // The checkpoint first, then the film: an optional output never costs the run.
  if (int status = guard.finish()) {
    finish_film();
    stopped = true;
    return status;
  }
  return finish_film();
}

// The end of a run: its loss over the last steps, its score on held-out data (a data file's
// BLEU, the repeat task's two copies, the German grammar's loss, or exact accuracy), where it
// was saved and, with --json, all of it as one line.
void print_result(const TrainPlan& plan, const Model& model, const TrainResult& r, bool finished) {
  const ModelConfig& config = plan.config;
  const TrainOptions& opt = plan.opt;
  const Task* task = plan.task.get();
  const int64_t seed = plan.seed, eval_samples = plan.eval_samples;
  const std::string& save = plan.save;
  int64_t tail = std::min<int64_t>(50, static_cast<int64_t>(r.losses.size()));
  real loss = 0;
  for (int64_t i = 0; i < tail; ++i) loss += r.losses[r.losses.size() - 1 - i];
  loss = tail > 0 ? loss / static_cast<real>(tail) : std::nan("");  // NaN: no step was taken
  // A data file: the first --eval-samples validation pairs, in order, with BLEU and perplexity.
  const auto* data = dynamic_cast<const DataTask*>(task);
  PairScore scored;
  if (data && !data->valid().pairs.empty()) scored = score_pairs(model, data->tgt_vocab(), data->valid(), eval_samples);
  // A decoder-only model is scored by its loss on each copy of the repeat task (it decodes no
  // source, so greedy decoding has nothing to be right about).
  const auto* repeat = dynamic_cast<const RepeatTask*>(task);
  const bool halves = config.is_decoder() && repeat;
  HalvesLoss half;
  if (halves) half = repeat_halves_loss(model, *repeat, eval_samples, static_cast<uint64_t>(seed) + 7777777);
  // A model of the German grammar: its held-out loss and how many of its samples are sentences.
  const auto* german = dynamic_cast<const GermanTask*>(task);
  LanguageScore language;
  if (german)
    language = score_language(model, *german, eval_samples, eval_samples, static_cast<uint64_t>(seed) + 7777777);
  // A text: the loss by position on the validation windows, and the in-context learning score.
  const auto* text = dynamic_cast<const TextTask*>(task);
  PositionLoss by_position;
  const bool text_scored = text && static_cast<int64_t>(text->valid_tokens().size()) >= text->options().context;
  if (text_scored) by_position = position_loss(model, *text, text->valid_tokens(), eval_samples);
  Accuracy acc = data                ? scored.acc
                 : halves || german || text ? Accuracy{}
                                     : evaluate_held_out(model, *task, eval_samples, static_cast<uint64_t>(seed) + 7777777);
  real tokens_per_second = r.seconds > 0 ? r.target_tokens / r.seconds : 0;
  if (finished)  // nothing was trained: the loss is the run's, as it ended
    std::printf("the run was already complete; loss %.4f\n", loss);
  else
    std::printf("trained in %s (%.0f target tokens/s); loss %.4f\n", format_duration(r.seconds).c_str(),
                tokens_per_second, loss);
  if (data && scored.pairs > 0)
    std::printf("validation: exact %.3f, token %.3f, BLEU %.4f, perplexity %.3f (%lld pairs)\n", acc.exact(),
                acc.token(), scored.bleu, scored.perplexity, static_cast<long long>(scored.pairs));
  else if (data)
    std::printf("validation: no pairs to score\n");
  else if (halves)
    std::printf("held-out: loss %.4f on the first copy, %.4f on the repeated one, %.4f on it from its 2nd symbol, "
                "log V %.4f (%lld sequences)\n",
                half.first, half.repeated, half.in_context, math::log(static_cast<real>(repeat->num_symbols())),
                static_cast<long long>(half.sequences));
  else if (text_scored)
    std::printf("validation: loss %.4f per token, in-context learning score %.4f (loss at token %lld minus token "
                "%lld; %lld windows)\n",
                by_position.mean, icl_score(by_position.by_position),
                static_cast<long long>(icl_positions(text->options().context).late),
                static_cast<long long>(icl_positions(text->options().context).early),
                static_cast<long long>(by_position.windows));
  else if (text)
    std::printf("validation: no validation text to score\n");
  else if (german)
    std::printf("held-out: loss %.4f per token, perplexity %.3f (%lld sentences); samples in the grammar: %lld of "
                "%lld (%lld of them held-out sentences)\n",
                language.loss, language.perplexity, static_cast<long long>(language.sentences),
                static_cast<long long>(language.grammatical), static_cast<long long>(language.samples),
                static_cast<long long>(language.held_out));
  else
    std::printf("held-out: exact %.3f, token %.3f (%lld sequences)\n", acc.exact(), acc.token(),
                static_cast<long long>(acc.n));
  if (!save.empty()) std::printf("saved to %s\n", terminal_safe(save).c_str());
  if (plan.json) {
    Json j = Json::object({{"task", task->name()},
                           {"model", config.model},
                           {"cell", config.cell},
                           {"dtype", kRealName},
                           {"threads", threads()},
                           {"steps", opt.steps},
                           {"seconds", r.seconds},
                           {"loss", std::isnan(loss) ? Json() : Json(loss)},  // null: no step taken
                           {"exact", acc.exact()},
                           {"token", acc.token()},
                           {"tokens_per_second", tokens_per_second}});
    if (halves) {
      j.set("loss_first", half.first);
      j.set("loss_repeated", half.repeated);
      j.set("loss_in_context", half.in_context);
    }
    if (german) {
      j.set("loss_per_token", language.loss);
      j.set("perplexity", language.perplexity);
      j.set("samples_in_grammar", language.grammatical_share());
    }
    if (text_scored) {
      j.set("loss_per_token", by_position.mean);
      j.set("icl_score", icl_score(by_position.by_position));
      j.set("windows", by_position.windows);
    }
    if (data && scored.pairs > 0) {
      j.set("bleu", scored.bleu);
      j.set("perplexity", scored.perplexity);
      j.set("pairs", scored.pairs);
    }
    std::printf("%s\n", j.dump().c_str());
  }
}

}  // namespace

int cmd_train(const std::vector<std::string>& argv) {
  TrainPlan plan = parse_train_flags(argv);
  if (plan.help) {
    std::printf(kHelp, kTransformerHelp);
    std::fputs(kWatchHelp, stdout);
    return 0;
  }
  check_outputs(plan);
  std::unique_ptr<Watcher> watcher;  // --watch, --film
  if (plan.watch.any()) watcher = std::make_unique<Watcher>(plan.watch, *plan.task, plan.config, plan.opt, plan.seed);
  if (watcher && !plan.resume.empty()) watcher->continue_film(plan.resumed_step);  // never replace its frames

  LoadedModel run = make_run_model(plan);
  Model& model = *run.model;
  Trainer trainer(model, *plan.task, plan.opt);
  restore_run(plan, run, trainer);
  const bool finished = !plan.resume.empty() && trainer.done();
  print_start(plan, model, trainer, finished);
  TrainResult r;
  bool stopped = false;
  const int status = train_steps(plan, model, trainer, watcher.get(), r, stopped);
  if (stopped) return status;
  print_result(plan, model, r, finished);
  return status;
}

}  // namespace heed
