// The structure stage: exons, introns and UTRs of each member's longest
// isoform, drawn in the tree's order.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bioagent/json_text.h"
#include "genefamily/algo/align.h"
#include "genefamily/figures/figures.h"
#include "genefamily/figures/figures_paper.h"
#include "genefamily/io/genome_index.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {
namespace {

Status draw_structure(const StageContext& ctx) {
  auto members = read_members(ctx.input.at("identify"));
  if (!members) return members.status();
  auto gff = read_gff3(ctx.data("gff3"));
  if (!gff) return gff.status();
  std::map<std::string, const GffTranscript*> tx;
  std::ostringstream tsv;
  tsv << "gene\tstrand\texons\tintrons\tcds_length\tutr5\tutr3\n";
  for (auto& m : *members) {
    // the transcript the gene map led the member to (identify's), else the protein's own
    std::string tid = m.transcript.empty() ? gff->transcript_of(m.protein) : m.transcript;
    if (tid.empty() || !gff->transcripts.count(tid)) continue;
    const GffTranscript& t = gff->transcripts.at(tid);
    tx[m.name] = &t;
    size_t exons = t.exons.empty() ? t.cds.size() : t.exons.size();
    tsv << m.name << '\t' << t.strand << '\t' << exons << '\t' << (exons ? exons - 1 : 0) << '\t' << t.cds_length()
        << '\t' << t.utr5.size() << '\t' << t.utr3.size() << '\n';
  }
  std::vector<std::string> genes;
  for (auto& m : *members)  // in the members' order: the tree-ordered view is the combined figure's (panel)
    if (tx.count(m.name) && std::find(genes.begin(), genes.end(), m.name) == genes.end()) genes.push_back(m.name);
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "gene_structure.tsv"), tsv.str()));
  std::string title = figure_title(ctx, {" gene structure", " 基因结构"});
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "gene_structure.svg"),
                                      figures::gene_structure(run_lang(ctx), genes, tx, title)));
  return write_text(ctx.work / "structure.json", json_text(Json{{"genes_drawn", genes.size()}}, 2));
}

ReportSection structure_report(const ReportContext& r) {
  ReportSection s = section(r, "structure", {"Gene structure", "基因结构"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "structure.json");
  if (!j.empty())
    s.paragraphs.push_back(std::to_string(j.value("genes_drawn", 0)) +
                           BiText{" members' exon-intron structures", " 个成员的外显子-内含子结构"}.in(r.lang) +
                           BiText{", in the members' order (beside the tree: the combined figure).",
                                  "（按成员顺序；与系统树并列的见组合图）。"}
                               .in(r.lang));
  s.figures = {final_base(r.ctx) + "gene_structure.svg"};
  return s;
}

}  // namespace

StageSpec structure_stage() {
  StageSpec s;
  s.name = "structure";
  s.label = "gene structure";
  s.label_zh = "基因结构";
  s.description = "Exon-intron structure of each member (longest isoform)";
  s.after = {"identify"};
  s.needs = {"gff3"};
  s.revision = 4;  // 2: the members' order (the tree-ordered view is the panel's); 3: identify's transcripts;
                   // 4: the members' names
  s.data_files = {"gff3"};
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> { return std::vector<Step>{StageFn(draw_structure)}; };
  s.outputs = {"structure.json"};
  s.parse = summary_file("structure.json");
  s.report = structure_report;
  return s;
}

}  // namespace bioagent::gf
