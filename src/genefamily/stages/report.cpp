// The report stage: the result parser (key findings as JSON) and the report
// in Markdown and as one self-contained HTML file (figures inline), in English
// or Chinese, with the seed's structure; outputs.md explains every file.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bioagent/digest.h"
#include "bioagent/json_text.h"
#include "figures/svg.h"
#include "genefamily/algo/protein_properties.h"
#include "genefamily/stages/report_methods.h"
#include "genefamily/stages/stage_common.h"
#include "pipeline/stage_reasons.h"

namespace bioagent::gf {
namespace {

// The phylogeny stage's reason for a member in no named clade (subfamilies.tsv), in Chinese.
std::string group_reason_zh(const std::string& reason) {
  const std::string several = "its smallest clade with references holds several groups (";
  if (reason == "no reference member in the tree") return "系统树中没有参考成员";
  if (reason.rfind(several, 0) == 0)
    return "它所在的含参考成员的最小分支包含多个分组（" +
           reason.substr(several.size(), reason.size() - several.size() - 1) + "）";
  return reason;
}

// The report's fixed headings and state lines.
struct Text {
  BiText summary, genes, function, meaning, methods, title_suffix, found, inputs, timeline, skipped, failed, warn,
      cancelled, not_run;
};
const Text kText = {{"Executive summary", "执行摘要"},
                    {"Gene list", "基因列表"},
                    {"Function predictions", "功能预测"},
                    {"Biological meaning", "生物学意义"},
                    {"Methods", "方法"},
                    {"gene family analysis", "基因家族分析报告"},
                    {"identified", "鉴定到"},
                    {"Input files", "输入文件"},
                    {"Timeline", "时间线"},
                    {"Skipped: ", "已跳过："},
                    {"Failed: ", "失败："},
                    {"Ran with a warning: ", "已运行但有警告："},
                    {"Cancelled.", "已取消。"},
                    {"Not run in this analysis.", "本次分析未运行该阶段。"}};

using Section = ReportSection;

// What the run drew, so that a caption claims only what its figure shows.
struct CaptionFacts {
  bool references_root = false;   // rooted on reference members (else at the midpoint)
  bool subgroups = false;         // subgroups named from reference members are coloured
  std::string support_kind;       // "UFBoot", "SH-like"; empty: no supports drawn
  bool tandem = false;            // tandem clusters on the chromosome map
  bool selection_tested = false;  // a Ka/Ks pair has a verdict of the test of Ka = Ks
};

// Each figure's caption in both languages, by the end of its file name (<Species>.<Family>.<suffix>); a
// dual-synteny plot names its species.
std::string caption_text(const std::string& file, Lang lang, const CaptionFacts& f) {
  auto ends_with = [&](const std::string& suffix) { return file.ends_with("." + suffix); };
  const std::string comma = BiText{", ", "，"}.in(lang);
  if (ends_with("tree_rooted.svg") || ends_with("tree_circular.svg")) {
    std::string t = BiText{"Phylogenetic tree of the members", "家族成员的系统发育树"}.in(lang) +
                    (ends_with("tree_circular.svg") ? BiText{" (circular layout)", "（环形布局）"}
                                                    : BiText{" (rectangular layout)", "（矩形布局）"})
                        .in(lang) +
                    comma +
                    (f.references_root ? BiText{"rooted on the reference members", "以参考成员定根"}
                                       : BiText{"rooted at its midpoint", "中点定根"})
                        .in(lang);
    if (!f.support_kind.empty())
      t += comma + BiText{f.support_kind + " supports at the nodes", "节点处为 " + f.support_kind + " 支持率"}.in(lang);
    if (f.subgroups)
      t += comma + BiText{"subgroups named from reference members coloured", "依据参考成员命名的亚组着色"}.in(lang);
    return t + comma + BiText{"scale bar in substitutions per site", "标尺单位为每位点替换数"}.in(lang);
  }
  if (ends_with("combined_panel.svg"))
    return BiText{"Phylogeny, conserved motifs, domain architecture and gene structure of the members",
                  "家族成员的系统发育、保守基序、结构域组成与基因结构"}
               .in(lang) +
           (f.subgroups ? BiText{" (subgroups coloured)", "（亚组着色）"}.in(lang) : "");
  if (ends_with("chromosome_map.svg"))
    return BiText{"Chromosomal locations of the members on a Mb ruler", "家族成员在染色体上的位置（Mb 标尺）"}.in(
               lang) +
           (f.tandem ? BiText{", tandem clusters bracketed", "，串联重复簇以括号标出"}.in(lang) : "");
  if (ends_with("kaks.svg"))
    return BiText{"Ka against Ks of the duplicated pairs (dashed line: Ka = Ks)",
                  "重复基因对的 Ka 与 Ks（虚线：Ka = Ks）"}
               .in(lang) +
           (f.selection_tested
                ? BiText{", coloured by the z-test of Ka = Ks", "，按 Ka = Ks 的 z 检验结果着色"}.in(lang)
                : "");
  static const std::pair<const char*, BiText> kFixed[] = {
      {"motif_map.svg", {"Conserved motifs along each protein", "各蛋白的保守基序分布"}},
      {"motif_logos.svg",
       {"Sequence logos of the conserved motifs (information content in bits) with their E-values and site counts",
        "保守基序的序列标识图（信息量，单位为比特）及其 E 值与位点数"}},
      {"gene_structure.svg", {"Exon-intron structures of the members", "家族成员的外显子-内含子结构"}},
      {"promoter_heatmap.svg",
       {"Cis-acting elements in the members' promoters, grouped by function",
        "家族成员启动子中的顺式作用元件（按功能分组）"}},
      {"synteny_circle.svg",
       {"The members on the chromosomes (scale ticks, gene density), their duplicated pairs coloured by duplication "
        "type",
        "家族成员在染色体上的位置（刻度与基因密度）及按复制类型着色的重复基因对"}},
      {"ks_distribution.svg", {"Ks distribution of the duplicated pairs", "重复基因对的 Ks 分布"}},
      {"genome_ks.svg",
       {"Ks of the genome's collinear anchor pairs, the family's pairs marked",
        "全基因组共线性锚点基因对的 Ks 分布，标出家族基因对"}},
      {"expression_heatmap.svg",
       {"Expression of the members (log2(x+1), row z-scores)", "家族成员的表达量（log2(x+1)，行 z 分数）"}},
      {"ppi_network.svg",
       {"Predicted interactions of the members (through their Arabidopsis orthologs)",
        "家族成员的预测互作网络（基于拟南芥直系同源基因）"}},
  };
  for (auto& [suffix, text] : kFixed)
    if (ends_with(suffix)) return text.in(lang);
  if (size_t at = file.find("dual_synteny_"); at != std::string::npos) {
    std::string other = file.substr(at + 13, file.size() - at - 13 - 4);
    return BiText{"Collinear genes between this species and " + other, "本物种与 " + other + " 之间的共线性基因"}.in(
        lang);
  }
  return file;  // a figure without a caption of its own keeps its file name
}

// The numbered caption of a figure file ("Figure 3. ..." or "图3 ..."), in the report's language.
std::string figure_caption(const std::string& text, int number, Lang lang) {
  return BiText{"Figure " + std::to_string(number) + ". ", "图" + std::to_string(number) + " "}.in(lang) + text;
}

std::string table_caption(const Section& s, int number, Lang lang) {
  const std::string& text = s.table_caption.empty() ? s.title : s.table_caption;
  return BiText{"Table " + std::to_string(number) + ". ", "表" + std::to_string(number) + " "}.in(lang) + text;
}

std::string html_escape(const std::string& s) { return svg::esc(s); }

// An absolute path inside a command or parameter, printed relative to the
// run folder (the run folder's own path names the session: sharing a report
// must not share it); `key=/path` arguments keep their key.
std::string relative_to_run(const std::string& text, const fs::path& run_dir) {
  size_t at = text.empty() ? std::string::npos : text[0] == '/' ? 0 : text.find("=/");
  if (at == std::string::npos || run_dir.empty()) return text;
  if (text[at] == '=') ++at;
  fs::path rel = fs::path(text.substr(at)).lexically_normal().lexically_relative(run_dir.lexically_normal());
  return text.substr(0, at) + (rel.empty() ? fs::path(text.substr(at)).filename().string() : rel.string());
}

Json relative_to_run(const Json& value, const fs::path& run_dir) {
  if (value.is_string()) return relative_to_run(value.get<std::string>(), run_dir);
  if (!value.is_structured()) return value;
  Json out = value;
  for (auto& [k, v] : out.items()) v = relative_to_run(v, run_dir);
  return out;
}

// Every stage's state as the engine saw it when the report ran.
Json stage_states(const StageContext& ctx) {
  Json out = Json::object();
  const Json states = ctx.run.value("stage_states", Json::object());  // kept alive: items() refers to it
  for (auto& [name, st] : states.items()) {
    out[name] = {{"state", st.value("state", "")}, {"message", st.value("message", "")}};
    if (st.contains("repair")) out[name]["repaired"] = true, out[name]["repair"] = st["repair"];
  }
  return out;
}

std::string reason_shown(const Json& st, Lang lang);

// A stage that did not finish in this run gives no numbers: "not run" and why, in the report's language.
std::string not_run(const StageContext& ctx, const char* stage, Lang lang) {
  const Json st = ctx.run.value("stage_states", Json::object()).value(stage, Json::object());
  const std::string why =
      st.empty() ? BiText{"not in this run", "本次分析未包含该阶段"}.in(lang) : reason_shown(st, lang);
  return BiText{"not run (" + why + ")", "未运行（" + why + "）"}.in(lang);
}

// A stage's reason in the report's language, from its typed reason (a Chinese
// report never prints the engine's English text), with the fix when there is one.
std::string reason_shown(const Json& st, Lang lang) {
  const Json reason = st.value("reason", Json());
  std::string r = BiText{st.value("message", std::string()).substr(0, 600), render_reason(reason, Lang::kZh)}.in(lang);
  if (r.empty()) r = BiText{render_reason(reason, Lang::kEn), "原因的原文见 status.json"}.in(lang);
  std::string fix = reason_fix(reason, lang);
  return fix.empty() ? r : r + BiText{". Suggested fix: ", "。建议："}.in(lang) + fix;
}

// A stage's section from its table entry: the state line when it did not
// simply finish, then what its own report function says of its outputs.
Section stage_section(const StageContext& ctx, const StageSpec& spec, Lang lang) {
  const Json st = ctx.run.value("stage_states", Json::object()).value(spec.name, Json::object());
  auto state = stage_state_from_string(st.value("state", std::string("pending")));
  ReportContext rc{ctx, state ? *state : StageState::kPending, st.value("message", std::string()),
                   ctx.input.count(spec.name) ? ctx.input.at(spec.name) : fs::path(), lang};
  Section s = spec.report(rc);
  std::string line;
  switch (rc.state) {
    case StageState::kSkipped:
      line = kText.skipped.in(lang) + reason_shown(st, lang);
      break;
    case StageState::kFailed:
      line = kText.failed.in(lang) + reason_shown(st, lang);
      break;
    case StageState::kWarn:
      line = kText.warn.in(lang) +
             BiText{rc.message, std::string("部分检查未达阈值（数值与阈值见 validation.json）")}.in(lang);
      break;
    case StageState::kCancelled:
      line = kText.cancelled.in(lang);
      break;
    case StageState::kDone:
    case StageState::kCached:
      if (st.contains("repair"))  // the parameters it finished with are not the ones asked for
        line = BiText{"Finished after an automatic repair: ", "已自动修复后完成："}.in(lang) +
               repair_text(st["repair"], lang) + BiText{" (", "（"}.in(lang) + repair_params_text(st["repair"], lang) +
               BiText{")", "）"}.in(lang);
      break;
    default:
      line = kText.not_run.in(lang);
  }
  if (!line.empty()) s.paragraphs.insert(s.paragraphs.begin(), line);
  if (!finished_with_outputs(rc.state)) s.figures.clear();
  return s;
}

// Pre-written text (params.prewritten: section id -> text, written elsewhere)
// opens its section, one paragraph per blank-line-separated block; the
// literature comparison, which no stage writes, gets its own section before
// the biological meaning.
void add_prewritten(std::vector<Section>& sections, const Json& prewritten, Lang lang) {
  auto paragraphs = [](const std::string& text) {
    std::vector<std::string> out;
    for (size_t at = 0; at < text.size();) {
      size_t end = text.find("\n\n", at);
      std::string p = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
      if (p.find_first_not_of(" \n") != std::string::npos) out.push_back(p);
      at = end == std::string::npos ? text.size() : end + 2;
    }
    return out;
  };
  const char* kLiterature = "literature-comparison";
  if (prewritten.contains(kLiterature)) {
    auto meaning = std::find_if(sections.begin(), sections.end(), [](auto& s) { return s.id == "meaning"; });
    sections.insert(
        meaning,
        Section{kLiterature, BiText{"Comparison with the literature", "文献对比"}.in(lang), {}, {}, {}, {}, {}});
  }
  for (auto& sec : sections)
    if (prewritten.contains(sec.id) && prewritten[sec.id].is_string()) {
      auto ps = paragraphs(prewritten[sec.id].get<std::string>());
      sec.paragraphs.insert(sec.paragraphs.begin(), ps.begin(), ps.end());
    }
}

// The parameters as run: the ones asked for with every automatic repair's
// patch applied, then, per repaired stage, what was asked and what was used.
std::vector<std::string> parameter_paragraphs(const StageContext& ctx, const fs::path& run_dir, Lang lang) {
  Json used = ctx.run.value("params", Json::object());
  std::vector<std::string> changes;
  const Json states = ctx.run.value("stage_states", Json::object());
  for (auto& [name, st] : states.items()) {
    if (!st.contains("repair") || !st["repair"].is_object()) continue;
    const Json& rep = st["repair"];
    if (!used.contains(name) || !used[name].is_object()) used[name] = Json::object();
    used[name].merge_patch(rep.value("used", Json::object()));
    changes.push_back(name + BiText{": ", "："}.in(lang) + repair_params_text(rep, lang) +
                      BiText{" (automatic repair ", "（自动修复 "}.in(lang) + rep.value("key", std::string()) +
                      BiText{": ", "："}.in(lang) + repair_text(rep, lang) + BiText{")", "）"}.in(lang));
  }
  std::vector<std::string> out = {BiText{"Parameters as run: ", "实际使用的参数："}.in(lang) +
                                  json_text(relative_to_run(used, run_dir))};
  for (auto& c : changes)
    out.push_back(BiText{"Parameters that differ from those asked: ", "与设定不同的参数："}.in(lang) + c);
  return out;
}

Status build(const StageContext& ctx) {
  const Lang lang = lang_or_en(ctx.params.value("lang", std::string()));
  const std::string sp = ctx.run.value("species", std::string()), fam = ctx.run.value("family", std::string());
  auto in = [&](const char* stage) { return ctx.input.count(stage) ? ctx.input.at(stage) : fs::path(); };
  auto json_of = [&](const char* stage) {
    return in(stage).empty() ? Json::object() : read_json_or(in(stage) / (std::string(stage) + ".json"));
  };
  auto members = read_members(in("identify"));
  if (!members) return members.status();
  Json phylo = json_of("phylogeny"), domain = json_of("domain"), chrom = json_of("chromosome"),
       promoter = json_of("promoter"), kaks = json_of("kaks"), expr = json_of("expression"), motif = json_of("motif"),
       synteny = json_of("synteny");
  auto pep = read_fasta(in("identify") / final_name(ctx, "pep.fasta"));
  std::map<std::string, ProteinProperties> props;
  if (pep)
    for (auto& r : *pep)
      props[r.id] = protein_properties(
          r.seq, pk_scale(ctx.run.value("params", Json::object()).value("properties", Json::object())));
  // Subfamilies from the phylogeny stage.
  std::map<std::string, std::string> subfamily;
  std::map<std::string, int> per_group, no_group;  // no_group: reason -> members in no named clade
  if (auto t = read_text(in("phylogeny") / final_name(ctx, "subfamilies.tsv"))) {
    std::istringstream rows(*t);
    std::string row;
    std::getline(rows, row);
    while (std::getline(rows, row)) {
      auto a = row.find('\t'), b = row.find('\t', a + 1);
      std::string g = row.substr(a + 1, b - a - 1);
      if (g == "unassigned" || g == "—") {  // in no named clade: counted with its reason
        const auto reason = row.substr(row.rfind('\t') + 1);
        if (b != std::string::npos && row.find('\t', b + 1) != row.rfind('\t')) ++no_group[reason];
        continue;
      }
      subfamily[row.substr(0, a)] = g;
      ++per_group[g];
    }
  }
  // Result parser: the key findings.
  std::vector<double> ratios;  // estimated pairs only: not estimated and saturated ones are no values
  for (auto& r : kaks.value("rows", Json::array()))
    if (r.value("status", std::string()) == "estimated" && r["ka_ks"].is_number()) ratios.push_back(r["ka_ks"]);
  const double median_ratio = median_of(ratios);  // NaN with no pair
  double mw_min = 1e300, mw_max = 0, pi_min = 14, pi_max = 0;
  for (auto& [g, p] : props) {
    mw_min = std::min(mw_min, p.molecular_weight);
    mw_max = std::max(mw_max, p.molecular_weight);
    pi_min = std::min(pi_min, p.isoelectric_point);
    pi_max = std::max(pi_max, p.isoelectric_point);
  }
  // A number of a stage that did not finish here is "not run", never 0.
  auto ran = [&](const char* stage, const Json& j, const char* key) {
    return in(stage).empty() || !j.contains(key) ? Json("not run") : j[key];
  };
  Json findings = {{"species", sp},
                   {"family", fam},
                   {"member_count", members->size()},
                   {"groups", per_group},
                   {"chromosome_distribution", ran("chromosome", chrom, "per_chromosome")},
                   {"tandem_clusters", ran("chromosome", chrom, "tandem_clusters")},
                   {"duplication",
                    {{"tandem_cluster_genes", ran("chromosome", chrom, "genes_in_tandem_clusters")},
                     {"pairs_with_kaks", ran("kaks", kaks, "pairs")},
                     {"member_classes", ran("synteny", synteny, "member_duplication")},
                     {"collinear_blocks", ran("synteny", synteny, "blocks")}}},
                   {"kaks",
                    {{"pairs", ratios.size()},
                     {"median_ka_ks", ratios.empty() ? Json() : Json(median_ratio)},
                     {"purifying", kaks.value("purifying_selection", 0)},
                     {"positive", kaks.value("positive_selection", 0)},
                     {"not_tested", kaks.value("not_tested", 0)},
                     {"not_estimated", kaks.value("not_estimated", 0)},
                     {"saturated", kaks.value("saturated", 0)}}},
                   {"stage_states", stage_states(ctx)},
                   {"phylogeny",
                    {{"method", phylo.value("method", "")},
                     {"model", phylo.value("model", "")},
                     {"support_kind", phylo.value("support_kind", "")},
                     {"median_support", phylo.value("median_support", 0.0)}}},
                   {"domain_coverage_mean", domain.value("mean_coverage", 0.0)},
                   {"protein_mw_kda_range", props.empty() ? Json() : Json::array({mw_min / 1000, mw_max / 1000})},
                   {"protein_pi_range", props.empty() ? Json() : Json::array({pi_min, pi_max})},
                   {"notable_promoter_elements", promoter.value("top_elements", Json::array())},
                   {"conserved_motifs", motif.value("motifs", Json::array())},
                   {"expression", expr}};
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "findings.json"), json_text(findings, 2)));

  std::vector<Section> sections;
  {
    Section s{"summary", kText.summary.in(lang), {}, {}, {}, {}};
    std::ostringstream p;
    if (lang == Lang::kZh)
      p << kText.found.in(lang) << " " << members->size() << " 个 " << fam << " 基因";
    else
      p << members->size() << " " << fam << " genes were " << kText.found.in(lang) << " in " << sp;
    if (!per_group.empty())
      p << BiText{", in ", "，分为 "}.in(lang) << per_group.size() << BiText{" subfamilies", " 个亚家族"}.in(lang);
    if (findings["tandem_clusters"].is_number())
      p << BiText{"; ", "；"}.in(lang) << findings["tandem_clusters"].get<int>()
        << BiText{" tandem clusters", " 个串联重复簇"}.in(lang);
    else
      p << BiText{"; tandem clusters: ", "；串联重复簇："}.in(lang) << not_run(ctx, "chromosome", lang);
    if (!ratios.empty())
      p << BiText{"; median Ka/Ks of duplicated pairs ", "；重复基因对 Ka/Ks 中位数 "}.in(lang) << fmt(median_ratio);
    p << BiText{".", "。"}.in(lang);
    s.paragraphs.push_back(p.str());
    sections.push_back(s);
  }
  {
    Section s{"genes", kText.genes.in(lang), {}, {}, {}, {}};
    s.table_header = texts_in(lang, {{"name", "名称"},
                                     {"gene id", "基因编号"},
                                     {"chr", "染色体"},
                                     {"start", "起始"},
                                     {"end", "终止"},
                                     {"strand", "链"},
                                     {"aa", "氨基酸数"},
                                     {"MW (kDa)", "分子量 (kDa)"},
                                     {"pI", "等电点"},
                                     {"GRAVY", "亲水性 (GRAVY)"},
                                     {"group", "亚家族"}});
    for (auto& m : *members) {
      const ProteinProperties& p = props[m.name];
      const bool placed = !m.seqid.empty();  // no position known: "—", never 0/0/+
      s.table.push_back({m.name, m.gene, placed ? m.seqid : "—", placed ? std::to_string(m.start) : "—",
                         placed ? std::to_string(m.end) : "—", placed ? std::string(1, m.strand) : "—",
                         std::to_string(p.length), fmt(p.molecular_weight / 1000), fmt(p.isoelectric_point),
                         fmt(p.gravy, 3), subfamily.count(m.name) ? subfamily[m.name] : "—"});
    }
    for (auto& [reason, n] : no_group)
      if (!reason.empty())
        s.paragraphs.push_back(BiText{"Group “—”: ", "分组为 “—” 的成员 "}.in(lang) + std::to_string(n) +
                               BiText{" members, because ", " 个，原因："}.in(lang) +
                               BiText{reason, group_reason_zh(reason)}.in(lang) + BiText{".", "。"}.in(lang));
    sections.push_back(s);
  }
  std::string base = sp + "." + fam + ".";
  // Each stage's own section, in table order, headed by its state when it is not done.
  const Pipeline& table = ctx.pipeline ? *ctx.pipeline : genefamily_pipeline();
  for (auto& spec : table.stages())
    if (spec.report && spec.name != "report") sections.push_back(stage_section(ctx, spec, lang));
  {
    Section s{"function", kText.function.in(lang), {}, {}, {}, {}};
    if (per_group.empty())
      s.paragraphs.push_back(
          BiText{"No reference members were given (phylogeny.references), so functions are not "
                 "predicted from orthologs.",
                 "未提供参考物种成员（phylogeny.references），无法按直系同源推断功能。"}
              .in(lang));
    else
      for (auto& [g, n] : per_group)
        s.paragraphs.push_back(g + ": " + std::to_string(n) +
                               BiText{" members, which may share the functions of that subfamily's reference members.",
                                      " 个成员，可能具有与该亚家族参考成员相似的功能。"}
                                   .in(lang));
    sections.push_back(s);
  }
  {
    Section s{"meaning", kText.meaning.in(lang), {}, {}, {}, {}};
    int tandem = chrom.value("genes_in_tandem_clusters", 0);
    if (!in("chromosome").empty())  // tandem duplication is a finding only when the chromosome map ran
      s.paragraphs.push_back(
          BiText{(tandem ? std::to_string(tandem) +
                               " members lie in tandem clusters: tandem duplication contributed to the family's size."
                         : "No tandem clusters were found."),
                 (tandem ? "串联重复对该家族扩张有贡献。" : "未发现串联重复簇。")}
              .in(lang));
    // Selection is claimed only from the test of Ka = Ks (yn00's standard errors), never from the ratio alone.
    const int purifying = kaks.value("purifying_selection", 0), positive = kaks.value("positive_selection", 0);
    if (!ratios.empty() && purifying + positive > 0)
      s.paragraphs.push_back(BiText{
          std::to_string(purifying) + " of the " + std::to_string(ratios.size()) +
              " estimated duplicated pairs are under significant purifying selection and " + std::to_string(positive) +
              " under significant positive selection (z-test of Ka = Ks from yn00's standard errors, p < 0.05).",
          std::to_string(ratios.size()) + " 对可估计的重复基因对中，" + std::to_string(purifying) +
              " 对受显著纯化选择，" + std::to_string(positive) +
              " 对受显著正选择（基于 yn00 标准误的 Ka = Ks z 检验，p < 0.05）。"}
                                 .in(lang));
    sections.push_back(s);
  }
  std::vector<std::string> references;  // filled by the methods
  {
    Section s{"methods", kText.methods.in(lang), {}, {}, {}, {}, {}};
    s.table_header = texts_in(lang, {{"stage", "阶段"},
                                     {"command", "命令"},
                                     {"tool versions", "程序版本"},
                                     {"seconds", "用时（秒）"},
                                     {"exit", "退出码"}});
    const fs::path run_dir = fs::absolute(ctx.run.value("run_dir", std::string()));
    auto history = pipeline_history(run_dir);
    std::vector<Json> rows;
    if (history)
      for (auto& a : *history) rows.push_back(a);
    std::reverse(rows.begin(), rows.end());  // oldest first: the timeline
    for (auto& a : rows)
      if (a["argv"].is_array() && !a["argv"].empty()) {
        std::string argv;
        for (auto& x : a["argv"]) argv += (argv.empty() ? "" : " ") + relative_to_run(x.get<std::string>(), run_dir);
        s.table.push_back({a.value("stage", ""), argv, json_text(a["versions"]), fmt(a.value("seconds", 0.0)),
                           std::to_string(a.value("exit_code", 0))});
      }
    std::ostringstream inputs;
    inputs << kText.inputs.in(lang) << ": ";
    const Json files = ctx.run.value("files", Json::object());  // kept alive: items() refers to it
    for (auto& [k, v] : files.items()) {
      auto d = file_sha256(v.get<std::string>());
      inputs << k << " " << fs::path(v.get<std::string>()).filename().string()
             << " sha256:" << (d ? d->substr(0, 16) : "?") << "; ";
    }
    s.paragraphs.push_back(inputs.str());
    s.paragraphs.push_back(BiText{"Each stage's programs, versions and parameters as run (defaults included):",
                                  "各阶段的程序、版本与实际参数（含默认值）如下。"}
                               .in(lang));
    std::vector<std::string> cited;
    for (auto& p : methods_narrative(ctx, rows, lang, &cited)) s.paragraphs.push_back(p);
    references.clear();
    for (size_t i = 0; i < cited.size(); ++i)
      references.push_back("[" + std::to_string(i + 1) + "] " + reference_text(cited[i]));
    for (auto& p : parameter_paragraphs(ctx, run_dir, lang)) s.paragraphs.push_back(p);
    if (!rows.empty())
      s.paragraphs.push_back(kText.timeline.in(lang) + ": " + rows.front().value("at", "") + " → " +
                             rows.back().value("at", ""));
    sections.push_back(s);
  }

  add_prewritten(sections, ctx.params.value("prewritten", Json::object()), lang);
  if (!references.empty())  // last: the works the methods cite, by their numbers
    sections.push_back(Section{"references", BiText{"References", "参考文献"}.in(lang), references, {}, {}, {}, {}});
  // Markdown and HTML from the same sections.
  std::string title = sp + " " + fam + " " + kText.title_suffix.in(lang);
  std::ostringstream md, html;
  md << "# " << title << "\n\n";
  html << "<!doctype html><html lang=\"" << lang_name(lang) << "\"><head><meta charset=\"utf-8\"><title>"
       << html_escape(title)
       << "</title><style>body{font-family:'DejaVu Sans',Arial,sans-serif;max-width:1100px;margin:2em auto;"
          "padding:0 1em;color:#222}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;"
          "padding:3px 6px}th{background:#f0f0f0}caption{text-align:left;font-weight:bold;padding:4px 0}"
          "figure{margin:1em 0;overflow-x:auto}figcaption{font-weight:bold}h2{border-bottom:1px solid "
          "#ddd}</style></head><body><h1>"
       << html_escape(title) << "</h1>\n";
  const fs::path final_dir = fs::path(ctx.run.value("run_dir", std::string())) / "final";
  int figure_number = 0, table_number = 0;
  const Json panel = json_of("panel");
  CaptionFacts facts;
  facts.references_root = panel.value("root", std::string()) == "reference members";
  facts.subgroups = panel.value("subgroups", false);
  facts.support_kind = phylo.value("support_kind", std::string()) == "ufboot"    ? "UFBoot"
                       : phylo.value("support_kind", std::string()) == "sh_like" ? "SH-like"
                                                                                 : "";
  facts.tandem = chrom.value("tandem_clusters", 0) > 0;
  for (auto& r : kaks.value("rows", Json::array()))
    facts.selection_tested |= !r.value("selection", std::string()).empty();
  Json captions = Json::array();  // each figure's numbered caption, for the web page's results panel
  for (auto& s : sections) {
    md << "## " << s.title << "\n\n";
    html << "<h2 id=\"" << html_escape(s.id) << "\">" << html_escape(s.title) << "</h2>\n";
    for (auto& p : s.paragraphs) {
      md << p << "\n\n";
      html << (p.find('\n') == std::string::npos ? "<p>" : "<p style=\"white-space:pre-line\">") << html_escape(p)
           << "</p>\n";
    }
    if (!s.table_header.empty()) {
      const std::string caption = table_caption(s, ++table_number, lang);
      md << "**" << caption << "**\n\n|";
      html << "<table id=\"table-" << table_number << "\"><caption>" << html_escape(caption) << "</caption><tr>";
      for (auto& h : s.table_header) {
        md << " " << h << " |";
        html << "<th>" << html_escape(h) << "</th>";
      }
      md << "\n|";
      for (size_t i = 0; i < s.table_header.size(); ++i) md << " --- |";
      md << "\n";
      html << "</tr>\n";
      for (auto& row : s.table) {
        md << "|";
        html << "<tr>";
        for (auto& c : row) {
          md << " " << c << " |";
          html << "<td>" << html_escape(c) << "</td>";
        }
        md << "\n";
        html << "</tr>\n";
      }
      md << "\n";
      html << "</table>\n";
    }
    for (auto& f : s.figures) {
      auto svg_text = read_text(final_dir / f);
      if (!svg_text) continue;  // the stage did not draw it
      const std::string text = caption_text(f, lang, facts);
      const std::string caption = figure_caption(text, ++figure_number, lang);
      captions.push_back({{"file", f}, {"number", figure_number}, {"caption", caption}, {"text", text}});
      md << "![" << caption << "](" << f << ")\n\n*" << caption << "*\n\n";
      html << "<figure id=\"figure-" << figure_number << "\" data-file=\"" << html_escape(f) << "\">" << *svg_text
           << "<figcaption>" << html_escape(caption) << "</figcaption></figure>\n";
    }
  }
  html << "</body></html>\n";
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "report.md"), md.str()));
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "report.html"), html.str()));
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "figure_captions.json"),
                                      json_text(Json{{"lang", lang_name(lang)}, {"figures", captions}}, 2)));
  std::ostringstream outputs;
  outputs << "# Outputs of the " << sp << " " << fam << " run\n\n";
  const std::vector<std::pair<std::string, std::string>> kFiles = {
      {"names.tsv", "each member's name (the one every figure, table and file uses) with its gene and protein ids"},
      {"pep.fasta", "member proteins (longest isoform per gene), under the members' names"},
      {"cds.fasta", "member CDS, under the members' names"},
      {"geneID.txt", "the members' gene ids as the data names them, one per line (for extracting from the data)"},
      {"domain.txt", "hmmsearch domain hits of each member (HMM and sequence coordinates, i-Evalue, score)"},
      {"tree.nwk", "the phylogeny (Newick; UFBoot or FastTree local supports on internal nodes)"},
      {"tree_rooted.svg", "the tree rooted on the reference members (or at its midpoint), rectangular layout"},
      {"tree_circular.svg", "the same rooted tree, circular layout"},
      {"subfamilies.tsv", "group of each member: the clade of the reference members it falls in (— with the reason)"},
      {"members.tsv", "the members with their coordinates and group from the tree"},
      {"domain_architecture.tsv", "domains in order along each protein and HMM coverage"},
      {"properties.tsv", "length, molecular weight, pI, instability index, aliphatic index, GRAVY"},
      {"motifs.meme.txt", "discovered motifs in MEME format (E-values are our approximation)"},
      {"motif_sites.tsv", "each motif site: gene, motif, position, sequence, posterior"},
      {"motif_map.svg", "motif sites along each protein"},
      {"motif_logos.svg", "sequence logos of the motifs"},
      {"gene_structure.tsv", "exons, introns and UTRs of each member"},
      {"gene_structure.svg", "exon-intron structures"},
      {"chromosome_positions.tsv", "chromosome, position, gene rank and tandem cluster of each member"},
      {"chromosome_map.svg", "members on the chromosomes (Mb ruler), tandem clusters bracketed"},
      {"combined_panel.svg", "rooted tree, conserved motifs, domain architecture and gene structure on shared rows"},
      {"family_assignments.tsv", "classify: each protein with domains of the set, its family, subfamily and rule"},
      {"family_counts.tsv", "classify: proteins per family and how far the profiles decide each family"},
      {"promoters.fasta", "upstream regions (5'->3', ending at the gene)"},
      {"promoter_sites.tsv", "every cis-element or PWM match (position relative to the gene start)"},
      {"promoter_counts.tsv", "element counts per gene"},
      {"promoter_heatmap.svg", "element counts grouped by function (light, hormone, stress, development)"},
      {"collinearity", "collinear blocks of the whole genome in MCScanX's .collinearity layout"},
      {"duplication.tsv",
       "each member's duplication type (singleton, dispersed, proximal, tandem, segmental) and block partners"},
      {"synteny_circle.svg",
       "circos-style: chromosome ticks, gene density, members by name, links by duplication type"},
      {"dual_synteny_<Prefix>.svg", "with synteny.comparative: collinear genes between this species and <Prefix>"},
      {"kaks.tsv", "Ka, Ks, Ka/Ks, the z-test of Ka = Ks (z, p, selection) and divergence time of duplicated pairs"},
      {"kaks.svg", "Ka against Ks"},
      {"ks_distribution.svg", "the Ks distribution of the estimated pairs, its peaks marked"},
      {"expression_log2.tsv", "members' log2(x+1) expression, clustered order"},
      {"expression_heatmap.svg", "row z-scores as a heatmap"},
      {"findings.json", "key findings for programs (the result parser)"},
      {"report.md", "this run's report in Markdown"},
      {"report.html", "the same report as one self-contained HTML file"},
      {"figure_captions.json", "the report's numbered figure captions by file (the web page shows them)"}};
  // Only the files this run produced: the other stages' in the run's final/, this stage's own.
  for (auto& [suffix, what] : kFiles) {
    std::error_code ec;
    const bool own = suffix == "findings.json" || suffix == "report.md" || suffix == "report.html" ||
                     suffix == "figure_captions.json";
    if (own || fs::exists(final_dir / (base + suffix), ec))
      outputs << "- `final/" << base << suffix << "`: " << what << "\n";
  }
  if (figure_export_available())
    outputs << "- `final/" << base
            << "<figure>.pdf` and `.png`: each figure as a vector PDF and a 300 dpi PNG, 180 mm wide (rsvg-convert)\n";
  else
    outputs << "- PDF and PNG copies of the figures were not written: rsvg-convert (Debian package librsvg2-bin) is "
               "not installed\n";
  outputs << "- `final/" << base
          << "results.zip`: this folder's files in one archive (the report's links work in it)\n";
  outputs << "- `run.sqlite`: every command's argv, tool versions, times, exit codes and memory\n"
             "- `stages/<stage>-<key>/`: each stage's working folder and log (stage.log)\n";
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "final" / "outputs.md", outputs.str()));
  return write_text(ctx.work / "report.json",
                    json_text(Json{{"sections", sections.size()}, {"lang", lang_name(lang)}}));
}

}  // namespace

