// heed eval --heads's second table: the circuit scores of models/analysis/circuits.h for every head of a
// decoder-only model on the repeat task (prefix matching beside copying, direct logit
// attribution, which heads are induction heads), the Q-, K- and V-composition of every pair of
// heads with the random baseline, as text on stdout, as JSON fields, and as an SVG of heatmaps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/json.h"
#include "models/analysis/heads.h"

namespace heed {

// The random baseline's pairs of heads and its seed: fixed, so a report is the same every time.
inline constexpr int64_t kBaselineSamples = 100;
inline constexpr uint64_t kBaselineSeed = 42;

// Prints the tables; adds "prefix_matching", "copying", "direct_logit" (null for a post-norm model)
// and "induction_head" to each of `rows` (one per head, in the order of `scores`), and
// "composition" and "composition_baseline" to `j`. DLA runs over the `samples` sequences of
// Generator(seed), the ones `scores` were measured on. With a non-empty `svg`, writes the heatmaps
// there (the caller has checked that it may).
void report_circuits(const Model& model, const std::vector<HeadScore>& scores, const RepeatTask& task,
                     int64_t samples, uint64_t seed, Json::Array& rows, Json& j, const std::string& svg);

}  // namespace heed
