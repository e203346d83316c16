// The structure stage (exons, introns and UTRs of each member's longest
// isoform, drawn in the tree's order) and the chromosome stage (members on the
// chromosomes from the genome index, tandem clusters by gene rank).
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "genefamily/figures.h"
#include "genefamily/genome_index.h"
#include "genefamily/stage_common.h"

namespace bioagent::gf {
namespace {

Status draw_structure(const StageContext& ctx) {
  auto members = read_members(ctx.input.at("identify"));
  if (!members) return members.status();
  auto gff = read_gff3(ctx.data("gff3"));
  if (!gff) return gff.status();
  std::vector<std::string> order;
  if (auto text = read_text(ctx.input.at("phylogeny") / final_name(ctx, "tree.nwk")))
    if (auto tree = parse_newick(*text)) order = figures::leaf_order(*tree);
  std::map<std::string, const GffTranscript*> tx;
  std::ostringstream tsv;
  tsv << "gene\ttranscript\tstrand\texons\tintrons\tcds_length\tutr5\tutr3\n";
  for (auto& m : *members) {
    std::string tid = gff->transcript_of(m.protein);
    if (tid.empty()) continue;
    const GffTranscript& t = gff->transcripts.at(tid);
    tx[m.gene] = &t;
    size_t exons = t.exons.empty() ? t.cds.size() : t.exons.size();
    tsv << m.gene << '\t' << tid << '\t' << t.strand << '\t' << exons << '\t' << (exons ? exons - 1 : 0) << '\t'
        << t.cds_length() << '\t' << t.utr5.size() << '\t' << t.utr3.size() << '\n';
  }
  std::vector<std::string> genes;
  for (auto& g : order)
    if (tx.count(g)) genes.push_back(g);
  for (auto& m : *members)  // members missing from the tree (or no tree): after it, in genome order
    if (tx.count(m.gene) && std::find(genes.begin(), genes.end(), m.gene) == genes.end()) genes.push_back(m.gene);
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "gene_structure.tsv"), tsv.str()));
  std::string title = ctx.run.value("species", std::string()) + " " + ctx.run.value("family", std::string()) +
                      " gene structure (tree order)";
  BIOAGENT_RETURN_IF_ERROR(
      write_text(ctx.work / final_name(ctx, "gene_structure.svg"), figures::gene_structure(genes, tx, title)));
  return write_text(ctx.work / "structure.json",
                    Json{{"genes_drawn", genes.size()}, {"tree_order", !order.empty()}}.dump(2));
}

Status draw_chromosomes(const StageContext& ctx) {
  auto members = read_members(ctx.input.at("identify"));
  if (!members) return members.status();
  auto gff = read_gff3(ctx.data("gff3"));
  if (!gff) return gff.status();
  auto genome = GenomeIndex::open(ctx.data("genome"), ctx.work / "index");
  if (!genome) return genome.status();
  // Gene ranks along each chromosome, from every gene of the GFF3.
  std::map<std::string, std::vector<std::pair<int64_t, std::string>>> by_chr;
  for (auto& [id, g] : gff->genes) by_chr[g.seqid].push_back({g.start, id});
  std::map<std::string, int> rank;
  for (auto& [c, v] : by_chr) {
    std::sort(v.begin(), v.end());
    for (size_t i = 0; i < v.size(); ++i) rank[v[i].second] = int(i);
  }
  const int window = ctx.params["tandem_window"];
  std::vector<figures::Placed> placed;
  for (auto& m : *members)
    if (!m.seqid.empty()) placed.push_back({m.gene, m.seqid, m.start, -1});
  std::sort(placed.begin(), placed.end(),
            [&](auto& a, auto& b) { return std::tie(a.seqid, a.start) < std::tie(b.seqid, b.start); });
  int clusters = 0;
  for (size_t i = 1; i < placed.size(); ++i) {
    auto& a = placed[i - 1];
    auto& b = placed[i];
    if (a.seqid != b.seqid || !rank.count(a.gene) || !rank.count(b.gene)) continue;
    if (rank[b.gene] - rank[a.gene] <= window) {
      if (a.cluster < 0) a.cluster = clusters++;
      b.cluster = a.cluster;
    }
  }
  std::ostringstream tsv;
  tsv << "gene\tchromosome\tstart\trank\ttandem_cluster\n";
  std::map<std::string, int> per_chr;
  for (auto& p : placed) {
    tsv << p.gene << '\t' << p.seqid << '\t' << p.start << '\t' << rank[p.gene] << '\t'
        << (p.cluster >= 0 ? "T" + std::to_string(p.cluster + 1) : "") << '\n';
    ++per_chr[p.seqid];
  }
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "chromosome_positions.tsv"), tsv.str()));
  std::string title = ctx.run.value("species", std::string()) + " " + ctx.run.value("family", std::string()) +
                      " members on the chromosomes";
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "chromosome_map.svg"),
                                      figures::chromosome_map((*genome)->lengths(), placed, title)));
  int in_clusters = int(std::count_if(placed.begin(), placed.end(), [](auto& p) { return p.cluster >= 0; }));
  return write_text(ctx.work / "chromosome.json", Json{{"chromosomes", (*genome)->lengths().size()},
                                                       {"per_chromosome", per_chr},
                                                       {"tandem_clusters", clusters},
                                                       {"genes_in_tandem_clusters", in_clusters}}
                                                      .dump(2));
}

}  // namespace

StageSpec structure_stage() {
  StageSpec s;
  s.name = "structure";
  s.description = "Exon-intron structure of each member (longest isoform) beside the tree order";
  s.after = {"identify", "phylogeny"};
  s.data_files = {"gff3"};
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> { return std::vector<Step>{StageFn(draw_structure)}; };
  s.outputs = {"structure.json"};
  s.parse = summary_file("structure.json");
  return s;
}

StageSpec chromosome_stage() {
  StageSpec s;
  s.name = "chromosome";
  s.description = "Members on the chromosomes (lengths from the genome index), tandem clusters";
  s.after = {"identify"};
  s.data_files = {"genome", "gff3"};
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "tandem_window": {"type": "integer", "minimum": 1, "maximum": 50, "default": 1, "description": "members at most this many gene ranks apart form a tandem cluster"}
    }, "additionalProperties": false})JS");
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> {
    return std::vector<Step>{StageFn(draw_chromosomes)};
  };
  s.outputs = {"chromosome.json"};
  s.parse = summary_file("chromosome.json");
  return s;
}

}  // namespace bioagent::gf
