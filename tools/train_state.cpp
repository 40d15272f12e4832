#include "tools/train_state.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "io/os.h"
#include "io/parse.h"
#include "io/utf8.h"
#include "models/tasks/data.h"
#include "models/tasks/text.h"
#include "nn/checkpoint.h"
#include "tools/bench.h"  // program_as_invoked
#include "tools/signals.h"
#include "tools/train_watch.h"

namespace heed {

namespace {

// Metadata keys of the training state; tensors are kTrainingPrefix + "exp_avg." + parameter
// name, kTrainingPrefix + "exp_avg_sq." + name and kTrainingPrefix + "recent_losses".
const char* kStep = "training.step";
const char* kAdamSteps = "training.adam_steps";
const char* kDataGenerator = "training.data_generator";
const char* kDropoutGenerator = "training.dropout_generator";  // only for a model with dropout

std::string exact(real x) {  // a real as text that reads back to the same bits
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(x));
  return buf;
}

std::string meta_text(const std::string& path, const std::map<std::string, std::string>& meta, const std::string& key) {
  auto it = meta.find(key);
  if (it == meta.end()) throw Error("train: --resume " + path + ": its metadata has no '" + key + "'");
  return it->second;
}

// Every number of the metadata has the range of the flag that set it (a checkpoint is a file
// users exchange, and a crafted one must not overflow a counter or evaluate forever).
constexpr int64_t kMaxSteps = 100000000;  // --steps, --checkpoint-every

int64_t meta_int(const std::string& path, const std::map<std::string, std::string>& meta, const std::string& key,
                 int64_t lo = 0, int64_t hi = std::numeric_limits<int64_t>::max()) {
  return parse_int64(meta_text(path, meta, key), "train: --resume " + path + ": metadata '" + key + "'", lo, hi);
}

// A real in [lo, hi] (lo itself excluded when open_lo).
real meta_real(const std::string& path, const std::map<std::string, std::string>& meta, const std::string& key,
               double lo, double hi, bool open_lo) {
  std::string s = meta_text(path, meta, key);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v) || v < lo || (open_lo && v == lo) || v > hi) {
    char range[64];
    std::snprintf(range, sizeof range, "%s%g, %g]", open_lo ? "(" : "[", lo, hi);
    throw Error("train: --resume " + path + ": metadata '" + key + "' is '" + s + "', not a number in " + range);
  }
  return static_cast<real>(v);
}

// A path as the shell reads it back: quoted unless it is plain.
std::string shell_word(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-+=:") ==
                        std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A resumed run reads its file again: it must be the one it trained on, by the FNV-1a
// fingerprint recorded under `key`. `what`: "file" (of pairs) or "text".
void check_same_file(const Args& a, const std::string& path, const std::map<std::string, std::string>& meta,
                     const std::string& key, uint64_t fingerprint, const std::string& file, const std::string& what) {
  char hex[20];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fingerprint));
  if (hex != meta_text(path, meta, key))
    throw a.error("--resume " + path + ": " + file + " is not the " + what + " the run trained on (FNV-1a fingerprint " +
                  hex + ", the run recorded " + meta_text(path, meta, key) + "); give the original with --data FILE");
}

// A text run (models/tasks/text.h): its file read again (the recorded path, or --data if it has
// moved) with the recorded settings, and checked to be the same file.
void resume_text(const Args& a, const std::string& path, const std::map<std::string, std::string>& meta,
                 TrainPlan& plan) {
  plan.data = a.text("--data", meta_text(path, meta, "text.path"));
  std::unique_ptr<TextTask> task;
  try {
    const TextOptions opt = TextTask::options_from_metadata(meta, "train: --resume " + path);
    plan.valid = opt.valid_path;
    task = std::make_unique<TextTask>(plan.data, opt);
  } catch (const Error& e) {
    throw a.error("--resume " + path + ": " + e.what() + (a.has("--data") ? "" : " (if the file has moved, give it with --data FILE)"));
  }
  check_same_file(a, path, meta, "text.fingerprint", task->fingerprint(), plan.data, "text");
  plan.task = std::move(task);
}

}  // namespace

