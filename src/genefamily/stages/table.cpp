// The gene-family stage table: one row per stage, in plan order. A new stage
// is one file in this folder and one row here.
#include "genefamily/stages/stage_common.h"

namespace bioagent {

namespace {

// The stage rows; the report reads every stage that has a report section (its `uses`), so a new
// stage with a section is reported without another list naming it.
std::vector<StageSpec> stage_rows() {
  std::vector<StageSpec> rows = {gf::check_stage(),       gf::identify_stage(),   gf::phylogeny_stage(),
                                 gf::domain_stage(),      gf::properties_stage(), gf::classify_stage(),
                                 gf::motif_stage(),       gf::structure_stage(),  gf::chromosome_stage(),
                                 gf::panel_stage(),       gf::promoter_stage(),   gf::synteny_stage(),
                                 gf::duplication_stage(), gf::kaks_stage(),       gf::ppi_stage(),
                                 gf::expression_stage(),  gf::report_stage()};
  for (auto& report : rows)
    if (report.name == "report")
      for (auto& s : rows)
        if (s.report && s.name != "report" && s.name != "check" && s.name != "identify") report.uses.push_back(s.name);
  return rows;
}

}  // namespace

const Pipeline& genefamily_pipeline() {
  static const Pipeline kPipeline(stage_rows());
  return kPipeline;
}

}  // namespace bioagent
