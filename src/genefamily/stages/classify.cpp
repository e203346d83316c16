// The classify stage: when the data folder holds a set of domain profiles (a
// .hmm file with several models, e.g. TAPscan's 53 Pfam profiles), every
// profile is searched once over the proteome and each protein is assigned to
// a family by the rules table (TAPscan's built in, or params.rules); writes
// the per-protein assignments and the per-family counts. Without a set
// (files.hmm_set): skipped with that reason.
#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "bioagent/genefamily_classify.h"
#include "bioagent/json_text.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Status classify(const StageContext& ctx) {
  ClassifyOptions o;
  o.hmm_files = {ctx.data("hmm_set").string()};
  o.proteomes = {ctx.data("pep").string()};
  o.rules_file = ctx.params["rules"].get<std::string>();
  o.out_dir = (ctx.work / "search").string();
  o.cpus = ctx.cpus;
  o.evalue = ctx.params["evalue"];
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  auto r = classify_families(o);
  if (!r) return r.status();
  const Json& p = r->summary["proteomes"][0];
  auto table = read_text(p["table"].get<std::string>());
  if (!table) return table.status();
  // The final table names each member by its name (the other proteins keep their ids).
  std::map<std::string, std::string> member_name;
  if (ctx.input.count("identify"))
    if (auto members = read_members(ctx.input.at("identify")))
      for (auto& m : *members) member_name[m.protein] = m.name;
  std::string named;
  {
    std::istringstream rows(*table);
    for (std::string row; std::getline(rows, row);) {
      const auto tab = row.find('\t');
      auto it = member_name.find(row.substr(0, tab));
      named += (it == member_name.end() ? row : it->second + row.substr(std::min(tab, row.size()))) + '\n';
    }
  }
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "family_assignments.tsv"), named));
  std::vector<std::pair<std::string, int>> counts;
  for (auto& [f, n] : p["families"].items()) counts.push_back({f, n.get<int>()});
  std::sort(counts.begin(), counts.end(),
            [](auto& a, auto& b) { return std::tie(b.second, a.first) < std::tie(a.second, b.first); });
  std::ostringstream tsv;
  tsv << "family\tproteins\tmodelled\n";
  for (auto& [f, n] : counts)
    tsv << f << '\t' << n << '\t' << r->summary["families"].value(f, std::string("none")) << '\n';
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "family_counts.tsv"), tsv.str()));
  // The run's own family among the calls: how many of identify's members the classifier puts there.
  Json agreement = nullptr;
  const std::string fam = lower(ctx.run.value("family", std::string()));
  std::string fam_name;
  for (auto& [f, n] : counts)
    if (lower(f) == fam) fam_name = f;
  if (!fam_name.empty() && ctx.input.count("identify"))
    if (auto members = read_members(ctx.input.at("identify"))) {
      std::set<std::string> called;
      std::istringstream rows(*table);
      std::string row;
      std::getline(rows, row);
      while (std::getline(rows, row)) {
        auto a = row.find('\t'), b = row.find('\t', a + 1);
        if (row.substr(a + 1, b - a - 1) == fam_name) called.insert(row.substr(0, a));
      }
      size_t both = 0;
      for (auto& m : *members) both += called.count(m.protein);
      agreement = {{"family", fam_name}, {"members", members->size()}, {"classified", called.size()}, {"both", both}};
    }
  return write_text(ctx.work / "classify.json",
                    json_text(Json{{"profiles", fs::path(o.hmm_files[0]).filename().string()},
                                   {"threshold_mode", r->summary["threshold_mode"].begin().value()},
                                   {"rules", o.rules_file.empty() ? "built-in (TAPscan v4)"
                                                                  : fs::path(o.rules_file).filename().string()},
                                   {"proteins_with_domains", p["proteins_with_domains"]},
                                   {"classified", p["classified"]},
                                   {"families", p["families"]},
                                   {"unexpressible_rules", r->summary["unexpressible_rules"].size()},
                                   {"run_family", agreement}},
                              2));
}