TrainPlan plan_from_checkpoint(const Args& a) {
  const std::string path = a.text("--resume", "");
  for (const char* flag : {"--task", "--model", "--cell", "--vocab", "--min-len", "--max-len", "--embed", "--hidden",
                           "--batch", "--lr", "--schedule", "--warmup", "--label-smoothing", "--clip", "--seed", "--eval-samples", "--load",
                           "--bidirectional", "--input-feeding", "--layers", "--heads", "--ff", "--positions",
                           "--dropout", "--norm-first", "--share-embeddings", "--valid", "--valid-fraction", "--min-count", "--lower",
                           "--context", "--chars"})
    if (a.has(flag))
      throw a.error(std::string(flag) + " cannot be given with --resume: the run continues with the settings " +
                    path + " recorded (only --steps, --save, --checkpoint-every, --weights-only, --json, --force, --watch, "
                    "--film, --watch-every and the film's --attention, --layer and --head may change)");
  std::map<std::string, std::string> meta;
  ModelConfig config;
  try {
    meta = read_checkpoint_metadata(path);
    config = checkpoint_config(path, meta);
  } catch (const Error& e) {
    throw a.error(std::string("--resume: ") + e.what());
  }
  if (!meta.count(kStep))
    throw a.error("--resume " + path +
                  ": the file holds no training state (it was saved with --weights-only, or is not a training "
                  "checkpoint); start a new run from its weights with --load " + path);
  const bool data = meta.count("task") && meta.at("task") == "data";
  const bool text = meta.count("task") && meta.at("task") == "text";
  if (a.has("--data") && !data && !text)
    throw a.error("--data is for resuming a run trained on a data file; " + path + " was not");
  TrainPlan plan;
  plan.resume = path;
  if (text) {
    resume_text(a, path, meta, plan);
  } else if (data) {
    // The pairs are not in the checkpoint: read the file again (its path as recorded, or
    // --data if it has moved) with the recorded settings, and make sure it is the same file.
    plan.data = a.text("--data", meta_text(path, meta, "data.path"));
    DataOptions opt;
    opt.tok.lower = meta_int(path, meta, "data.lower", 0, 1) == 1;
    opt.min_count = meta_int(path, meta, "data.min_count", 1);
    opt.max_len = meta_int(path, meta, "data.max_len", 1, SymbolTask::kMaxLength);
    opt.valid_path = meta_text(path, meta, "data.valid");
    opt.valid_fraction = meta_real(path, meta, "data.valid_fraction", 0, 0.99, false);
    plan.valid = opt.valid_path;
    std::unique_ptr<DataTask> task;
    try {
      task = std::make_unique<DataTask>(plan.data, opt);
    } catch (const Error& e) {
      throw a.error("--resume " + path + ": " + e.what() + (a.has("--data") ? "" : " (if the file has moved, give it with --data FILE)"));
    }
    check_same_file(a, path, meta, "data.fingerprint", task->fingerprint(), plan.data, "file");
    plan.task = std::move(task);
  } else {
    plan.task = checkpoint_task(path, meta);
  }
  plan.config = config;
  plan.seed = meta_int(path, meta, "seed");
  plan.resumed_step = meta_int(path, meta, kStep, 0, kMaxSteps);
  TrainOptions& opt = plan.opt;
  opt.steps = meta_int(path, meta, "steps", 0, kMaxSteps);
  opt.batch = meta_int(path, meta, "batch", 1, 100000);
  opt.lr = meta_real(path, meta, "lr", 0, 10, true);
  opt.schedule = meta_text(path, meta, "schedule");
  if (opt.schedule != "linear" && opt.schedule != "constant" && opt.schedule != "warmup")
    throw a.error("--resume " + path + ": metadata 'schedule' is '" + opt.schedule +
                  "', not linear, constant or warmup");
  // Written only by the runs that use them, so that the other checkpoints keep their bytes.
  if (opt.schedule == "warmup") opt.warmup = meta_int(path, meta, "warmup", 1, kMaxSteps);
  if (meta.count("label_smoothing")) opt.label_smoothing = meta_real(path, meta, "label_smoothing", 0, 0.99, true);
  opt.clip = meta_real(path, meta, "clip", 0, 1e6, false);
  opt.seed = static_cast<uint64_t>(plan.seed) + 1000003;  // as parse_train_flags
  plan.eval_samples = meta_int(path, meta, "eval_samples", 1, 1000000);  // as --eval-samples
  if (plan.resumed_step > opt.steps)
    throw a.error("--resume " + path + ": it records step " + std::to_string(plan.resumed_step) + " of a " +
                  std::to_string(opt.steps) + "-step run");
  plan.recorded_steps = opt.steps;
  opt.steps = a.integer("--steps", opt.steps, 0, 100000000);
  if (opt.steps < plan.resumed_step)
    throw a.error("--steps " + std::to_string(opt.steps) + " is below step " + std::to_string(plan.resumed_step) +
                  ", which " + path + " has reached");
  plan.save = a.text("--save", path);
  plan.checkpoint_every = a.integer("--checkpoint-every", 0, 0, 100000000);
  plan.weights_only = a.has("--weights-only");
  plan.force = a.has("--force");
  plan.json = a.has("--json");
  plan.watch = parse_watch_flags(a, plan.config);  // a resumed film starts at the step resumed
  choose_film_heads(a, plan.config, plan.watch);         // continued only if the film drew the same
  check_step_memory(plan.config, opt.batch, plan.task->max_len());
  return plan;
}

