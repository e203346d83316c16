// The check stage: naming rules and consistency of the species data.
#include <nlohmann/json.hpp>

#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {

StageSpec check_stage() {
  StageSpec s;
  s.name = "check";
  s.label = "data check";
  s.label_zh = "数据检查";
  s.description = "Naming rules and consistency of the species data (GFF3 vs genome, proteins vs CDS)";
  s.data_files = {"genome", "gff3", "cds", "pep", "hmm"};
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> {
    return std::vector<Step>{StageFn([](const StageContext& ctx) -> Status {
      auto r = check_species_data(ctx.run.value("data_dir", std::string()), ctx.run.value("species", std::string()),
                                  ctx.run.value("family", std::string()), true);
      if (!r) return r.status();
      return write_text(ctx.work / "check.json", r->dump(2));
    })};
  };
  s.outputs = {"check.json"};
  s.parse = [](const StageContext& ctx) -> Result<Json> {
    auto t = read_text(ctx.work / "check.json");
    if (!t) return t.status();
    Json j = Json::parse(*t, nullptr, false);
    return Json{{"ok", j.value("ok", false)},
                {"problems", j.value("problems", Json::array()).size()},
                {"consistency", j.value("consistency", Json::object())}};
  };
  return s;
}

}  // namespace bioagent::gf