// The members identify found that the classifier also puts in the run's
// family (by name): below 0.9 one of the two disagrees with the other.
std::vector<StageCheck> check_members(const StageContext&, const Json& summary) {
  const Json a = summary.value("run_family", Json());
  if (!a.is_object() || a.value("members", 0) == 0) return {};
  const double frac = double(a.value("both", 0)) / double(a.value("members", 1)), want = 0.9;
  return {{"members classified in " + a.value("family", std::string()), frac >= want ? "pass" : "warn",
           std::to_string(a.value("both", 0)) + " of " + std::to_string(a.value("members", 0)) +
               " identified members are classified as " + a.value("family", std::string()) + " (threshold " +
               fmt(100 * want, 0) + "%)",
           frac, want}};
}

ReportSection classify_report(const ReportContext& r) {
  ReportSection s = section(r, "classify", {"Family classification", "基因家族分类"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "classify.json");
  if (j.empty() || j.value("skipped", false)) return s;
  s.paragraphs.push_back(BiText{"Every profile of " + j.value("profiles", std::string()) +
                                    " searched once over the proteome, families assigned by the rules (" +
                                    j.value("rules", std::string()) + "): " + std::to_string(j.value("classified", 0)) +
                                    " proteins classified of " + std::to_string(j.value("proteins_with_domains", 0)) +
                                    " with domains; thresholds: " + j.value("threshold_mode", std::string()) + ".",
                                "用 " + j.value("profiles", std::string()) +
                                    " 中的结构域模型对蛋白组搜索一次，按规则表（" + j.value("rules", std::string()) +
                                    "）分类：" + std::to_string(j.value("classified", 0)) + " 个蛋白（" +
                                    std::to_string(j.value("proteins_with_domains", 0)) + " 个含结构域）。阈值：" +
                                    j.value("threshold_mode", std::string()) + "。"}
                             .in(r.lang));
  if (int n = j.value("unexpressible_rules", 0); n > 0)
    s.paragraphs.push_back(BiText{std::to_string(n) + " rules need domains the profiles lack and cannot be decided.",
                                  std::to_string(n) + " 条规则所需的结构域没有模型，无法判断（见 classify 的输出）。"}
                               .in(r.lang));
  s.table_header = {BiText{"family", "家族"}.in(r.lang), BiText{"proteins", "蛋白数"}.in(r.lang)};
  std::vector<std::pair<int, std::string>> rows;
  const Json families = j.value("families", Json::object());  // kept alive: items() refers to it
  for (auto& [f, n] : families.items()) rows.push_back({-n.get<int>(), f});
  std::sort(rows.begin(), rows.end());
  for (auto& [n, f] : rows) s.table.push_back({f, std::to_string(-n)});
  return s;
}

}  // namespace

StageSpec classify_stage() {
  StageSpec s;
  s.name = "classify";
  s.revision = 2;  // 2: members under their names in family_assignments.tsv
  s.label = "family classification";
  s.label_zh = "基因家族分类";
  s.description = "A set of domain HMMs searched once over the proteome; each protein assigned to a family by rules";
  s.uses = {"identify"};         // its members are compared with the calls of the run's family
  s.needs = {"pep", "hmm_set"};  // hmm_set: a .hmm file of the data folder with several profiles
  s.data_files = {"pep", "hmm_set"};
  s.programs = {"hmmsearch"};
  s.resource = "medium";
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "rules": {"type": "string", "default": "", "format": "path", "description": "a rules table in classify's format; empty: the built-in TAPscan v4 rules"},
      "evalue": {"type": "number", "minimum": 0, "maximum": 10, "default": 0.01, "description": "hmmsearch reporting threshold for profiles without gathering (GA) lines"}
    }, "additionalProperties": false})JS");
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> { return std::vector<Step>{StageFn(classify)}; };
  s.outputs = {"classify.json"};
  s.parse = summary_file("classify.json");
  s.checks = check_members;
  s.report = classify_report;
  return s;
}

}  // namespace bioagent::gf