void adopt_loaded_model(TrainPlan& plan, const Args& a) {
  const std::string path = a.text("--load", "");
  std::map<std::string, std::string> meta;
  ModelConfig loaded;
  try {
    meta = read_checkpoint_metadata(path);
    loaded = checkpoint_config(path, meta);
  } catch (const Error& e) {
    throw a.error(std::string("--load: ") + e.what());
  }
  const ModelConfig& flags = plan.config;
  auto differs = [&](const char* flag, const std::string& given, const std::string& file) {
    if (a.has(flag) && given != file)
      throw a.error(std::string(flag) + " " + given + " differs from the model in " + path + " (" + file +
                    "); --load keeps the model's shape");
  };
  differs("--model", flags.model, loaded.model);
  differs("--cell", flags.cell, loaded.cell);
  differs("--embed", std::to_string(flags.embed), std::to_string(loaded.embed));
  differs("--hidden", std::to_string(flags.hidden), std::to_string(loaded.hidden));
  if (a.has("--share-embeddings") && !loaded.share_embeddings)
    throw a.error("--share-embeddings differs from the model in " + path +
                  " (its output layer has a weight of its own); --load keeps the model's shape");
  if (a.has("--bidirectional") && !loaded.bidirectional)
    throw a.error("--bidirectional differs from the model in " + path + " (one direction); --load keeps the model's shape");
  if (flags.src_vocab != loaded.src_vocab || flags.tgt_vocab != loaded.tgt_vocab)
    throw a.error("--load " + path + ": task " + plan.task->name() + " has vocabularies of " +
                  std::to_string(flags.src_vocab) + " and " + std::to_string(flags.tgt_vocab) +
                  " tokens, the model reads " + std::to_string(loaded.src_vocab) + " and " +
                  std::to_string(loaded.tgt_vocab));
  // Only a model with a row per source position (location attention, learned positions) has a
  // longest source; the others read any length (ModelConfig::source_limit).
  if (plan.task->max_len() > loaded.source_limit())
    throw a.error("--load " + path + ": sources of up to " + std::to_string(plan.task->max_len()) +
                  " tokens are longer than the " + std::to_string(loaded.source_limit()) + " the model reads");
  plan.config = loaded;
  plan.load = path;
  check_step_memory(plan.config, plan.opt.batch, plan.task->max_len());
}

