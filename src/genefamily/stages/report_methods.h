// The report's methods as prose: for each stage that finished, the programs it
// ran with their versions and every parameter it ran with (defaults included),
// read from the stage folder's completion record.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {

// The parameters of `stage` that the method it ran does not read, so the methods do not name them: the
// model search's settings after FastTree or a fixed IQ-TREE model, UFBoot's replicates after FastTree, the
// UniProt fetch's settings when references were given, a PWM scan's thresholds without a PWM file, salmon's
// settings for a given matrix, and options left empty (no file given). `summary` is the stage's
// <stage>.json (what ran); `params` the parameters it ran with.
std::set<std::string> parameters_not_used(const std::string& stage, const Json& params, const Json& summary);

// `history`: the run's command records (pipeline_history), whose first argument names the programs a
// stage ran; a program the stage only may run (another method's) is not named.
std::vector<std::string> methods_narrative(const StageContext& ctx, const std::vector<Json>& history, Lang lang);

}  // namespace bioagent::gf