StageSpec report_stage() {
  StageSpec s;
  s.name = "report";
  s.label = "report";
  s.label_zh = "分析报告";
  s.description = "Key findings (JSON), report in Markdown and self-contained HTML (en or zh), outputs.md";
  s.after = {"identify"};
  // `uses`: every stage with a report section, filled in by the stage table; their states head their sections.
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "lang": {"type": "string", "enum": ["en", "zh"], "default": "en"},
      "prewritten": {"type": "object", "default": {}, "additionalProperties": {"type": "string", "maxLength": 20000},
                     "description": "text written elsewhere (a model, a person) placed first in a section, by section id"}
    }, "additionalProperties": false})JS");
  // The figures' PDF and PNG copies first (the outputs list names them), then the report, then the zip of it all.
  s.steps = [](const StageContext& ctx) -> Result<std::vector<Step>> {
    std::vector<Step> steps = {StageFn([](const StageContext& c) -> Status {
      std::error_code ec;  // the exports write into the stage's final/ before the report does
      fs::create_directories(c.work / "final", ec);
      return ec ? internal_error("cannot create the report's final folder: " + ec.message()) : Status::ok();
    })};
    for (auto& step : figure_export_steps(ctx)) steps.push_back(std::move(step));
    steps.push_back(StageFn(build));
    steps.push_back(StageFn(write_results_zip));
    return steps;
  };
  s.outputs = {"report.json"};
  s.parse = summary_file("report.json");
  s.revision = 6;  // section ids on the headings; pre-written paragraphs; repairs asked vs used; numbered captions;
                   // 5: figure_captions.json; 6: captions from what was drawn, PDF/PNG exports, results.zip
  return s;
}

}  // namespace bioagent::gf

namespace bioagent {

void set_run_language(Json& run_config, Lang lang) {
  run_config["lang"] = lang_name(lang);
  Json& report = run_config["params"]["report"];
  if (!report.is_object()) report = Json::object();
  if (!report.contains("lang")) report["lang"] = lang_name(lang);
}

}  // namespace bioagent
