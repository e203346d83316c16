// The chromosome stage: members on the chromosomes from the genome index,
// tandem clusters by gene rank, redundant models collapsed, members renamed.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bioagent/json_text.h"
#include "genefamily/algo/align.h"
#include "genefamily/algo/natural_order.h"
#include "genefamily/figures/figures.h"
#include "genefamily/figures/figures_paper.h"
#include "genefamily/io/gene_map.h"
#include "genefamily/io/genome_index.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {

std::map<std::string, std::string> collapse_redundant_models(const std::vector<Member>& members,
                                                             const std::map<std::string, std::string>& protein) {
  std::map<std::string, std::string> out;  // redundant gene -> the locus it is collapsed into
  auto seq = [&](const std::string& g) {
    auto it = protein.find(g);
    std::string s = it == protein.end() ? std::string() : it->second;
    while (!s.empty() && s.back() == '*') s.pop_back();
    return s;
  };
  for (size_t i = 0; i < members.size(); ++i)
    for (size_t j = 0; j < members.size(); ++j) {
      const Member &a = members[i], &b = members[j];
      if (i == j || out.count(a.name) || out.count(b.name) || a.seqid.empty() || a.seqid != b.seqid ||
          a.strand != b.strand || a.end < b.start || b.end < a.start)
        continue;
      std::string pa = seq(a.name), pb = seq(b.name);
      // a is redundant when its protein lies inside b's (the longer, or the first of equals, is kept)
      if (pa.empty() || pa.size() > pb.size() || (pa.size() == pb.size() && i < j)) continue;
      if (pb.find(pa) != std::string::npos) out[a.name] = b.name;
    }
  for (auto& [gene, kept] : out) {  // a chain a -> b -> c collapses into c
    std::string k = kept;
    while (out.count(k)) k = out.at(k);
    kept = k;
  }
  return out;
}

Result<ChromosomeFrame> chromosome_frame(const StageContext& ctx, const GffModel& gff) {
  ChromosomeFrame f;
  if (ctx.data("genome").empty()) {  // no genome: the lengths the GFF3 states, else its last gene ends
    f.lengths = gff_sequence_lengths(gff, &f.source);
    return f;
  }
  auto genome = GenomeIndex::open(ctx.data("genome"), ctx.work / "index");
  if (!genome) return genome.status();
  f.lengths = (*genome)->lengths();
  f.source = "genome";
  for (auto& s : gff.seqids)
    if (std::string g = (*genome)->resolve(s); !g.empty() && g != s) f.alias[s] = g;
  return f;
}

namespace {

// Tandem duplicates need adjacency (gene ranks within `window`) and similarity (protein identity); each
// cluster gets a number in `placed` (sorted by chromosome and start). Returns the number of clusters.
int mark_tandem_clusters(std::vector<figures::Placed>& placed, const std::map<std::string, int>& rank,
                         const std::map<std::string, std::string>& protein, int window, double min_identity) {
  int clusters = 0;
  auto seq = [&](const std::string& name) {
    auto it = protein.find(name);
    return it == protein.end() ? std::string() : it->second;
  };
  for (size_t i = 1; i < placed.size(); ++i) {
    auto& a = placed[i - 1];
    auto& b = placed[i];
    if (a.seqid != b.seqid || !rank.count(a.gene) || !rank.count(b.gene)) continue;
    if (rank.at(b.gene) - rank.at(a.gene) <= window &&
        align_proteins(seq(a.gene), seq(b.gene)).identity >= min_identity) {
      if (a.cluster < 0) a.cluster = clusters++;
      b.cluster = a.cluster;
    }
  }
  return clusters;
}

Status draw_chromosomes(const StageContext& ctx) {
  auto members = read_members(ctx.input.at("identify"));
  if (!members) return members.status();
  auto gff = read_gff3(ctx.data("gff3"));
  if (!gff) return gff.status();
  auto frame = chromosome_frame(ctx, *gff);  // the genome's lengths, else the GFF3's
  if (!frame) return frame.status();
  // Gene ranks along each chromosome, from every gene of the GFF3.
  std::map<std::string, std::vector<std::pair<int64_t, std::string>>> by_chr;
  for (auto& [id, g] : gff->genes) by_chr[g.seqid].push_back({g.start, id});
  std::map<std::string, int> gene_rank;
  for (auto& [c, v] : by_chr) {
    std::sort(v.begin(), v.end());
    for (size_t i = 0; i < v.size(); ++i) gene_rank[v[i].second] = int(i);
  }
  const int window = ctx.params["tandem_window"];
  const double min_identity = ctx.params["tandem_min_identity"];
  std::map<std::string, std::string> protein;  // member name -> its protein
  if (auto pep = read_fasta(ctx.input.at("identify") / final_name(ctx, "pep.fasta")))
    for (auto& r : *pep) protein[r.id] = r.seq;
  auto redundant = collapse_redundant_models(*members, protein);
  std::vector<figures::Placed> placed;
  std::map<std::string, int> rank;  // member name -> its gene's rank on its chromosome
  for (auto& m : *members)
    if (!m.seqid.empty() && !redundant.count(m.name)) {  // on the frame's name for the GFF3's (Chr1/1/chr01)
      placed.push_back({m.name, frame->name_of(m.seqid), m.start, -1});
      if (gene_rank.count(m.gene)) rank[m.name] = gene_rank[m.gene];
    }
  std::stable_sort(placed.begin(), placed.end(), [&](auto& a, auto& b) {
    const int c = natural_compare(a.seqid, b.seqid);
    return c != 0 ? c < 0 : a.start < b.start;
  });
  const int clusters = mark_tandem_clusters(placed, rank, protein, window, min_identity);
  std::ostringstream tsv;
  tsv << "gene\tchromosome\tstart\trank\ttandem_cluster\n";
  std::map<std::string, int> per_chr;
  for (auto& p : placed) {
    tsv << p.gene << '\t' << p.seqid << '\t' << p.start << '\t' << rank[p.gene] << '\t'
        << (p.cluster >= 0 ? "T" + std::to_string(p.cluster + 1) : "") << '\n';
    ++per_chr[p.seqid];
  }
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "chromosome_positions.tsv"), tsv.str()));
  if (placed.empty())
    return write_text(
        ctx.work / "chromosome.json",
        json_text(Json{{"skipped", true},
                       {"reason_kind", "no_positions"},
                       {"reason", "no member has a position in the GFF3 (their proteins have no mRNA record)"}},
                  2));
  std::string title = figure_title(ctx, {" members on the chromosomes", " 成员的染色体定位"});
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "chromosome_map.svg"),
                                      figures::chromosome_map(run_lang(ctx), frame->lengths, placed, title)));
  int in_clusters = int(std::count_if(placed.begin(), placed.end(), [](auto& p) { return p.cluster >= 0; }));
  Json collapsed = Json::object(), chromosomes = Json::array();
  for (auto& [gene, kept] : redundant) collapsed[gene] = kept;
  std::vector<std::string> order;
  for (auto& [c, n] : per_chr) order.push_back(c);
  std::sort(order.begin(), order.end(), [](auto& a, auto& b) { return natural_less(a, b); });
  chromosomes = Json::object();  // in natural order (an ordered object)
  for (auto& c : order) chromosomes[c] = per_chr[c];
  return write_text(ctx.work / "chromosome.json", json_text(Json{{"chromosomes", frame->lengths.size()},
                                                                 {"chromosome_lengths", frame->source},
                                                                 {"members", members->size()},
                                                                 {"placed", placed.size()},
                                                                 {"per_chromosome", chromosomes},
                                                                 {"tandem_clusters", clusters},
                                                                 {"genes_in_tandem_clusters", in_clusters},
                                                                 {"redundant_models_collapsed", collapsed}},
                                                            2));
}