LoadedModel make_run_model(const TrainPlan& plan) {
  const std::string& path = !plan.resume.empty() ? plan.resume : plan.load;
  if (path.empty()) {
    LoadedModel run;
    Generator gen(static_cast<uint64_t>(plan.seed));
    run.model = make_model(plan.config, gen);
    return run;
  }
  LoadedModel run = load_model(path);
  if (!plan.resume.empty()) check_task_vocab(run, path);
  if (!plan.load.empty() && (run.src_vocab.tokens() != plan.task->src_vocab().tokens() ||
                             run.tgt_vocab.tokens() != plan.task->tgt_vocab().tokens()))
    throw Error("train: --load " + path + ": the model's vocabularies are not task " + plan.task->name() + "'s");
  // The plan was made from a first read of the header; a file replaced since (a run saving
  // every N steps into it) would mix that plan with another state: refused, to be run again.
  if (run.model->config().to_metadata() != plan.config.to_metadata() ||
      (!plan.resume.empty() && meta_int(path, run.metadata, kStep) != plan.resumed_step))
    throw Error("train: " + path + " changed while heed read it; give the command again");
  return run;
}

void restore_run(const TrainPlan& plan, const LoadedModel& run, Trainer& trainer) {
  if (plan.resume.empty()) return;
  const std::string& path = plan.resume;
  const std::map<std::string, std::string>& meta = run.metadata;
  std::map<std::string, const Tensor*> by_name;
  for (const NamedTensor& t : run.training) by_name[t.name] = &t.value;
  auto tensor = [&](const std::string& name) -> const Tensor& {
    auto it = by_name.find(kTrainingPrefix + name);
    if (it == by_name.end())
      throw Error("train: --resume " + path + ": the training state has no tensor " + kTrainingPrefix + name);
    return *it->second;
  };
  TrainingState s;
  s.step = meta_int(path, meta, kStep, 0, kMaxSteps);
  s.adam_steps = meta_int(path, meta, kAdamSteps, 0, kMaxSteps);
  s.data_generator = meta_text(path, meta, kDataGenerator);
  if (meta.count(kDropoutGenerator)) s.dropout_generator = meta_text(path, meta, kDropoutGenerator);
  for (const auto& [name, p] : run.model->named_parameters()) {
    s.exp_avg.push_back(tensor("exp_avg." + name));
    s.exp_avg_sq.push_back(tensor("exp_avg_sq." + name));
  }
  const bool has_losses = by_name.count(kTrainingPrefix + "recent_losses") != 0;
  if (has_losses) s.recent_losses = tensor("recent_losses").to_vector();
  if (by_name.size() != 2 * s.exp_avg.size() + (has_losses ? 1 : 0))
    throw Error("train: --resume " + path + ": its training state holds tensors this model has no parameter for");
  try {
    trainer.restore(s);
  } catch (const Error& e) {
    throw Error("train: --resume " + path + ": " + e.what());
  }
}

void save_run(const TrainPlan& plan, const Model& model, const Trainer& trainer, const std::string& path,
              bool weights_only) {
  const TrainOptions& opt = plan.opt;
  std::map<std::string, std::string> run = {{"seed", std::to_string(plan.seed)},
                                            {"steps", std::to_string(opt.steps)},
                                            {"batch", std::to_string(opt.batch)},
                                            {"lr", exact(opt.lr)},
                                            {"schedule", opt.schedule},
                                            {"clip", exact(opt.clip)},
                                            {"eval_samples", std::to_string(plan.eval_samples)}};
  if (opt.schedule == "warmup") run["warmup"] = std::to_string(opt.warmup);
  if (opt.label_smoothing > 0) run["label_smoothing"] = exact(opt.label_smoothing);
  std::vector<NamedTensor> training;
  if (!weights_only) {
    TrainingState s = trainer.state();
    run[kStep] = std::to_string(s.step);
    run[kAdamSteps] = std::to_string(s.adam_steps);
    run[kDataGenerator] = s.data_generator;
    if (!s.dropout_generator.empty()) run[kDropoutGenerator] = s.dropout_generator;
    auto params = model.named_parameters();
    for (size_t i = 0; i < params.size(); ++i) training.push_back({kTrainingPrefix + "exp_avg." + params[i].first, s.exp_avg[i]});
    for (size_t i = 0; i < params.size(); ++i)
      training.push_back({kTrainingPrefix + "exp_avg_sq." + params[i].first, s.exp_avg_sq[i]});
    if (!s.recent_losses.empty())
      training.push_back({kTrainingPrefix + "recent_losses",
                          Tensor({static_cast<int64_t>(s.recent_losses.size())}, s.recent_losses)});
  }
  save_checkpoint(model, path, checkpoint_metadata(plan.config, *plan.task, run), training,
                  run_observer().before_save);
}

