// The panel stage: the tree figures (rooted, rectangular, circular) and the
// combined figure of gene-family papers, the rooted tree beside each member's
// conserved motifs, domain architecture and gene structure on shared rows; tips
// under the members' new names once the chromosome stage renamed them (rooted on the reference members when they form
// one clade, else at the midpoint). A column whose stage did not finish is left empty and the report says which and
// why.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "genefamily/algo/newick.h"
#include "genefamily/figures/figures_paper.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {
namespace {

std::vector<std::vector<std::string>> tsv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream cs(line);
    for (std::string c; std::getline(cs, c, '\t');) cells.push_back(c);
    out.push_back(cells);
  }
  return out;
}

fs::path upstream_file(const StageContext& ctx, const char* stage, const std::string& suffix) {
  return ctx.input.count(stage) ? ctx.input.at(stage) / final_name(ctx, suffix) : fs::path();
}

// motif_sites.tsv: gene motif start end site probability
bool add_motifs(const StageContext& ctx, std::map<std::string, figures::PanelRow>& rows) {
  auto t = read_text(upstream_file(ctx, "motif", "motif_sites.tsv"));
  if (!t) return false;
  for (auto& c : tsv_rows(*t))
    if (c.size() >= 4 && rows.count(c[0])) rows[c[0]].motifs.push_back({std::stoll(c[2]), std::stoll(c[3]), c[1]});
  return true;
}

// domain_architecture.tsv: gene protein length domains architecture(name:from-to;...) coverage
bool add_domains(const StageContext& ctx, std::map<std::string, figures::PanelRow>& rows) {
  auto t = read_text(upstream_file(ctx, "domain", "domain_architecture.tsv"));
  if (!t) return false;
  for (auto& c : tsv_rows(*t)) {
    if (c.size() < 5 || !rows.count(c[0])) continue;
    std::istringstream parts(c[4]);
    for (std::string d; std::getline(parts, d, ';');) {
      auto colon = d.rfind(':'), dash = d.rfind('-');
      if (colon == std::string::npos || dash == std::string::npos || dash < colon) continue;
      rows[c[0]].domains.push_back(
          {std::stoll(d.substr(colon + 1, dash - colon - 1)), std::stoll(d.substr(dash + 1)), d.substr(0, colon)});
    }
  }
  return true;
}

// Exons of each member's transcript, from the gene's 5' end.
bool add_exons(const StageContext& ctx, const std::vector<Member>& members,
               std::map<std::string, figures::PanelRow>& rows) {
  if (ctx.data("gff3").empty() || !ctx.input.count("structure")) return false;
  auto gff = read_gff3(ctx.data("gff3"));
  if (!gff) return false;
  for (auto& m : members) {
    std::string tid = m.transcript.empty() ? gff->transcript_of(m.protein) : m.transcript;  // identify's
    if (tid.empty() || !gff->transcripts.count(tid) || !rows.count(m.gene)) continue;
    const GffTranscript& t = gff->transcripts.at(tid);
    auto& row = rows[m.gene];
    row.gene_length = t.end - t.start + 1;
    for (auto& e : t.exons.empty() ? t.cds : t.exons)
      row.exons.push_back(t.strand == '-' ? figures::Span{t.end - e.end + 1, t.end - e.start + 1, "exon"}
                                          : figures::Span{e.start - t.start + 1, e.end - t.start + 1, "exon"});
    std::sort(row.exons.begin(), row.exons.end(), [](auto& a, auto& b) { return a.start < b.start; });
  }
  return true;
}

// The members' new names once the chromosome stage renamed them (renaming.tsv:
// new_name gene seqid start): gene -> new name; empty when it did not run.
std::map<std::string, std::string> new_names(const StageContext& ctx) {
  std::map<std::string, std::string> name;
  if (auto t = read_text(upstream_file(ctx, "chromosome", "renaming.tsv")))
    for (auto& c : tsv_rows(*t))
      if (c.size() >= 2 && !c[0].empty()) name[c[1]] = c[0];
  return name;
}

void rename_leaves(NewickTree& tree, const std::map<std::string, std::string>& name) {
  for (int leaf : tree.leaves())
    if (auto it = name.find(tree.nodes[size_t(leaf)].name); it != name.end())
      tree.nodes[size_t(leaf)].name = it->second;
}

