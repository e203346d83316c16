// The properties stage: length, MW, pI, instability, aliphatic index and
// GRAVY per member protein.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "genefamily/algo/protein_properties.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {

PkScale pk_scale(const Json& properties_params) {
  return properties_params.value("pk_scale", std::string("expasy")) == "emboss" ? PkScale::kEmboss : PkScale::kExpasy;
}

namespace {

Status properties(const StageContext& ctx) {
  auto pep = read_fasta(ctx.input.at("identify") / final_name(ctx, "pep.fasta"));
  if (!pep) return pep.status();
  std::ostringstream tsv;
  tsv << "gene\tlength\tmolecular_weight_da\tisoelectric_point\tinstability_index\tstable\taliphatic_index\tgravy\n";
  tsv.setf(std::ios::fixed);
  tsv.precision(2);
  const PkScale scale = pk_scale(ctx.params);
  for (auto& r : *pep) {
    ProteinProperties p = protein_properties(r.seq, scale);
    tsv << r.id << '\t' << p.length << '\t' << p.molecular_weight << '\t' << p.isoelectric_point << '\t'
        << p.instability_index << '\t' << (p.instability_index < 40 ? "yes" : "no") << '\t' << p.aliphatic_index
        << '\t';
    tsv.precision(3);
    tsv << p.gravy << '\n';
    tsv.precision(2);
  }
  return write_text(ctx.work / final_name(ctx, "properties.tsv"), tsv.str());
}

}  // namespace

StageSpec properties_stage() {
  StageSpec s;
  s.name = "properties";
  s.label = "physico-chemical properties";
  s.label_zh = "理化性质";
  s.description = "Length, molecular weight, pI, instability index, aliphatic index and GRAVY of each member";
  s.after = {"identify"};
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "pk_scale": {"type": "string", "enum": ["expasy", "emboss"], "default": "expasy", "description": "pK values of the isoelectric point: expasy (ProtParam, Bjellqvist et al. 1993/1994; what gene-family papers report) or emboss (EMBOSS iep's table)"}
    }, "additionalProperties": false})JS");
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> { return std::vector<Step>{StageFn(properties)}; };
  s.outputs = {};
  s.parse = [](const StageContext& ctx) -> Result<Json> {
    size_t rows = 0;
    for (auto& e : fs::directory_iterator(ctx.work / "final"))
      if (e.path().string().find("properties.tsv") != std::string::npos)
        if (auto t = read_text(e.path())) rows = size_t(std::count(t->begin(), t->end(), '\n')) - 1;
    return Json{{"proteins", rows}, {"pk_scale", ctx.params.value("pk_scale", std::string("expasy"))}};
  };
  s.report = [](const ReportContext& r) {
    ReportSection sec = section(r, "properties", {"Physico-chemical properties", "理化性质"});
    if (r.folder.empty()) return sec;
    const bool emboss =
        pk_scale(r.ctx.run.value("params", Json::object()).value("properties", Json::object())) == PkScale::kEmboss;
    sec.paragraphs.push_back(
        BiText{(emboss ? "Isoelectric points use EMBOSS iep's pK values (properties.tsv)."
                       : "Isoelectric points use ExPASy ProtParam's (Bjellqvist) pK values "
                         "(properties.tsv)."),
               (emboss ? "等电点用 EMBOSS iep 的 pK 值计算（properties.tsv）。"
                       : "等电点用 ExPASy ProtParam 的 pK 值（Bjellqvist）计算（properties.tsv）。")}
            .in(r.lang));
    return sec;
  };
  return s;
}

}  // namespace bioagent::gf
