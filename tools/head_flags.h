// Which of a Transformer's attention matrices a picture shows: the flags --attention
// cross|encoder|decoder, --layer L and --head K|all, shared by heed predict (which draws them
// from a saved model) and heed train --film/--watch (which film one while the model learns).
// Layers and heads are numbered from 0, as in the weights' names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/config.h"
#include "models/model.h"
#include "tools/args.h"
#include "viz/svg.h"

namespace heed {

struct HeadChoice {
  std::string kind;               // cross, encoder or decoder
  int64_t layers = 0, heads = 0;  // the model's
  int64_t layer = 0;              // -1: every layer (--head all without --layer)
  int64_t head = -1;              // -1: the mean of the heads
  bool all_heads = false;         // --head all

  // "cross-attention, layer 1 (of 0-1), head 3 (of 0-3)": what a title says of the matrix.
  std::string describe() const;
  // The flags that choose it again, each with its value: " --attention cross --layer 1 --head 3"
  // (for the command that resumes a run).
  std::string flags() const;
};

// True when any of --attention, --layer, --head is given.
bool head_flags_given(const Args& a);

// --attention's value (cross when not given); heed::Error when it is not cross, encoder or decoder.
std::string attention_kind(const Args& a);

// The choice of --attention `kind`, --layer and --head for a model of config `c`; heed::Error
// naming the flag, its value and the valid range when it does not fit the model (and when the
// model is not a Transformer: a recurrent model attends once per output step).
HeadChoice choose_heads(const Args& a, const ModelConfig& c, const std::string& kind, bool all_heads);

// The matrices of a choice, taken from one teacher-forced pass's maps (batch 1): one panel per
// layer and head drawn ([layer][head]), or a single one; a panel's weights are head K's, or
// their mean over the heads for head -1.
std::vector<std::vector<HeatmapPanel>> head_panels(const AttentionMaps& maps, const HeadChoice& h);

}  // namespace heed