template <typename Map>
void rekey(Map& m, const std::map<std::string, std::string>& name) {
  Map out;
  for (auto& [k, v] : m) out[name.count(k) ? name.at(k) : k] = v;
  m = std::move(out);
}

// Each leaf's group for the tree figures (references by theirs, members by the
// clade they fall in): the phylogeny stage's leaf_groups.tsv.
std::map<std::string, std::string> leaf_groups(const StageContext& ctx) {
  std::map<std::string, std::string> out;
  if (!ctx.input.count("phylogeny")) return out;
  if (auto t = read_text(ctx.input.at("phylogeny") / "leaf_groups.tsv"))
    for (auto& c : tsv_rows(*t))
      if (c.size() >= 2) out[c[0]] = c[1];
  return out;
}

// The tree figures (rectangular, circular, rooted as papers root them: on the
// reference members when they form one clade, else at the midpoint), tips
// under the members' new names when they have them.
Status draw_trees(const StageContext& ctx, const NewickTree& named, const std::map<std::string, std::string>& group,
                  const std::vector<std::string>& outgroup) {
  const std::string title = figure_title(ctx, {" phylogeny", " 系统发育树"});
  BIOAGENT_RETURN_IF_ERROR(
      write_text(ctx.work / final_name(ctx, "tree.svg"), figures::tree(run_lang(ctx), named, group, false, title)));
  BIOAGENT_RETURN_IF_ERROR(write_text(
      ctx.work / final_name(ctx, "tree_circular.svg"),
      figures::tree(run_lang(ctx), named, group, true, title + BiText{" (circular)", "（环形）"}.in(run_lang(ctx)))));
  auto rooted = figures::rooted_tree_figure(run_lang(ctx), named, outgroup, group, title);
  if (!rooted) rooted = figures::rooted_tree_figure(run_lang(ctx), named, {}, group, title);
  if (!rooted) return rooted.status();
  return write_text(ctx.work / final_name(ctx, "tree_rooted.svg"), *rooted);
}

Status draw_panel(const StageContext& ctx) {
  auto members = read_members(ctx.input.at("identify"));
  if (!members) return members.status();
  auto text = read_text(upstream_file(ctx, "phylogeny", "tree.nwk"));
  if (!text) return text.status();
  auto tree = parse_newick(*text);
  if (!tree) return tree.status();
  std::map<std::string, std::string> subfamily;
  if (auto t = read_text(upstream_file(ctx, "phylogeny", "subfamilies.tsv")))
    for (auto& c : tsv_rows(*t))
      if (c.size() >= 2 && c[1] != "unassigned" && c[1] != "—") subfamily[c[0]] = c[1];
  std::vector<std::string> outgroup;  // reference members, named REF_<id> in the tree (never renamed)
  for (int leaf : tree->leaves())
    if (tree->nodes[size_t(leaf)].name.rfind("REF_", 0) == 0) outgroup.push_back(tree->nodes[size_t(leaf)].name);
  const auto name = new_names(ctx);
  const bool renamed = !name.empty();
  NewickTree named = *tree;
  rename_leaves(named, name);
  auto group = leaf_groups(ctx);
  rekey(group, name);
  rekey(subfamily, name);
  BIOAGENT_RETURN_IF_ERROR(draw_trees(ctx, named, group, outgroup));
  std::string root = "midpoint";
  NewickTree rooted = figures::midpoint_rooted(named);
  if (!outgroup.empty())
    if (auto r = figures::outgroup_rooted(named, outgroup)) rooted = *r, root = "reference members";
  std::map<std::string, figures::PanelRow> rows;
  if (auto pep = read_fasta(ctx.input.at("identify") / final_name(ctx, "pep.fasta")))
    for (auto& r : *pep) rows[r.id].protein_length = int64_t(r.seq.size());
  Json columns = {{"motifs", add_motifs(ctx, rows)},
                  {"domains", add_domains(ctx, rows)},
                  {"gene_structure", add_exons(ctx, *members, rows)}};
  rekey(rows, name);
  const bool at_midpoint = root == "midpoint";
  const std::string title = figure_title(
      ctx,
      {": phylogeny (rooted at the " + root + "), motifs, domains and gene structure",
       std::string("：系统发育树（") + (at_midpoint ? "中点定根" : "以参考成员定根") + "）、基序、结构域与基因结构"});
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "combined_panel.svg"),
                                      figures::combined_panel(run_lang(ctx), rooted, subfamily, rows, title)));
  return write_text(ctx.work / "panel.json",
                    Json{{"rows", rows.size()}, {"root", root}, {"columns", columns}, {"renamed", renamed}}.dump(2));
}

