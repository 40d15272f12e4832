// What the heed subcommands share: building a task and model from flags or from a
// checkpoint's metadata, and printing.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "models/model.h"
#include "models/tasks/tasks.h"
#include "models/train.h"
#include "tensor/threads.h"  // threads(), for the --json lines
#include "tools/args.h"
#include "tools/train_watch.h"

namespace heed {

int cmd_train(const std::vector<std::string>& argv);
int cmd_eval(const std::vector<std::string>& argv);
int cmd_predict(const std::vector<std::string>& argv);
int cmd_sample(const std::vector<std::string>& argv);
int cmd_bench(const std::vector<std::string>& argv);
int cmd_data(const std::vector<std::string>& argv);
int cmd_trace(const std::vector<std::string>& argv);

// What a program built on heed's commands may watch in the runs they make (heed itself watches
// nothing; tests/faults/heed_faults.cpp stops a run at a chosen point with it, as a user's Ctrl-C
// or a second writer would). Each part is optional.
struct RunObserver {
  // heed train: a step is done (the model as trained so far), before the run looks for a signal.
  std::function<void(Model& model, const Progress& p)> after_step;
  // heed train: a checkpoint is written whole to `temp_path`, not yet renamed over its file.
  std::function<void(const std::string& temp_path)> before_save;
  // load_model: the checkpoint `path`'s header is read and checked, its tensors not yet.
  std::function<void(const std::string& path)> after_header;
};
// Replaces the process's observer; run_observer() is the one in place (all parts empty at first).
void set_run_observer(RunObserver observer);
const RunObserver& run_observer();

// The checkpoint format heed writes and reads ("heed-seq2seq-2"; docs/checkpoints.md).
extern const char* const kFormat;

// What `heed train` was asked to do: its flags read and checked -- ranges, the model's size
// and a step's memory -- with nothing large built yet. Throws heed::Error on any mistake.
struct TrainPlan {
  bool help = false;  // --help: print the help, nothing else is read
  std::unique_ptr<Task> task;
  ModelConfig config;
  TrainOptions opt;
  int64_t seed = 1, eval_samples = 500;
  std::string save;  // empty: do not save
  bool json = false;
  std::string data, valid;     // --data F, --valid F: a data file as the task (models/tasks/data.h)
  std::string resume;          // --resume F: continue the run saved in F (tools/train_state.h)
  std::string load;            // --load F: a new run from F's weights
  int64_t resumed_step = 0;    // --resume: the step F reached
  int64_t recorded_steps = 0;  // --resume: the --steps F recorded (opt.steps may raise it)
  int64_t checkpoint_every = 0;  // also save every N steps (0: only at the end and on a signal)
  bool weights_only = false;   // the final save holds no training state
  bool force = false;          // --force: outputs are replaced even when write-protected
  WatchPlan watch;  // --watch, --film, --watch-every
};
TrainPlan parse_train_flags(const std::vector<std::string>& argv);

// The transformer's flags (--layers, --heads, --ff, --norm-first, --positions, --dropout, and
// heed train's --share-embeddings) into
// c; for any other model, using one of them is an error naming it. With the transformer, the
// recurrent models' flags (--cell, --hidden, --bidirectional, --input-feeding) are errors too.
void read_transformer_flags(const Args& a, ModelConfig& c);
// The flags of heed train that build config's model, as heed accepts them for that kind:
// "--model additive --cell gru --embed 32 --hidden 64",
// "--model transformer --embed 32 --layers 2 --heads 4 --ff 128".
std::string model_flags(const ModelConfig& c);
// The flags read_transformer_flags knows: valued, then switches.
inline const std::vector<std::string> kTransformerFlags = {"--layers", "--heads", "--ff", "--positions", "--dropout"};
inline const char* kTransformerSwitch = "--norm-first";
inline const char* kAttentionOnlySwitch = "--attention-only";  // --model decoder only
// heed train's alone (bench does not take it): the output layer reads the target embedding.
inline const char* kShareEmbeddings = "--share-embeddings";
inline const char* kTransformerHelp =
    "  --layers N, --heads K, --ff F   transformer: N encoder and N decoder layers, K heads of\n"
    "                            embed/K features, a feed-forward of F units (2, 4, 128)\n"
    "  --norm-first              transformer: pre-norm layers (default post-norm, as the paper)\n"
    "  --positions sinusoidal|learned  transformer: position vectors (sinusoidal)\n"
    "  --dropout P               transformer: dropout rate in training (0)\n";

// The checkpoint's metadata: the model's configuration plus the task that trained it, with
// both vocabularies as "src_tokens" and "tgt_tokens": every token by id, separated by single
// spaces ("<pad> <bos> <eos> ich habe ..."), so any safetensors reader gets the words back.
std::map<std::string, std::string> checkpoint_metadata(const ModelConfig& config, const Task& task,
                                                       const std::map<std::string, std::string>& extra);

struct LoadedModel {
  std::map<std::string, std::string> metadata;
  std::unique_ptr<Task> task;
  std::unique_ptr<Model> model;
  std::vector<NamedTensor> training;  // the training state's tensors (kTrainingPrefix), if any
  Vocab src_vocab, tgt_vocab;  // the file's vocabularies (what predict reads and prints)
};

// Throws heed::Error "not a safetensors file" when `path` is readable and at least 9 bytes
// long but does not start like one (text, an image, a PyTorch .pt file); other problems are
// left to the safetensors reader, whose messages name them.
void check_safetensors_signature(const std::string& path);

// Reads a checkpoint written by `heed train --save`, rebuilds its task and model and loads the
// weights. Errors name the file and what does not fit; a file of an older format is refused
// with the change that made it old. The vocabularies are the file's (see check_task_vocab).
LoadedModel load_model(const std::string& path);
// Throws unless the task rebuilt from the file's metadata has the file's vocabularies, token
// for token: eval and --resume draw their data from the task.
void check_task_vocab(const LoadedModel& m, const std::string& path);
// The model's configuration and task recorded in a checkpoint's metadata, checked; the file's
// header is read, its tensors are not.
ModelConfig checkpoint_config(const std::string& path, const std::map<std::string, std::string>& metadata);
std::unique_ptr<Task> checkpoint_task(const std::string& path, const std::map<std::string, std::string>& metadata);

// "12.3s", "4m05s", "1h02m".
std::string format_duration(real seconds);

}  // namespace heed