ReportSection chromosome_report(const ReportContext& r) {
  ReportSection s = section(r, "chromosomes", {"Chromosome distribution", "染色体分布"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "chromosome.json");
  if (j.empty() || j.value("skipped", false)) return s;
  const Json per = j.value("per_chromosome", Json::object());
  std::string counts;
  for (auto& [c, n] : per.items())
    counts += (counts.empty() ? "" : BiText{", ", "，"}.in(r.lang)) + c + BiText{" ", " 上 "}.in(r.lang) + json_text(n);
  const std::string placed = std::to_string(j.value("placed", 0)), chrs = std::to_string(per.size()),
                    clusters = std::to_string(j.value("tandem_clusters", 0)),
                    in_clusters = std::to_string(j.value("genes_in_tandem_clusters", 0));
  s.paragraphs.push_back(BiText{placed + " members lie on " + chrs + " chromosomes (" + counts + "; {figure}); " +
                                    in_clusters + " of them form " + clusters +
                                    " tandem clusters (adjacent genes whose proteins are similar).",
                                placed + " 个成员分布在 " + chrs + " 条染色体上（" + counts + "；{figure}）；其中 " +
                                    in_clusters + " 个组成 " + clusters + " 个串联重复簇（相邻且蛋白相似的基因）。"}
                             .in(r.lang));
  const Json collapsed = j.value("redundant_models_collapsed", Json::object());
  if (!collapsed.empty())
    s.paragraphs.push_back(
        std::to_string(collapsed.size()) +
        BiText{" redundant gene models (same strand, overlapping, identical or contained "
               "proteins) were collapsed into one locus on the map: " +
                   join_counts(collapsed),
               " 个冗余基因模型（同链、重叠、蛋白相同或被包含）在图中合并为一个位点：" + join_counts(collapsed)}
            .in(r.lang));
  s.figures = {final_base(r.ctx) + "chromosome_map.svg"};
  return s;
}

}  // namespace

StageSpec chromosome_stage() {
  StageSpec s;
  s.name = "chromosome";
  s.label = "chromosome map";
  s.label_zh = "染色体定位";
  s.description = "Members on the chromosomes (lengths from the genome index, else the GFF3), tandem clusters";
  s.after = {"identify"};
  s.needs = {"gff3"};  // chromosome lengths from the genome when given, else from the GFF3
  s.revision = 6;  // 2: redundant gene models collapsed; tandem pairs need similarity too; 3: renaming, labelled map;
                   // 4: the plain map's labels spread; 5: the GFF3's lengths without a genome; 6: the members' one
                   // name (identify's), one map with a Mb ruler
  s.data_files = {"genome", "gff3"};
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "tandem_window": {"type": "integer", "minimum": 1, "maximum": 50, "default": 1, "description": "members at most this many gene ranks apart form a tandem cluster"},
      "tandem_min_identity": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.3, "description": "adjacent members are tandem duplicates only when their proteins are at least this identical"}
    }, "additionalProperties": false})JS");
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> {
    return std::vector<Step>{StageFn(draw_chromosomes)};
  };
  s.outputs = {"chromosome.json"};
  s.parse = summary_file("chromosome.json");
  s.report = chromosome_report;
  return s;
}

}  // namespace bioagent::gf