// Why the tree figures keep the original ids: the chromosome stage renames, and it did not run here.
std::string names_kept_text(const ReportContext& r) {
  const Json st = r.ctx.run.value("stage_states", Json::object()).value("chromosome", Json::object());
  const std::string state = st.value("state", std::string());
  if (r.lang == Lang::kZh)
    return std::string(
               "系统树图与综合图中的成员保留原始编号：按染色体顺序重命名需要染色体定位阶段（需基因组与 "
               "GFF3），本次该阶段") +
           (state == "skipped"  ? "已跳过"
            : state == "failed" ? "未成功完成"
                                : "未运行") +
           "（原因见“染色体分布”一节）。";
  return std::string(
             "The tree figures and the combined figure show the members' original ids: renaming by "
             "chromosome order needs the chromosome stage (genome and GFF3), which ") +
         (state == "skipped"  ? "was skipped"
          : state == "failed" ? "did not finish"
                              : "did not run") +
         " here (the reason is in the chromosome section).";
}

ReportSection panel_report(const ReportContext& r) {
  ReportSection s = section(r, "panel", {"Tree figures and the combined figure", "系统发育树图与综合图"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "panel.json");
  if (j.empty()) return s;
  const Json cols = j.value("columns", Json::object());
  std::string missing;
  const std::vector<std::tuple<const char*, const char*, const char*>> kColumns = {
      {"motifs", "conserved motifs (the motif stage did not finish)", "保守基序（motif 阶段未完成）"},
      {"domains", "domains (the domain stage did not finish)", "结构域（domain 阶段未完成）"},
      {"gene_structure", "gene structure (no GFF3, or the structure stage did not finish)",
       "基因结构（无 GFF3 或 structure 阶段未完成）"}};
  for (auto& [key, en, zh] : kColumns)
    if (!cols.value(key, false))
      missing += std::string(missing.empty() ? "" : BiText{"; ", "；"}.in(r.lang)) + BiText{en, zh}.in(r.lang);
  const bool mid = j.value("root", std::string()) == "midpoint";
  s.paragraphs.push_back(BiText{std::to_string(j.value("rows", 0)) + " members: the tree (rooted at the " +
                                    j.value("root", std::string()) +
                                    ") beside their motifs, domains and gene structures, row by row.",
                                std::to_string(j.value("rows", 0)) + " 个成员：系统树（" +
                                    (mid ? "中点定根" : "以参考成员定根") + "）、保守基序、结构域与基因结构按行对齐。"}
                             .in(r.lang));
  if (!missing.empty())
    s.paragraphs.push_back(BiText{"Empty columns: ", "空列："}.in(r.lang) + missing + BiText{".", "。"}.in(r.lang));
  if (!j.value("renamed", false)) s.paragraphs.push_back(names_kept_text(r));
  const std::string base = final_base(r.ctx);
  s.figures = {base + "combined_panel.svg", base + "tree_rooted.svg", base + "tree.svg", base + "tree_circular.svg"};
  return s;
}

}  // namespace

StageSpec panel_stage() {
  StageSpec s;
  s.name = "panel";
  s.label = "tree figures and combined figure";
  s.label_zh = "系统发育树图与综合图";
  s.description =
      "The tree figures (rooted, rectangular, circular) under the members' new names, and the tree beside conserved "
      "motifs, domain architecture and gene structure in one aligned panel";
  s.after = {"identify", "phylogeny"};
  s.uses = {"motif", "domain", "structure", "chromosome"};  // their columns and the new names, when they finished
  s.data_files = {"gff3"};
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> { return std::vector<Step>{StageFn(draw_panel)}; };
  s.outputs = {"panel.json"};
  s.parse = summary_file("panel.json");
  s.report = panel_report;
  s.revision = 3;  // 2: the renamed members; motif colours from the shared palette; 3: the tree figures
  return s;
}

}  // namespace bioagent::gf
