// The panel stage: the tree figures (rooted, rectangular, circular) and the
// combined figure of gene-family papers, the rooted tree beside each member's
// conserved motifs, domain architecture and gene structure on shared rows; tips
// under the members' new names once the chromosome stage renamed them (rooted on the reference members when they form
// one clade, else at the midpoint). A column whose stage did not finish is left empty and the report says which and
// why.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "bioagent/json_text.h"
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

// domain_architecture.tsv: gene length domains architecture(name:from-to;...) coverage
bool add_domains(const StageContext& ctx, std::map<std::string, figures::PanelRow>& rows) {
  auto t = read_text(upstream_file(ctx, "domain", "domain_architecture.tsv"));
  if (!t) return false;
  for (auto& c : tsv_rows(*t)) {
    if (c.size() < 4 || !rows.count(c[0])) continue;
    std::istringstream parts(c[3]);
    for (std::string d; std::getline(parts, d, ';');) {
      auto colon = d.rfind(':'), dash = d.rfind('-');
      if (colon == std::string::npos || dash == std::string::npos || dash < colon) continue;
      rows[c[0]].domains.push_back(
          {std::stoll(d.substr(colon + 1, dash - colon - 1)), std::stoll(d.substr(dash + 1)), d.substr(0, colon)});
    }
  }
  return true;
}

// Each member's coding exons and UTRs, from its transcript's 5' end.
bool add_exons(const StageContext& ctx, const std::vector<Member>& members,
               std::map<std::string, figures::PanelRow>& rows) {
  if (ctx.data("gff3").empty()) return false;
  auto gff = read_gff3(ctx.data("gff3"));
  if (!gff) return false;
  bool any = false;
  for (auto& m : members) {
    std::string tid = m.transcript.empty() ? gff->transcript_of(m.protein) : m.transcript;  // identify's
    if (tid.empty() || !gff->transcripts.count(tid) || !rows.count(m.name)) continue;
    const GffTranscript& t = gff->transcripts.at(tid);
    auto& row = rows[m.name];
    row.gene_length = t.end - t.start + 1;
    auto from_5prime = [&](const GffSegment& e) {
      return t.strand == '-' ? figures::Span{t.end - e.end + 1, t.end - e.start + 1, ""}
                             : figures::Span{e.start - t.start + 1, e.end - t.start + 1, ""};
    };
    for (auto& e : t.cds.empty() ? t.exons : t.cds) row.cds.push_back(from_5prime(e));
    for (auto* utr : {&t.utr5, &t.utr3})
      for (auto& e : *utr) row.utrs.push_back(from_5prime(e));
    any |= !row.cds.empty();
  }
  return any;
}

// Each leaf's subgroup for the tree figures (references by theirs, members by the clade they fall in): the
// phylogeny stage's leaf_groups.tsv, which names groups only from reference members.
std::map<std::string, std::string> leaf_groups(const StageContext& ctx) {
  std::map<std::string, std::string> out;
  if (!ctx.input.count("phylogeny")) return out;
  if (auto t = read_text(ctx.input.at("phylogeny") / "leaf_groups.tsv"))
    for (auto& c : tsv_rows(*t))
      if (c.size() >= 2 && c[1] != "—") out[c[0]] = c[1];
  return out;
}

std::set<std::string> members_of(const std::vector<Member>& members) {
  std::set<std::string> out;
  for (auto& m : members) out.insert(m.name);
  return out;
}

// The supports' kind as the tree's legend names it, from the phylogeny stage's summary.
std::string support_kind(const StageContext& ctx) {
  const Json j = read_json_or(ctx.input.count("phylogeny") ? ctx.input.at("phylogeny") / "phylogeny.json" : fs::path());
  const std::string kind = j.value("support_kind", std::string());
  return kind == "ufboot" ? "UFBoot" : kind == "sh_like" ? "SH-like" : "";
}

