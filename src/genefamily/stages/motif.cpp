// The motif stage: our ZOOPS/EM motif discovery on the members' proteins
// (default 10 motifs of width 6-50), MEME-format output, a per-gene motif map
// in the members' order, and sequence logos.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bioagent/json_text.h"
#include "figures/svg.h"
#include "genefamily/algo/motif_em.h"
#include "genefamily/figures/figures.h"
#include "genefamily/figures/figures_paper.h"
#include "genefamily/figures/palette.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {
namespace {

constexpr const char* kProtein = "ACDEFGHIKLMNPQRSTVWY";

Status discover(const StageContext& ctx) {
  auto pep = read_fasta(ctx.input.at("identify") / final_name(ctx, "pep.fasta"));
  if (!pep) return pep.status();
  for (auto& r : *pep) r.seq.erase(std::remove(r.seq.begin(), r.seq.end(), '*'), r.seq.end());
  MotifOptions o;
  o.motifs = ctx.params["motifs"];
  o.min_width = ctx.params["min_width"];
  o.max_width = ctx.params["max_width"];
  auto motifs = discover_motifs(*pep, kProtein, o);
  auto bg = background_frequencies(*pep, kProtein);
  BIOAGENT_RETURN_IF_ERROR(
      write_text(ctx.work / final_name(ctx, "motifs.meme.txt"), motifs_to_meme(motifs, kProtein, bg)));
  std::ostringstream tsv;
  tsv << "gene\tmotif\tstart\tend\tsite\tprobability\n";
  std::map<std::string, std::vector<figures::MotifHit>> by_gene;
  std::map<std::string, size_t> length;
  for (auto& r : *pep) length[r.id] = r.seq.size();
  Json summary = Json::array();
  for (size_t n = 0; n < motifs.size(); ++n) {
    for (auto& s : motifs[n].sites) {
      const auto& r = (*pep)[s.sequence];
      tsv << r.id << '\t' << figures::motif_label(n) << '\t' << s.start + 1 << '\t' << s.start + motifs[n].width << '\t'
          << r.seq.substr(s.start, motifs[n].width) << '\t' << s.probability << '\n';
      by_gene[r.id].push_back({n, s.start});
    }
    summary.push_back({{"motif", figures::motif_label(n)},
                       {"consensus", motifs[n].consensus},
                       {"width", motifs[n].width},
                       {"sites", motifs[n].sites.size()},
                       {"sequences", pep->size()},
                       {"evalue_like", motifs[n].evalue}});
  }
  // The members' own order: the tree-ordered view is the combined figure's (panel), so this
  // figure does not wait for the tree.
  std::vector<std::string> order;
  for (auto& r : *pep) order.push_back(r.id);
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "motif_sites.tsv"), tsv.str()));
  BIOAGENT_RETURN_IF_ERROR(write_text(
      ctx.work / final_name(ctx, "motif_map.svg"),
      figures::motif_map(run_lang(ctx), order, length, by_gene, motifs, figure_title(ctx, {" motifs", " 保守基序"}))));
  BIOAGENT_RETURN_IF_ERROR(
      write_text(ctx.work / final_name(ctx, "motif_logos.svg"),
                 figures::motif_logos(run_lang(ctx), motifs, figure_title(ctx, {" motif logos", " 基序标识图"}))));
  return write_text(ctx.work / "motif.json", json_text(Json{{"motifs", summary}, {"count", motifs.size()}}, 2));
}

ReportSection report(const ReportContext& r) {
  ReportSection s = section(r, "motifs", {"Motifs", "Motif 分析"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "motif.json");
  const Json motifs = j.value("motifs", Json::array());
  if (motifs.empty()) return s;
  size_t lo = SIZE_MAX, hi = 0;
  for (auto& m : motifs) lo = std::min(lo, m.value("width", size_t(0))), hi = std::max(hi, m.value("width", size_t(0)));
  const std::string n = std::to_string(motifs.size()), seqs = std::to_string(motifs[0].value("sequences", 0));
  s.paragraphs.push_back(BiText{n + " conserved motifs of " + std::to_string(lo) + "–" + std::to_string(hi) +
                                    " amino acids were found in the " + seqs +
                                    " member proteins, each better than three searches of shuffled copies "
                                    "(E-value below 1); their consensus, width and sites are in {table}.",
                                "在 " + seqs + " 个成员蛋白中发现 " + n + " 个保守基序，长度 " + std::to_string(lo) +
                                    "–" + std::to_string(hi) +
                                    " 个氨基酸，均优于三次打乱序列的检索（E 值小于 1）；"
                                    "各基序的共有序列、长度与位点数见{table}。"}
                             .in(r.lang));
  s.table_caption = BiText{"Conserved motifs of the members", "成员蛋白的保守基序"}.in(r.lang);
  s.table_header = {BiText{"motif", "基序"}.in(r.lang), BiText{"consensus", "共有序列"}.in(r.lang),
                    BiText{"width (aa)", "长度（aa）"}.in(r.lang), BiText{"sites", "位点数"}.in(r.lang),
                    BiText{"E-value", "E 值"}.in(r.lang)};
  for (auto& m : motifs) {
    char e[32];
    std::snprintf(e, sizeof e, "%.2g", m.value("evalue_like", 0.0));
    s.table.push_back({m.value("motif", ""), m.value("consensus", ""), std::to_string(m.value("width", 0)),
                       std::to_string(m.value("sites", 0)) + "/" + seqs, e});
  }
  const std::string base = final_base(r.ctx);
  s.figures = {base + "motif_map.svg", base + "motif_logos.svg"};
  return s;
}

}  // namespace

StageSpec motif_stage() {
  StageSpec s;
  s.name = "motif";
  s.label = "motif discovery";
  s.label_zh = "motif分析";
  s.description = "Motif discovery (our ZOOPS/EM, MEME-style) on the members' proteins, motif map and logos";
  s.after = {"identify"};
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "motifs": {"type": "integer", "minimum": 1, "maximum": 30, "default": 10},
      "min_width": {"type": "integer", "minimum": 4, "maximum": 50, "default": 6},
      "max_width": {"type": "integer", "minimum": 4, "maximum": 100, "default": 50}
    }, "additionalProperties": false})JS");
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> { return std::vector<Step>{StageFn(discover)}; };
  s.outputs = {"motif.json"};
  s.parse = summary_file("motif.json");
  s.report = report;
  s.revision = 4;  // 2: one colour per motif shared with the panel; logos with a bits axis; 3: the members' order;
                   // 4: "motif n", logos with positions, E-values and site counts
  return s;
}

}  // namespace bioagent::gf
