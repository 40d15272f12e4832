// What the heed subcommands share: building a task and model from flags or from a
// checkpoint's metadata, and printing.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/seq2seq.h"
#include "models/tasks.h"
#include "models/train.h"
#include "tools/args.h"
#include "tools/watch.h"

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
  WatchPlan watch;  // --watch, --film, --watch-every
};
TrainPlan parse_train_flags(const std::vector<std::string>& argv);

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