Status draw_panel(const StageContext& ctx) {
  auto members = read_members(ctx.input.at("identify"));
  if (!members) return members.status();
  auto text = read_text(upstream_file(ctx, "phylogeny", "tree.nwk"));
  if (!text) return text.status();
  auto tree = parse_newick(*text);
  if (!tree) return tree.status();
  std::vector<std::string> outgroup;  // reference members, named REF_<id> in the tree
  for (int leaf : tree->leaves())
    if (tree->nodes[size_t(leaf)].name.rfind("REF_", 0) == 0) outgroup.push_back(tree->nodes[size_t(leaf)].name);
  std::string root = "midpoint";
  NewickTree rooted = figures::midpoint_rooted(*tree);
  if (!outgroup.empty())
    if (auto r = figures::outgroup_rooted(*tree, outgroup)) rooted = *r, root = "reference members";
  const auto group = leaf_groups(ctx);
  figures::TreeStyle style{false, group, support_kind(ctx)};
  const std::string title = figure_title(ctx, {" phylogeny", " 系统发育树"});
  BIOAGENT_RETURN_IF_ERROR(
      write_text(ctx.work / final_name(ctx, "tree_rooted.svg"), figures::tree(run_lang(ctx), rooted, style, title)));
  style.circular = true;
  BIOAGENT_RETURN_IF_ERROR(
      write_text(ctx.work / final_name(ctx, "tree_circular.svg"), figures::tree(run_lang(ctx), rooted, style, title)));
  std::map<std::string, figures::PanelRow> rows;
  if (auto pep = read_fasta(ctx.input.at("identify") / final_name(ctx, "pep.fasta")))
    for (auto& r : *pep) rows[r.id].protein_length = int64_t(r.seq.size());
  Json columns = {{"motifs", add_motifs(ctx, rows)},
                  {"domains", add_domains(ctx, rows)},
                  {"gene_structure", add_exons(ctx, *members, rows)}};
  // The combined figure shows the members only: the reference leaves are pruned from its tree (they keep their
  // place in the tree figures).
  BIOAGENT_RETURN_IF_ERROR(
      write_text(ctx.work / final_name(ctx, "combined_panel.svg"),
                 figures::combined_panel(run_lang(ctx), figures::pruned_to(rooted, members_of(*members)), group, rows,
                                         figure_title(ctx, {": phylogeny, motifs, domains and gene structure",
                                                            "：系统发育树、基序、结构域与基因结构"}))));
  return write_text(ctx.work / "panel.json", json_text(Json{{"rows", rows.size()},
                                                            {"root", root},
                                                            {"columns", columns},
                                                            {"subgroups", !group.empty()},
                                                            {"references", outgroup.size()}},
                                                       2));
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
      {"gene_structure", "gene structure (no GFF3)", "基因结构（无 GFF3）"}};
  for (auto& [key, en, zh] : kColumns)
    if (!cols.value(key, false))
      missing += std::string(missing.empty() ? "" : BiText{"; ", "；"}.in(r.lang)) + BiText{en, zh}.in(r.lang);
  const bool mid = j.value("root", std::string()) == "midpoint";
  const std::string rows = std::to_string(j.value("rows", 0)), refs = std::to_string(j.value("references", 0));
  s.paragraphs.push_back(
      mid ? BiText{"The tree of the " + rows +
                       " members is rooted at its midpoint (no reference members formed an outgroup); {figure} shows "
                       "it beside each member's motifs, domains and gene structure.",
                   rows + " 个成员的系统树以中点定根（没有可作外类群的参考成员）；{figure}"
                          "将其与各成员的基序、结构域和基因结构并列展示。"}
                .in(r.lang)
          : BiText{"The tree of the " + rows + " members is rooted on the " + refs +
                       " reference members; {figure} shows it beside each member's motifs, domains and gene structure.",
                   rows + " 个成员的系统树以 " + refs +
                       " 个参考成员定根；{figure}将其与各成员的基序、结构域和基因结构并列展示。"}
                .in(r.lang));
  if (!j.value("subgroups", false))
    s.paragraphs.push_back(
        BiText{"No subgroups are drawn: they are named only from reference members, and none named "
               "a clade here.",
               "图中未划分亚组：亚组只依据参考成员命名，本次没有参考成员可用于命名分支。"}
            .in(r.lang));
  if (!missing.empty())
    s.paragraphs.push_back(BiText{"Empty columns: ", "空列："}.in(r.lang) + missing + BiText{".", "。"}.in(r.lang));
  const std::string base = final_base(r.ctx);
  s.figures = {base + "combined_panel.svg", base + "tree_rooted.svg", base + "tree_circular.svg"};
  return s;
}

}  // namespace

StageSpec panel_stage() {
  StageSpec s;
  s.name = "panel";
  s.label = "tree figures and combined figure";
  s.label_zh = "系统发育树图与综合图";
  s.description =
      "The tree figures (rooted; rectangular and circular) and the tree beside conserved motifs, domain architecture "
      "and gene structure in one aligned panel";
  s.after = {"identify", "phylogeny"};
  s.uses = {"motif", "domain"};  // their columns, when they finished
  s.data_files = {"gff3"};
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> { return std::vector<Step>{StageFn(draw_panel)}; };
  s.outputs = {"panel.json"};
  s.parse = summary_file("panel.json");
  s.report = panel_report;
  s.revision = 4;  // 2: the renamed members; motif colours from the shared palette; 3: the tree figures;
                   // 4: identify's names; supports clear of branches, scale bars, subgroups only from references
  return s;
}

}  // namespace bioagent::gf
