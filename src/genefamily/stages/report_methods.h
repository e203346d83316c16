// The report's methods as prose: for each stage that finished, the programs it
// ran with their versions and every parameter it ran with (defaults included),
// read from the stage folder's completion record.
#pragma once

#include <string>
#include <vector>

#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {

// `history`: the run's command records (pipeline_history), whose first argument names the programs a
// stage ran; a program the stage only may run (another method's) is not named.
std::vector<std::string> methods_narrative(const StageContext& ctx, const std::vector<Json>& history, bool zh);

}  // namespace bioagent::gf
