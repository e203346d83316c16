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
// Each line ends with its citations, numbered in the order first cited; `cited` receives the works' keys in
// that order (for the References section, reference_text).
std::vector<std::string> methods_narrative(const StageContext& ctx, const std::vector<Json>& history, Lang lang,
                                           std::vector<std::string>* cited = nullptr);

// The works a stage's methods cite (keys): the programs it ran (`ran`, lower case) by their papers, the methods
// bioagent implements by the paper each follows; `summary` (the stage's <stage>.json) says which parts of a
// program ran (ModelFinder, UFBoot).
std::vector<std::string> stage_citations(const std::string& stage, const std::set<std::string>& ran,
                                         const Json& summary);
// A work's reference as a journal prints it.
std::string reference_text(const std::string& key);

}  // namespace bioagent::gf

namespace bioagent::gf {

// The figures' exports for a journal: each SVG figure of the run's final/ folder as a vector PDF and a 300 dpi
// PNG, both 180 mm wide (a full page width), by rsvg-convert (librsvg) into the stage's final/ folder; none
// when rsvg-convert is not installed (the outputs list says so).
std::vector<Step> figure_export_steps(const StageContext& ctx);
bool figure_export_available();

// The run's result folder (the run's final/ files and this stage's own) as one zip,
// final/<Prefix>.<Family>.results.zip: every file at the archive's top level, so the report's relative links
// work inside it.
Status write_results_zip(const StageContext& ctx);

}  // namespace bioagent::gf
