// PlanningAgent: the seed's YAML analysis plan — target species and family,
// reference files and their status (local folders; NCBI Datasets when online),
// comparative species, transcriptome data, stages, an estimate from past stage
// durations, and next_action "wait for confirmation".
#include <yaml-cpp/yaml.h>
#include <algorithm>
#include <set>

#include "assistant/agents.h"
#include "bioagent/genefamily.h"
#include "bioagent/http.h"
#include "bioagent/json_get.h"
#include "bioagent/json_text.h"
#include "bioagent/schema.h"
#include "pipeline/stage_reasons.h"

namespace bioagent {
namespace {

YAML::Node to_node(const Json& j) {
  YAML::Node n;
  if (j.is_object()) {
    n = YAML::Node(YAML::NodeType::Map);
    for (auto it = j.begin(); it != j.end(); ++it) n[it.key()] = to_node(it.value());
  } else if (j.is_array()) {
    n = YAML::Node(YAML::NodeType::Sequence);
    for (auto& e : j) n.push_back(to_node(e));
  } else if (j.is_string()) {
    n = j.get<std::string>();
  } else if (j.is_null()) {
    n = YAML::Node(YAML::NodeType::Null);
  } else {
    n = json_text(j);
  }
  return n;
}

// NCBI Datasets: the reference assembly of a taxon (online only; cached).
Json ncbi_reference(const AgentEnv& env, const std::string& latin) {
  if (env.offline()) return {{"status", "not checked (offline mode)"}};
  auto opt = [&](const std::string& k) {
    auto it = env.tool_options.find(k);
    return it == env.tool_options.end() ? std::string() : it->second;
  };
  auto http = HttpClient::create(http_options(opt));
  if (!http) return {{"status", "not checked: " + http.status().message()}};
  std::string base = opt("base_url.ncbi_datasets").empty() ? "https://api.ncbi.nlm.nih.gov/datasets/v2"
                                                           : opt("base_url.ncbi_datasets");
  std::string taxon;
  for (char c : latin) taxon += c == ' ' ? std::string("%20") : std::string(1, c);
  HttpRequest rq;
  rq.url = base + "/genome/taxon/" + taxon + "/dataset_report?filters.reference_only=true&page_size=1";
  rq.source = "ncbi_datasets";
  rq.timeout = std::chrono::seconds(20);
  auto r = (*http)->fetch(rq);
  if (!r) return {{"status", "not checked: " + r.status().message()}};
  if (r->status != 200) return {{"status", "not checked: NCBI Datasets answered HTTP " + std::to_string(r->status)}};
  Json j = parse_json_bounded(r->body);
  const Json& reports = json_items(json_member(j, "reports"));
  std::string acc = reports.empty() ? "" : json_get(reports[0], "accession", std::string());
  if (acc.empty()) return {{"status", "no reference assembly listed in NCBI Datasets"}};
  const Json& info = json_member(reports[0], "assembly_info");
  return {{"status", "available"},
          {"accession", acc},
          {"assembly_name", json_get(info, "assembly_name", std::string())},
          {"submitter", json_get(info, "submitter", std::string())},
          {"download_url", "https://www.ncbi.nlm.nih.gov/datasets/genome/" + acc + "/"}};
}

// The time of the planned stages from their past durations (median seconds
// per stage, as stage_seconds gives them); "not estimated" when no run has
// timed them, and the untimed stages named, never a guess.
std::string plan_estimate(const Json& stage_seconds, const std::vector<std::string>& planned, Lang lang) {
  double seconds = 0;
  std::string unknown;
  int known = 0;
  for (auto& name : planned) {
    const Json& s = stage_seconds.is_object() ? stage_seconds.value(name, Json()) : Json();
    if (s.is_number()) {
      seconds += s.get<double>(), ++known;
    } else {
      unknown += (unknown.empty() ? "" : ", ") + name;
    }
  }
  const std::string n = std::to_string(known) + "/" + std::to_string(planned.size());
  if (known == 0)
    return BiText{"not estimated: no past run timed these stages (estimated from their durations after the first run)",
                  "未估计：这些阶段尚无运行记录（首次运行后按实际用时估计）"}
        .in(lang);
  std::string text = BiText{"about ", "约 "}.in(lang) + std::to_string(int(seconds / 60 + 1)) +
                     BiText{" minutes (from past durations of ", " 分钟（依据 "}.in(lang) + n +
                     BiText{" stages", " 个阶段的历史运行时间"}.in(lang);
  if (!unknown.empty())
    text += BiText{"; not counted, never timed: " + unknown, "；未计入尚无记录的阶段：" + unknown}.in(lang);
  return text + BiText{")", "）"}.in(lang);
}

// The phylogeny's expected time, which grows fastest with the family's size:
// from IQ-TREE's measured cost for the family's size in Arabidopsis or rice
// (the knowledge base's counts) or, unknown, for 20 and 60 sequences; columns
// assumed (300 after trimming), the basis said. The stage gives its own
// estimate from the real alignment when it starts.
std::string phylogeny_estimate(const Json* fam, int cpus, Lang lang) {
  constexpr int kColumns = 300;
  int n = -1;
  const Json members = fam ? fam->value("members", Json::object()) : Json::object();
  if (members.is_object())
    for (const char* sp : {"Ath", "Osa"}) n = std::max(n, leading_count(members.value(sp, "")));
  auto minutes = [&](int seqs) { return std::to_string(int(iqtree_expected_seconds(seqs, kColumns, cpus) / 60 + 1)); };
  const std::string c = std::to_string(cpus), cols = std::to_string(kColumns);
  if (n >= 4)
    return BiText{"phylogeny (IQ-TREE): about " + minutes(n) + " min for ~" + std::to_string(n) +
                      " sequences (the family's size in Arabidopsis or rice) of ~" + cols + " columns on " + c +
                      " CPUs; the stage re-estimates from the real alignment when it starts",
                  "系统发育分析（IQ-TREE）按约 " + std::to_string(n) +
                      " 条序列（该家族在拟南芥或水稻中的成员数）、约 " + cols + " 列、" + c + " 个 CPU 估计约 " +
                      minutes(n) + " 分钟；该阶段开始时按实际比对大小重新估计"}
        .in(lang);
  return BiText{"phylogeny (IQ-TREE): about " + minutes(20) + " min for 20 sequences, " + minutes(60) +
                    " min for 60 (~" + cols + " columns, " + c +
                    " CPUs); the stage estimates from the real alignment when it starts",
                "系统发育分析（IQ-TREE）：20 条序列约 " + minutes(20) + " 分钟，60 条约 " + minutes(60) + " 分钟（约 " +
                    cols + " 列、" + c + " 个 CPU）；该阶段开始时按实际比对大小估计"}
      .in(lang);
}

}  // namespace

std::string to_yaml(const Json& j) {
  YAML::Emitter out;
  out << to_node(j);
  return std::string(out.c_str()) + "\n";
}

namespace {

// The plan's reference files as found in the species folder: ref (each file's
// status, the folder, naming problems, NCBI Datasets), the naming problems, the
// files as the run will see them (renames applied), and whether the proteins are there.
struct ReferenceFiles {
  Json ref = {{"status", "missing"}};
  Json problems = Json::array(), run_files = Json::object();
  Json other_prefix_files = Json::object();  // a kind the species lacks -> a file named for another prefix
  bool proteins = false;
};

ReferenceFiles reference_files(const AgentEnv& env, const fs::path& folder, const std::string& prefix,
                               const std::string& fam_file, const Json* fam, const std::string& latin, Lang lang) {
  ReferenceFiles r;
  Json& ref = r.ref;
  if (!folder.empty())
    if (auto check = check_species_data(folder, prefix, fam_file, false)) {
      r.problems = check->value("problems", Json::array());
      r.run_files = check->value("files", Json::object());
      r.other_prefix_files = check->value("other_prefix_files", Json::object());
    }
  // A file present under a variant name the run renames (Lchi.genome.fa) counts as present, with the rename.
  auto renamed_from = [&](const std::string& name) -> std::string {
    for (auto& p : r.problems)
      if (p.value("fixable", false) && p.value("fix", "") == name) return p.value("file", "");
    return "";
  };
  auto want = [&](const std::string& kind, const std::string& name) {
    std::error_code ec;
    bool here = !folder.empty() && fs::is_regular_file(folder / name, ec) && fs::file_size(folder / name, ec) > 0;
    std::string from = folder.empty() ? "" : renamed_from(name);
    ref[kind] = name;
    ref[kind + "_status"] = here || !from.empty() ? "available" : "missing";
    const std::string k = kind == "genome_fasta" ? "genome" : kind;
    if (!here && from.empty() && r.other_prefix_files.contains(k))
      ref[kind + "_other_prefix"] = r.other_prefix_files[k].value("found", std::string());
    if (!from.empty()) ref[kind + "_renamed_from"] = from;
    return here || !from.empty();
  };
  // Only the proteins are required; the stages that need an absent file are skipped (listed below).
  std::map<std::string, bool> have = {{"genome", want("genome_fasta", prefix + ".genome.fasta")},
                                      {"gff3", want("gff3", prefix + ".gff3")},
                                      {"cds", want("cds", prefix + ".cds.fasta")},
                                      {"pep", want("pep", prefix + ".pep.fasta")}};
  r.proteins = have["pep"];
  if (have["pep"] && !(have["genome"] && have["gff3"] && have["cds"]))
    ref["optional_files"] =
        BiText{
            "the genome, GFF3 and CDS are optional: without one, the stages that need it are "
            "skipped (see the stage list)",
            "基因组、GFF3 与 CDS 为可选：缺少时，需要它们的阶段将跳过（见阶段列表）"}
            .in(lang);
  bool hmm = want("hmm", fam_file + ".hmm");
  if (!folder.empty()) ref["local_path"] = folder.string();
  for (auto& p : r.problems)  // renamed before the run: the stages see the file
    if (p.value("fixable", false) && p["kind"].is_string())
      r.run_files[p["kind"].get<std::string>()] = p.value("fix", "");
  const bool complete = have["genome"] && have["gff3"] && have["cds"] && have["pep"];
  ref["status"] = complete ? "available" : r.proteins ? "proteins only" : folder.empty() ? "missing" : "incomplete";
  ref["source"] = folder.empty()
                      ? BiText{"not found locally; upload the files", "本地未找到；请按命名规范上传"}.in(lang)
                      : BiText{"local data folder", "本地数据目录"}.in(lang);
  if (!hmm && fam && !fam->value("pfam", Json::array()).empty())
    ref["hmm_note"] =
        BiText{"no HMM given; downloaded from InterPro when online: ", "未提供 HMM；联网时从 InterPro 下载 "}.in(lang) +
        (*fam)["pfam"][0].value("acc", "");
  if (!r.problems.empty()) ref["naming_problems"] = r.problems;
  if (lang == Lang::kZh)  // a Chinese plan shows the Chinese text of a naming problem where the check gives one
    for (auto& p : ref["naming_problems"])
      if (p.contains("message_zh")) p["message"] = p["message_zh"], p.erase("message_zh");
  ref["ncbi_datasets"] = ncbi_reference(env, latin);
  return r;
}

// Proteomes named by the rules for another prefix, at the top of the data folders (Ath.pep.fasta uploaded in a
// litchi session): when the plan's species has no files, these may be its data under the wrong prefix.
std::vector<std::string> other_prefixes(const std::vector<fs::path>& dirs, const std::string& prefix) {
  static const std::string kPep = ".pep.fasta";
  std::set<std::string> found;
  std::error_code ec;
  for (auto& d : dirs)
    for (auto& e : fs::directory_iterator(d, ec)) {
      const std::string n = e.path().filename().string();
      if (n.size() > kPep.size() && n.ends_with(kPep) && e.is_regular_file(ec) &&
          n.substr(0, n.size() - kPep.size()) != prefix)
        found.insert(n.substr(0, n.size() - kPep.size()));
    }
  return {found.begin(), found.end()};
}

// The plan's species has no files but others' are there: say so, and the two ways on, instead of only "upload".
void tell_other_prefixes(Json& ref, const std::vector<std::string>& others, const std::string& prefix, Lang lang) {
  if (others.empty()) return;
  std::string list;
  for (auto& o : others) list += (list.empty() ? "" : ", ") + o;
  ref["other_species_files"] = others;
  ref["source"] =
      BiText{"not found locally: no " + prefix + ".* files, but the data folders hold proteins named for " + list +
                 ". If they are this species' data, rename them to " + prefix +
                 ".* (nothing is renamed for you); if not, upload " + prefix + "'s files or plan for that species",
             "本地未找到 " + prefix + ".* 文件，但数据文件夹中有以 " + list +
                 " 命名的蛋白文件。若它们是本物种的数据，请改名为 " + prefix + ".*（不会自动改名）；否则请上传 " +
                 prefix + " 的文件，或改为分析该物种"}
          .in(lang);
}

Json comparative_species(const std::vector<fs::path>& data_dirs, const std::string& prefix, Lang lang) {
  Json comparative = Json::array();
  struct Comp {
    const char* prefix;
    const char* zh_reason;
    const char* en_reason;
  };
  for (auto c : {Comp{"Ath", "模式植物，功能验证", "model plant; functions verified"},
                 Comp{"Osa", "单子叶代表", "monocot representative"}, Comp{"Sly", "果实发育", "fruit development"}}) {
    if (c.prefix == prefix) continue;
    const Json* cs = find_species(c.prefix);
    fs::path cf = find_species_folder(data_dirs, c.prefix);
    comparative.push_back({{"species", cs ? cs->value("latin", "") : c.prefix},
                           {"reason", BiText{c.en_reason, c.zh_reason}.in(lang)},
                           {"files", std::string(c.prefix) + ".*"},
                           {"status", cf.empty() ? "missing (optional)" : "available"}});
  }
  return comparative;
}

// Transcriptome: an expression matrix or reads beside the genome.
Json transcriptome_data(const AgentEnv& env, const fs::path& folder, const std::string& latin, Lang lang) {
  Json transcriptome = {
      {"status",
       BiText{"missing (optional: the expression stage is skipped)", "缺失（可选：表达分析阶段将跳过）"}.in(lang)}};
  if (!folder.empty()) {
    std::error_code ec;
    Json samples = Json::array();
    for (auto& e : fs::directory_iterator(folder, ec)) {
      std::string n = e.path().filename().string(), low = lower_ascii(n);
      if (low.find("expression") != std::string::npos || low.find("tpm") != std::string::npos ||
          low.find("fpkm") != std::string::npos || low.find(".fastq") != std::string::npos ||
          low.find(".fq") != std::string::npos)
        samples.push_back(n);
    }
    if (!samples.empty())
      transcriptome = {{"status", "available"}, {"source", "local data folder"}, {"files", samples}};
  }
  transcriptome["sra"] = env.offline() ? "not searched (offline mode)" : "search NCBI SRA for " + latin + " RNA-seq";
  return transcriptome;
}

// The stages from the stage table, skipped by the engine's own rules: a data
// file it needs is absent, an upstream it needs is skipped, or its table row
// says it has nothing to do (no expression data, no ortholog table). `planned`: the stages that run.
Json plan_stages(const Json& run, Lang lang, std::vector<std::string>& planned) {
  Json stage_list = Json::array(), skipped = Json::object();
  for (auto& spec : genefamily_pipeline().stages()) {
    if (spec.needs.empty() && spec.after.empty()) continue;  // the data check (the table's root) runs beside every plan
    Json why = missing_data_file(spec, run);
    for (auto& up : spec.after)
      if (!why.is_object() && skipped.contains(up))
        why = {{"kind", "upstream_skipped"}, {"subject", up}, {"detail", render_reason(skipped[up], Lang::kEn)}};
    if (!why.is_object() && spec.skip_when)
      why = spec.skip_when(run, apply_defaults(spec.params_schema, Json::object()));
    std::string label = BiText{spec.label, spec.label_zh}.in(lang);
    if (why.is_object()) {
      skipped[spec.name] = why;
      stage_list.push_back({{spec.name, label + BiText{" (skipped: ", "（跳过："}.in(lang) + render_reason(why, lang) +
                                            BiText{")", "）"}.in(lang)}});
      continue;
    }
    stage_list.push_back({{spec.name, label}});
    planned.push_back(spec.name);
  }
  return stage_list;
}

}  // namespace

Result<Json> make_plan(const AgentEnv& env, const std::string& species, const std::string& family,
                       const std::vector<fs::path>& data_dirs, const Json& stage_seconds, Lang lang, int cpus,
                       const Json& stage_params) {
  auto resolved = resolve_species(species, data_dirs);  // the species list names; it does not gate
  if (!resolved)
    return invalid_argument("unknown species '" + species + "': give a Latin name or upload files with its prefix");
  const Json* sp = &*resolved;
  if (family.empty()) return invalid_argument("no gene family named: say which family (e.g. SPL)");
  const Json* fam = find_gene_family(family);
  std::string prefix = sp->value("prefix", ""), fam_name = fam ? fam->value("name", "") : family;
  std::string fam_file = family_file_name(fam_name);
  std::string latin = sp->value("latin", "");
  std::string common = lang == Lang::kZh && !(*sp)["chinese"].empty() ? (*sp)["chinese"][0].get<std::string>()
                                                                      : (*sp)["english"][0].get<std::string>();

  fs::path folder = find_species_folder(data_dirs, prefix);
  ReferenceFiles files = reference_files(env, folder, prefix, fam_file, fam, latin, lang);
  if (folder.empty()) tell_other_prefixes(files.ref, other_prefixes(data_dirs, prefix), prefix, lang);
  Json comparative = comparative_species(data_dirs, prefix, lang);
  Json transcriptome = transcriptome_data(env, folder, latin, lang);
  const Json run = {{"files", files.run_files},
                    {"other_prefix_files", files.other_prefix_files},
                    {"network", {{"offline", env.offline()}}}};
  std::vector<std::string> planned_names;
  Json stage_list = plan_stages(run, lang, planned_names);
  std::string estimate = plan_estimate(stage_seconds, planned_names, lang);
  if (std::find(planned_names.begin(), planned_names.end(), "phylogeny") != planned_names.end())
    estimate += BiText{"; ", "；"}.in(lang) + phylogeny_estimate(fam, std::max(1, cpus), lang);

  Json plan = {{"target_species", latin + " (" + common + ")"},
               {"species_prefix", prefix},
               {"gene_family", fam_name},
               {"reference_genome", files.ref},
               {"comparative_species", comparative},
               {"transcriptome_data", transcriptome},
               {"analysis_stages", stage_list},
               {"estimated_time", estimate},
               {"estimated_cost", BiText{"runs locally; no API cost", "本地运行，无 API 费用"}.in(lang)},
               {"next_action", BiText{"wait for confirmation", "等待用户确认执行"}.in(lang)}};
  if (fam)
    plan["family_facts"] = {{"pfam", (*fam)["pfam"]},
                            {"members_Ath", (*fam)["members"].value("Ath", "")},
                            {"members_Osa", (*fam)["members"].value("Osa", "")}};
  // The parameter dialog's defaults (seed: prefix, cpu, evalue, max_target_seqs): the plan's
  // fixed values, then each stage field's value (the server's stage parameters, else its schema's).
  const Pipeline& pipeline = genefamily_pipeline();
  const Json fields = pipeline.dialog_fields();
  Json defaults = {{"stage", fields.empty() ? "" : fields[0]["stage"]},  // the stage the dialog opens with
                   {"species", latin},
                   {"family", fam_name},
                   {"prefix", prefix + "." + fam_name},
                   {"cpu", cpus}};
  defaults.update(pipeline.dialog_defaults(stage_params));
  return Json{{"plan", {{"analysis_plan", plan}}},
              {"yaml", to_yaml({{"analysis_plan", plan}})},
              {"defaults", defaults},
              {"data_dir", folder.string()},
              {"ready", files.proteins && files.problems.empty()}};
}

}  // namespace bioagent
