// The domain stage (per-gene domain architecture and coverage from the
// identify stage's domain table) and the properties stage (length, MW, pI,
// instability, aliphatic index, GRAVY per member protein).
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "genefamily/protein_properties.h"
#include "genefamily/stage_common.h"

namespace bioagent::gf {
namespace {

Status architecture(const StageContext& ctx) {
  auto members = read_members(ctx.input.at("identify"));
  if (!members) return members.status();
  auto text = read_text(ctx.input.at("identify") / "hits.domtbl");
  if (!text) return text.status();
  auto hits = parse_domtblout(*text, "hits.domtbl");
  if (!hits) return hits.status();
  const double dom_evalue = ctx.params["domain_evalue"];
  std::map<std::string, std::vector<const DomainHit*>> by_protein;
  for (auto& h : *hits)
    if (h.i_evalue <= dom_evalue) by_protein[h.target].push_back(&h);
  std::ostringstream tsv;
  tsv << "gene\tprotein\tlength\tdomains\tarchitecture\thmm_coverage\n";
  double sum = 0, min_cov = 1;
  size_t full = 0;
  for (auto& m : *members) {
    auto& doms = by_protein[m.protein];
    std::sort(doms.begin(), doms.end(), [](auto* a, auto* b) { return a->ali_from < b->ali_from; });
    std::string arch;
    for (auto* d : doms)
      arch +=
          (arch.empty() ? "" : ";") + d->query + ":" + std::to_string(d->env_from) + "-" + std::to_string(d->env_to);
    tsv << m.gene << '\t' << m.protein << '\t' << m.length << '\t' << doms.size() << '\t' << arch << '\t' << m.coverage
        << '\n';
    sum += m.coverage;
    min_cov = std::min(min_cov, m.coverage);
    full += m.coverage >= ctx.params["full_coverage"].get<double>();
  }
  size_t n = members->size();
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "domain_architecture.tsv"), tsv.str()));
  return write_text(ctx.work / "domain.json", Json{{"genes", n},
                                                   {"mean_coverage", n ? sum / double(n) : 0.0},
                                                   {"min_coverage", n ? min_cov : 0.0},
                                                   {"fraction_full_domain", n ? double(full) / double(n) : 0.0}}
                                                  .dump(2));
}

}  // namespace

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

ReportSection domain_report(const ReportContext& r) {
  ReportSection s = section(r, "domains", "Domains", "结构域分析");
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "domain.json");
  if (!j.empty())
    s.paragraphs.push_back((r.zh ? "结构域平均覆盖度 " : "Mean HMM coverage of the domains ") +
                           fmt(j.value("mean_coverage", 0.0)) +
                           (r.zh ? "；完整结构域比例 " : "; with a full domain: ") +
                           fmt(100 * j.value("fraction_full_domain", 0.0), 0) + "%.");
  return s;
}

}  // namespace

StageSpec domain_stage() {
  StageSpec s;
  s.name = "domain";
  s.label = "domain architecture";
  s.label_zh = "结构域分析";
  s.description = "Per-gene domain architecture and HMM coverage";
  s.after = {"identify"};
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "domain_evalue": {"type": "number", "minimum": 0, "maximum": 10, "default": 1e-3},
      "full_coverage": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.8}
    }, "additionalProperties": false})JS");
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> { return std::vector<Step>{StageFn(architecture)}; };
  s.outputs = {"domain.json"};
  s.parse = summary_file("domain.json");
  s.checks = [](const StageContext&, const Json& summary) -> std::vector<StageCheck> {
    const double cov = summary.value("mean_coverage", 0.0), want = 0.8;
    return {{"domain coverage", cov >= want ? "pass" : "warn",
             "mean HMM coverage " + fmt(cov) + " (threshold " + fmt(want) + ")", cov, want}};
  };
  s.report = domain_report;
  return s;
}

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
    ReportSection sec = section(r, "properties", "Physico-chemical properties", "理化性质");
    if (r.folder.empty()) return sec;
    const bool emboss =
        pk_scale(r.ctx.run.value("params", Json::object()).value("properties", Json::object())) == PkScale::kEmboss;
    sec.paragraphs.push_back(r.zh
                                 ? (emboss ? "等电点用 EMBOSS iep 的 pK 值计算（properties.tsv）。"
                                           : "等电点用 ExPASy ProtParam 的 pK 值（Bjellqvist）计算（properties.tsv）。")
                                 : (emboss ? "Isoelectric points use EMBOSS iep's pK values (properties.tsv)."
                                           : "Isoelectric points use ExPASy ProtParam's (Bjellqvist) pK values "
                                             "(properties.tsv)."));
    return sec;
  };
  return s;
}

}  // namespace bioagent::gf
