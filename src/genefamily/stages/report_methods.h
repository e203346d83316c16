// The report's methods as prose: for each stage that finished, the programs it
// ran with their versions and every parameter it ran with (defaults included),
// read from the stage folder's completion record.
#pragma once

#include <string>
#include <vector>

#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {

std::vector<std::string> methods_narrative(const StageContext& ctx, bool zh);

}  // namespace bioagent::gf
