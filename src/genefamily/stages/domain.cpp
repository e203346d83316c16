// The domain stage: per-gene domain architecture and HMM coverage from the
// identify stage's domain table.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bioagent/json_text.h"
#include "genefamily/stages/stage_common.h"

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
  tsv << "gene\tlength\tdomains\tarchitecture\thmm_coverage\n";
  double sum = 0, min_cov = 1;
  size_t full = 0;
  for (auto& m : *members) {
    auto& doms = by_protein[m.protein];
    std::sort(doms.begin(), doms.end(), [](auto* a, auto* b) { return a->ali_from < b->ali_from; });
    std::string arch;
    for (auto* d : doms)
      arch +=
          (arch.empty() ? "" : ";") + d->query + ":" + std::to_string(d->env_from) + "-" + std::to_string(d->env_to);
    tsv << m.name << '\t' << m.length << '\t' << doms.size() << '\t' << arch << '\t' << m.coverage << '\n';
    sum += m.coverage;
    min_cov = std::min(min_cov, m.coverage);
    full += m.coverage >= ctx.params["full_coverage"].get<double>();
  }
  size_t n = members->size();
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "domain_architecture.tsv"), tsv.str()));
  return write_text(ctx.work / "domain.json",
                    json_text(Json{{"genes", n},
                                   {"mean_coverage", n ? sum / double(n) : 0.0},
                                   {"min_coverage", n ? min_cov : 0.0},
                                   {"fraction_full_domain", n ? double(full) / double(n) : 0.0}},
                              2));
}

ReportSection domain_report(const ReportContext& r) {
  ReportSection s = section(r, "domains", {"Domains", "结构域分析"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "domain.json");
  if (!j.empty())
    s.paragraphs.push_back(BiText{"Mean HMM coverage of the domains ", "结构域平均覆盖度 "}.in(r.lang) +
                           fmt(j.value("mean_coverage", 0.0)) +
                           BiText{"; with a full domain: ", "；完整结构域比例 "}.in(r.lang) +
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
  s.revision = 2;  // 2: the members' names, no protein column
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

}  // namespace bioagent::gf
