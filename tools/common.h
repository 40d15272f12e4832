// What the heed subcommands share: building a task and model from flags or from a
// checkpoint's metadata, and printing.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "models/seq2seq.h"
#include "models/tasks.h"
#include "models/train.h"
#include "tools/args.h"

namespace heed {

int cmd_train(const std::vector<std::string>& argv);
int cmd_eval(const std::vector<std::string>& argv);
int cmd_predict(const std::vector<std::string>& argv);
int cmd_bench(const std::vector<std::string>& argv);

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
};
TrainPlan parse_train_flags(const std::vector<std::string>& argv);

// The transformer's flags (--layers, --heads, --ff, --norm-first, --positions, --dropout) into
// c; for any other model, using one of them is an error naming it.
void read_transformer_flags(const Args& a, ModelConfig& c);
// The flags read_transformer_flags knows: valued, then switches.
inline const std::vector<std::string> kTransformerFlags = {"--layers", "--heads", "--ff", "--positions", "--dropout"};
inline const char* kTransformerSwitch = "--norm-first";
inline const char* kTransformerHelp =
    "  --layers N, --heads K, --ff F   transformer: N encoder and N decoder layers, K heads of\n"
    "                            embed/K features, a feed-forward of F units (2, 4, 128)\n"
    "  --norm-first              transformer: pre-norm layers (default post-norm, as the paper)\n"
    "  --positions sinusoidal|learned  transformer: position vectors (sinusoidal)\n"
    "  --dropout P               transformer: dropout rate in training (0)\n";

// The checkpoint's metadata: the model's configuration plus the task that trained it.
std::map<std::string, std::string> checkpoint_metadata(const ModelConfig& config, const Task& task,
                                                       const std::map<std::string, std::string>& extra);

struct LoadedModel {
  std::map<std::string, std::string> metadata;
  std::unique_ptr<Task> task;
  std::unique_ptr<Seq2Seq> model;
};

// Reads a checkpoint written by `heed train --save`, rebuilds its task and model and loads the
// weights. Errors name the file and what does not fit.
LoadedModel load_model(const std::string& path);

// "12.3s", "4m05s", "1h02m".
std::string format_duration(real seconds);

}  // namespace heed
