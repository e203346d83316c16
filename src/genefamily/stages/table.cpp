// The gene-family stage table: one row per stage, in plan order. A new stage
// is one file in this folder, `<name>.cpp` defining `gf::<name>_stage()`, and
// its row in BIOAGENT_GENEFAMILY_STAGES (CMake compiles every file here).
#include "genefamily/stages/stage_common.h"

// The rows, in plan order: one line per stage.
// clang-format off
#define BIOAGENT_GENEFAMILY_STAGES(ROW) \
  ROW(check) \
  ROW(identify) \
  ROW(phylogeny) \
  ROW(domain) \
  ROW(properties) \
  ROW(classify) \
  ROW(motif) \
  ROW(structure) \
  ROW(chromosome) \
  ROW(panel) \
  ROW(promoter) \
  ROW(synteny) \
  ROW(duplication) \
  ROW(kaks) \
  ROW(ppi) \
  ROW(expression) \
  ROW(report)
// clang-format on

namespace bioagent {

namespace gf {
#define BIOAGENT_DECLARE_STAGE(name) StageSpec name##_stage();
BIOAGENT_GENEFAMILY_STAGES(BIOAGENT_DECLARE_STAGE)
#undef BIOAGENT_DECLARE_STAGE
}  // namespace gf

namespace {

// The stage rows, `extra` before the report; the report reads every stage that has a report
// section (its `uses`), so a new stage with a section is reported without another list naming it.
std::vector<StageSpec> stage_rows(std::vector<StageSpec> extra) {
#define BIOAGENT_STAGE_ROW(name) gf::name##_stage(),
  std::vector<StageSpec> rows = {BIOAGENT_GENEFAMILY_STAGES(BIOAGENT_STAGE_ROW)};
#undef BIOAGENT_STAGE_ROW
  rows.insert(rows.end() - 1, std::make_move_iterator(extra.begin()), std::make_move_iterator(extra.end()));
  for (auto& report : rows)
    if (report.name == "report")
      for (auto& s : rows)
        if (s.report && s.name != "report" && s.name != "identify") report.uses.push_back(s.name);
  return rows;
}

}  // namespace

const Pipeline& genefamily_pipeline() {
  static const Pipeline kPipeline(stage_rows({}));
  return kPipeline;
}

Pipeline genefamily_pipeline_with(std::vector<StageSpec> extra) { return Pipeline(stage_rows(std::move(extra))); }

Json stage_labels(const Pipeline& pipeline) {
  Json out = Json::array();
  for (auto& s : pipeline.stages()) out.push_back({{"name", s.name}, {"label", s.label}, {"label_zh", s.label_zh}});
  return out;
}

}  // namespace bioagent
