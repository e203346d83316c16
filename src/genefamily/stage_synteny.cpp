// The synteny stage: all-against-all DIAMOND of the proteome (longest isoform
// per gene), collinear blocks on gene order (collinearity.h), the members'
// duplicate classes and their links, in MCScanX's .collinearity layout and a
// circular figure.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "genefamily/collinearity.h"
#include "genefamily/figures.h"
#include "genefamily/genome_index.h"
#include "genefamily/stage_common.h"

namespace bioagent::gf {
namespace {

Status prepare(const StageContext& ctx) {
  auto gff = read_gff3(ctx.data("gff3"));
  auto pep = read_fasta(ctx.data("pep"));
  if (!gff || !pep) return gff ? pep.status() : gff.status();
  std::map<std::string, const FastaRecord*> longest;  // gene -> its longest protein
  for (auto& r : *pep) {
    std::string tid = gff->transcript_of(r.id);
    std::string gene = tid.empty() ? r.id : gff->transcripts.at(tid).gene_id;
    if (!longest.count(gene) || r.seq.size() > longest[gene]->seq.size()) longest[gene] = &r;
  }
  std::vector<FastaRecord> proteome;
  std::ostringstream table;
  for (auto& [gene, rec] : longest) {
    auto g = gff->genes.find(gene);
    if (g == gff->genes.end()) continue;
    proteome.push_back({gene, "", rec->seq});
    table << g->second.seqid << '\t' << gene << '\t' << g->second.start << '\t' << g->second.end << '\n';
  }
  if (proteome.size() < 10) return invalid_argument("synteny needs a GFF3 with genes for the proteome");
  BIOAGENT_RETURN_IF_ERROR(write_fasta(ctx.work / "proteome.fasta", proteome));
  return write_text(ctx.work / "genes.gff", table.str());
}

Status blocks(const StageContext& ctx) {
  auto gt = read_text(ctx.work / "genes.gff");
  auto bt = read_text(ctx.work / "all.blast");
  if (!gt || !bt) return gt ? bt.status() : gt.status();
  auto genes = parse_mcscanx_gff(*gt);
  auto hits = parse_blast_m8(*bt);
  if (!genes || !hits) return genes ? hits.status() : genes.status();
  CollinearityParams p;
  p.match_size = ctx.params["min_anchors"];
  p.max_gaps = ctx.params["max_gaps"];
  auto r = find_collinearity(*genes, *hits, p);
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "collinearity"), collinearity_text(r, p)));
  auto members = read_members(ctx.input.at("identify"));
  if (!members) return members.status();
  std::set<std::string> member_set;
  for (auto& m : *members) member_set.insert(m.gene);
  std::vector<figures::Link> links;
  std::ostringstream tsv;
  tsv << "gene\tduplication\tblock_partners\n";
  std::map<std::string, int> classes;
  std::map<std::string, std::vector<std::string>> partners;
  for (auto& b : r.blocks)
    for (auto& a : b.anchors)
      if (member_set.count(a.a) && member_set.count(a.b)) {
        links.push_back({a.a, a.b, "segmental"});
        partners[a.a].push_back(a.b);
        partners[a.b].push_back(a.a);
      }
  for (auto& m : *members) {
    std::string cls = r.duplicate_class.count(m.gene) ? r.duplicate_class[m.gene] : "singleton";
    ++classes[cls];
    std::string ps;
    for (auto& x : partners[m.gene]) ps += (ps.empty() ? "" : ",") + x;
    tsv << m.gene << '\t' << cls << '\t' << ps << '\n';
  }
  // Tandem links among members: adjacent members with a hit between them.
  std::map<std::string, std::pair<std::string, int>> rank;
  {
    std::map<std::string, std::vector<std::pair<int64_t, std::string>>> by_chr;
    for (auto& g : *genes) by_chr[g.chr].push_back({g.start, g.id});
    for (auto& [c, v] : by_chr) {
      std::sort(v.begin(), v.end());
      for (size_t i = 0; i < v.size(); ++i) rank[v[i].second] = {c, int(i)};
    }
  }
  for (auto& h : *hits)
    if (h.a < h.b && member_set.count(h.a) && member_set.count(h.b) && rank[h.a].first == rank[h.b].first &&
        std::abs(rank[h.a].second - rank[h.b].second) == 1)
      links.push_back({h.a, h.b, "tandem"});
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "duplication.tsv"), tsv.str()));
  auto genome = GenomeIndex::open(ctx.data("genome"), ctx.work / "index");
  if (!genome) return genome.status();
  std::vector<figures::Placed> placed;
  for (auto& m : *members) placed.push_back({m.gene, m.seqid, m.start, -1});
  std::string title =
      ctx.run.value("species", std::string()) + " " + ctx.run.value("family", std::string()) + " duplicated members";
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "synteny_circle.svg"),
                                      figures::synteny_circle((*genome)->lengths(), placed, links, title)));
  size_t member_blocks = 0;
  for (auto& b : r.blocks)
    if (std::any_of(b.anchors.begin(), b.anchors.end(),
                    [&](const Anchor& a) { return member_set.count(a.a) || member_set.count(a.b); }))
      ++member_blocks;
  return write_text(ctx.work / "synteny.json", Json{{"blocks", r.blocks.size()},
                                                    {"collinear_genes", r.collinear_genes},
                                                    {"genes", r.genes},
                                                    {"blocks_with_members", member_blocks},
                                                    {"member_duplication", classes},
                                                    {"member_links", links.size()}}
                                                   .dump(2));
}

}  // namespace

StageSpec synteny_stage() {
  StageSpec s;
  s.name = "synteny";
  s.description = "All-against-all DIAMOND, collinear blocks on gene order (MCScanX's method), duplicate classes";
  s.after = {"identify"};
  s.resource = "medium";
  s.programs = {"diamond"};
  s.data_files = {"pep", "gff3", "genome"};
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "min_anchors": {"type": "integer", "minimum": 3, "maximum": 50, "default": 5},
      "max_gaps": {"type": "integer", "minimum": 1, "maximum": 100, "default": 25},
      "evalue": {"type": "number", "minimum": 0, "maximum": 1, "default": 1e-5},
      "max_target_seqs": {"type": "integer", "minimum": 1, "maximum": 100, "default": 6, "description": "hits kept per gene (MCScanX suggests 5 besides itself)"}
    }, "additionalProperties": false})JS");
  s.steps = [](const StageContext& ctx) -> Result<std::vector<Step>> {
    char ev[32];
    std::snprintf(ev, sizeof ev, "%g", ctx.params["evalue"].get<double>());
    return std::vector<Step>{
        StageFn(prepare), Command{{"diamond", "makedb", "--in", "proteome.fasta", "-d", "proteome", "--quiet"}, "", ""},
        Command{{"diamond", "blastp", "-d", "proteome", "-q", "proteome.fasta", "-o", "all.blast", "--outfmt", "6",
                 "--evalue", ev, "--max-target-seqs", std::to_string(ctx.params["max_target_seqs"].get<int>()),
                 "--more-sensitive", "--threads", std::to_string(ctx.cpus), "--quiet"},
                "",
                ""},
        StageFn(blocks)};
  };
  s.outputs = {"synteny.json"};
  s.parse = summary_file("synteny.json");
  return s;
}

}  // namespace bioagent::gf