RunGuard::RunGuard(const TrainPlan& plan, const Model& model, const Trainer& trainer)
    : plan_(plan), model_(model), trainer_(trainer), tty_(os::is_terminal(2)) {}

RunGuard::~RunGuard() = default;

int RunGuard::after_step() {
  const int64_t step = trainer_.steps_done();
  if (int sig = signals_.received()) return interrupted(sig);
  if (plan_.checkpoint_every > 0 && step % plan_.checkpoint_every == 0 && !trainer_.done()) {
    save_run(plan_, model_, trainer_, plan_.save, false);
    if (int sig = signals_.received()) return interrupted(sig);  // came during the save: stop at this step, not the next
  }
  return 0;
}

int RunGuard::finish() {
  if (int sig = signals_.received()) return interrupted(sig);
  if (!plan_.save.empty()) save_run(plan_, model_, trainer_, plan_.save, plan_.weights_only);
  signals_.restore();
  const int sig = signals_.received();
  if (!sig) return 0;
  // Came during the final save, which completed: the file holds the finished run.
  if (tty_) std::fputc('\n', stderr);
  std::fprintf(stderr, "heed train: %s at the end of the run; saved to %s\n", signal_name(sig),
               terminal_safe(plan_.save).c_str());
  return 128 + sig;
}

// The command that continues the run: the program as it was invoked, --resume, and the flags
// of this run's outputs (the file of --resume may change only them, and a film is continued).
std::string RunGuard::resume_command() const {
  std::string cmd = shell_word(program_as_invoked()) + " train --resume " + shell_word(plan_.save);
  if (plan_.watch.watch) cmd += " --watch";
  if (!plan_.watch.film.empty()) cmd += " --film " + shell_word(plan_.watch.film);
  if (plan_.watch.any() && plan_.watch.every != kDefaultWatchEvery)
    cmd += " --watch-every " + std::to_string(plan_.watch.every);
  if (plan_.watch.heads) cmd += plan_.watch.heads->flags();
  if (plan_.checkpoint_every > 0) cmd += " --checkpoint-every " + std::to_string(plan_.checkpoint_every);
  if (plan_.weights_only) cmd += " --weights-only";
  if (plan_.force) cmd += " --force";
  if (plan_.json) cmd += " --json";
  return cmd;
}

int RunGuard::interrupted(int sig) {
  const char* name = signal_name(sig);
  const std::string at = "heed train: " + std::string(name) + " at step " + std::to_string(trainer_.steps_done()) +
                         "/" + std::to_string(plan_.opt.steps);
  if (tty_) std::fputc('\n', stderr);  // past the progress bar
  if (plan_.save.empty()) {
    std::fprintf(stderr, "%s; nothing saved (give --save FILE to keep a run that is interrupted)\n", at.c_str());
  } else {
    save_run(plan_, model_, trainer_, plan_.save, false);
    std::fprintf(stderr, "%s; saved to %s; resume with: %s\n", at.c_str(), terminal_safe(plan_.save).c_str(),
                 terminal_safe(resume_command()).c_str());
  }
  std::fflush(stderr);
  return 128 + sig;
}

}  // namespace heed
