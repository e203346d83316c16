// The gene-family stage table: one row per stage, in plan order. A new stage
// is one file in this folder and one row here.
#include "genefamily/stages/stage_common.h"

namespace bioagent {

const Pipeline& genefamily_pipeline() {
  static const Pipeline kPipeline({gf::check_stage(), gf::identify_stage(), gf::phylogeny_stage(), gf::domain_stage(),
                                   gf::properties_stage(), gf::classify_stage(), gf::motif_stage(),
                                   gf::structure_stage(), gf::panel_stage(), gf::chromosome_stage(),
                                   gf::promoter_stage(), gf::synteny_stage(), gf::kaks_stage(), gf::ppi_stage(),
                                   gf::expression_stage(), gf::report_stage()});
  return kPipeline;
}

}  // namespace bioagent
