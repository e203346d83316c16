// The check stage: naming rules and consistency of the species data, and the
// one mapping gene <-> transcript <-> protein <-> CDS <-> coordinates the other
// stages rely on (gene_map.tsv), with what could not be mapped and how to fix it.
#include <nlohmann/json.hpp>

#include "bioagent/json_text.h"
#include "genefamily/io/gene_map.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {
namespace {

// gene_map.tsv from the folder's proteins, GFF3 (optional), CDS (optional) and genome names (optional), as the
// species check read them (each file once); its summary. A file there but unreadable is the check's problem.
Result<Json> write_gene_map(const StageContext& ctx, const Json& files, const SpeciesFiles& parsed) {
  auto unreadable = [&](const char* k) {
    return Status(ErrorCode::kParseError, fs::path(files[k].get<std::string>()).filename().string() +
                                              " could not be read (check.json's problems say why)");
  };
  if (!parsed.pep) return unreadable("pep");
  if (files.contains("gff3") && !parsed.gff) return unreadable("gff3");
  if (files.contains("cds") && !parsed.cds) return unreadable("cds");
  std::vector<std::string> names;
  if (parsed.genome_lengths)
    for (auto& [n, len] : *parsed.genome_lengths) names.push_back(n);
  GeneMap map = build_gene_map(parsed.gff.value_or(GffModel{}), *parsed.pep,
                               parsed.cds.value_or(std::vector<FastaRecord>{}), names);
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "gene_map.tsv", map.tsv()));
  Json summary = map.summary();
  summary["gff3"] = files.contains("gff3");
  return summary;
}

ReportSection report(const ReportContext& r) {
  ReportSection s = section(r, "check", {"Data check", "数据检查"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "check.json");
  const Json m = j.value("gene_map", Json::object());
  if (m.empty()) return s;
  std::string via;
  const Json matched_by = m.value("matched_by", Json::object());  // kept alive: items() refers to it
  for (auto& [k, v] : matched_by.items())
    via += (via.empty() ? "" : ", ") + json_text(v) + BiText{" by ", " 个按 "}.in(r.lang) + k;
  s.paragraphs.push_back(BiText{"Gene map (gene_map.tsv): " + json_text(m.value("proteins", Json(0))) +
                                    " proteins of " + json_text(m.value("genes", Json(0))) + " genes (" + via + "); " +
                                    json_text(m.value("placed", Json(0))) + " with a position in the genome.",
                                "基因对照表（gene_map.tsv）：" + json_text(m.value("proteins", Json(0))) +
                                    " 个蛋白对应 " + json_text(m.value("genes", Json(0))) + " 个基因（" + via + "），" +
                                    json_text(m.value("placed", Json(0))) + " 个有基因组位置。"}
                             .in(r.lang));
  std::string evidence;  // which identifier linked how many proteins
  for (auto& e : m.value("evidence", Json::array()))
    evidence +=
        (evidence.empty() ? "" : "; ") + e.value("key", std::string()) + ": " + json_text(e.value("proteins", Json(0)));
  if (!evidence.empty())
    s.paragraphs.push_back(
        BiText{"Proteins linked to the GFF3 by: " + evidence + ".", "蛋白与 GFF3 记录的对应依据：" + evidence + "。"}
            .in(r.lang));
  const char* fix_key = r.lang == Lang::kZh ? "fix_zh" : "fix";
  for (auto& f : m.value(fix_key, Json::array())) s.paragraphs.push_back(f.get<std::string>());
  // The check's problems (internal stops, unreadable files, names no rule accepts), each with its fix.
  const char* msg_key = r.lang == Lang::kZh ? "message_zh" : "message";
  for (auto& p : j.value("problems", Json::array()))
    if (p.contains(msg_key))
      s.paragraphs.push_back(BiText{"Problem: ", "问题："}.in(r.lang) + p[msg_key].get<std::string>());
  return s;
}

// A problem the check found (or a protein the GFF3 does not place) makes the stage warn, never a silent done.
std::vector<StageCheck> check_findings(const StageContext& ctx, const Json& summary) {
  const Lang lang = lang_or_en(ctx.run.value("lang", std::string()));  // a check's detail in the run's language
  const size_t problems = summary.value("problems", size_t(0));
  std::string first;
  for (auto& p : summary.value(lang == Lang::kZh ? "problem_messages_zh" : "problem_messages", Json::array()))
    first += (first.empty() ? "" : "; ") + p.get<std::string>();
  const Json m = summary.value("gene_map", Json::object());
  const size_t unplaced = m.value("unplaced", size_t(0)), proteins = m.value("proteins", size_t(0));
  std::vector<StageCheck> out = {{BiText{"data problems", "数据问题"}.in(lang), problems ? "warn" : "pass",
                                  problems ? first : BiText{"no problems", "没有问题"}.in(lang), problems, 0}};
  if (m.value("gff3", false))
    out.push_back({BiText{"proteins placed by the GFF3", "GFF3 定位的蛋白"}.in(lang), unplaced ? "warn" : "pass",
                   BiText{std::to_string(proteins - unplaced) + " of " + std::to_string(proteins) + " proteins placed",
                          std::to_string(proteins) + " 个蛋白中 " + std::to_string(proteins - unplaced) + " 个有位置"}
                       .in(lang),
                   proteins - unplaced, proteins});
  return out;
}

}  // namespace

StageSpec check_stage() {
  StageSpec s;
  s.name = "check";
  s.label = "data check";
  s.label_zh = "数据检查";
  s.description =
      "Naming rules and consistency of the species data (GFF3 vs genome, proteins vs CDS); the gene map "
      "gene <-> transcript <-> protein <-> CDS <-> coordinates (gene_map.tsv)";
  s.revision = 3;  // 2: the gene map; 3: identifiers matched by their normal forms, findings as checks
  s.data_files = {"genome", "gff3", "cds", "pep", "hmm"};
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> {
    return std::vector<Step>{StageFn([](const StageContext& ctx) -> Status {
      SpeciesFiles parsed;
      auto r = check_species_data(ctx.run.value("data_dir", std::string()), ctx.run.value("species", std::string()),
                                  ctx.run.value("family", std::string()), true, &parsed);
      if (!r) return r.status();
      const Json files = (*r)["files"];
      if (files.contains("pep") && parsed.unreadable.is_ok()) {
        auto map = write_gene_map(ctx, files, parsed);
        if (!map) return map.status();
        (*r)["gene_map"] = *map;
      }
      BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "check.json", r->dump(2)));
      return parsed.unreadable;  // a file there but unreadable fails the stage with its reader's reason
    })};
  };
  s.outputs = {"check.json"};
  s.parse = [](const StageContext& ctx) -> Result<Json> {
    auto t = read_text(ctx.work / "check.json");
    if (!t) return t.status();
    Json j = Json::parse(*t, nullptr, false);
    Json messages = Json::array(), messages_zh = Json::array();
    for (auto& p : j.value("problems", Json::array()))
      if (messages.size() < 3 && p.contains("message"))
        messages.push_back(p["message"]), messages_zh.push_back(p.value("message_zh", p["message"]));
    return Json{{"ok", j.value("ok", false)},
                {"problems", j.value("problems", Json::array()).size()},
                {"problem_messages", messages},
                {"problem_messages_zh", messages_zh},
                {"consistency", j.value("consistency", Json::object())},
                {"gene_map", j.value("gene_map", Json::object())}};
  };
  s.checks = check_findings;
  s.report = report;
  return s;
}

}  // namespace bioagent::gf
