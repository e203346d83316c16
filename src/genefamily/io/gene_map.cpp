// The gene <-> transcript <-> protein <-> CDS <-> coordinates mapping (see gene_map.h).
#include "genefamily/io/gene_map.h"

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace bioagent {
namespace {

void place_on_transcript(const GffModel& gff, const std::string& tid, ProteinLocus& l) {
  const GffTranscript& t = gff.transcripts.at(tid);
  l.transcript = tid;
  l.gene = t.gene_id.empty() ? tid : t.gene_id;
  l.seqid = t.seqid;
  l.strand = t.strand;
  l.start = t.start;
  l.end = t.end;
  if (auto g = gff.genes.find(l.gene); g != gff.genes.end()) l.start = g->second.start, l.end = g->second.end;
}

void place_on_gene(const GffModel& gff, const std::string& gene, ProteinLocus& l) {
  const GffGene& g = gff.genes.at(gene);
  l.gene = gene;
  l.seqid = g.seqid;
  l.strand = g.strand;
  l.start = g.start;
  l.end = g.end;
  int64_t best = -1;  // the gene's transcript with the longest CDS
  for (auto& tid : g.transcripts)
    if (auto t = gff.transcripts.find(tid); t != gff.transcripts.end() && t->second.cds_length() > best)
      best = t->second.cds_length(), l.transcript = tid;
}

std::string or_dash(const std::string& s) { return s.empty() ? "—" : s; }

}  // namespace

ProteinLocus locate_protein(const GffModel& gff, const std::string& id, const std::string& header_gene) {
  ProteinLocus l;
  if (std::string tid = gff.transcript_of(id); !tid.empty()) {
    place_on_transcript(gff, tid, l);
    l.via = gff.transcripts.count(id) ? "mRNA id" : "CDS/protein_id";
    return l;
  }
  if (gff.genes.count(id)) {
    place_on_gene(gff, id, l);
    l.via = "gene id";
    return l;
  }
  if (!header_gene.empty() && gff.genes.count(header_gene)) {
    place_on_gene(gff, header_gene, l);
    l.via = "gene in the FASTA header";
    return l;
  }
  std::string base = isoform_base(id);
  if (!base.empty() && gff.genes.count(base)) {
    place_on_gene(gff, base, l);
    l.via = "gene id after isoform suffix";
    return l;
  }
  if (!header_gene.empty()) {
    l.gene = header_gene;
    l.via = "gene in the FASTA header";
    return l;
  }
  l.gene = base.empty() ? id : base;
  l.via = base.empty() ? "none" : "isoform suffix";
  return l;
}

std::string genome_name_for(const std::string& gff_seqid, const std::vector<std::string>& genome_names) {
  std::string found;
  const std::string want = canonical_seqid(gff_seqid);
  for (auto& n : genome_names) {
    if (n == gff_seqid) return n;
    if (canonical_seqid(n) == want) {
      if (!found.empty()) return "";  // ambiguous
      found = n;
    }
  }
  return found;
}

GeneMap build_gene_map(const GffModel& gff, const std::vector<FastaRecord>& proteins,
                       const std::vector<FastaRecord>& cds, const std::vector<std::string>& genome_names) {
  GeneMap m;
  std::set<std::string> cds_ids;
  for (auto& r : cds) cds_ids.insert(r.id);
  std::map<std::string, size_t> longest;  // gene -> row of its longest protein
  for (auto& p : proteins) {
    GeneMapRow row{p.id, locate_protein(gff, p.id, header_gene(p.description)), "", int64_t(p.seq.size()), false};
    while (row.length > 0 && p.seq[size_t(row.length) - 1] == '*') --row.length;
    for (const std::string& c : {p.id, row.locus.transcript})
      if (!c.empty() && cds_ids.count(c) && row.cds.empty()) row.cds = c;
    auto [it, fresh] = longest.emplace(row.locus.gene, m.rows.size());
    if (!fresh && m.rows[it->second].length < row.length) it->second = m.rows.size();
    m.rows.push_back(std::move(row));
  }
  for (auto& [gene, i] : longest) m.rows[i].longest = true;
  if (!genome_names.empty())
    for (auto& s : gff.seqids) {
      std::string g = genome_name_for(s, genome_names);
      if (g.empty())
        m.seqids_not_in_genome.push_back(s);
      else if (g != s)
        m.seqid_aliases[s] = g;
    }
  return m;
}

Json GeneMap::summary() const {
  std::map<std::string, size_t> by;
  std::set<std::string> genes;
  size_t placed = 0, cds_found = 0;
  Json unplaced = Json::array();
  for (auto& r : rows) {
    ++by[r.locus.via];
    genes.insert(r.locus.gene);
    placed += r.locus.placed();
    cds_found += !r.cds.empty();
    if (!r.locus.placed() && unplaced.size() < 5) unplaced.push_back(r.protein);
  }
  Json fix = Json::array();
  const size_t unmapped = rows.size() - placed;
  if (unmapped && placed)
    fix.push_back(std::to_string(unmapped) + " of " + std::to_string(rows.size()) +
                  " proteins match no mRNA ID, CDS ID, protein_id or gene ID of the GFF3 (e.g. " +
                  unplaced[0].get<std::string>() +
                  "): rename them to the GFF3's mRNA IDs (or add protein_id attributes to its CDS lines); "
                  "until then they have no position, structure, promoter or synteny");
  if (!seqids_not_in_genome.empty())
    fix.push_back(std::to_string(seqids_not_in_genome.size()) + " GFF3 sequence names are not in the genome (e.g. " +
                  seqids_not_in_genome[0] +
                  "), not even as Chr1/1/chr01 variants: use the genome's sequence names in column 1 of the GFF3");
  Json aliases = Json::object();
  for (auto& [a, b] : seqid_aliases) aliases[a] = b;
  return Json{{"proteins", rows.size()},
              {"genes", genes.size()},
              {"isoforms_merged", rows.size() - genes.size()},
              {"matched_by", by},
              {"placed", placed},
              {"unplaced", unmapped},
              {"unplaced_examples", unplaced},
              {"with_cds", cds_found},
              {"seqid_aliases", aliases},
              {"seqids_not_in_genome", seqids_not_in_genome},
              {"fix", fix}};
}

std::string GeneMap::tsv() const {
  std::ostringstream out;
  out << "protein\tgene\ttranscript\tcds\tseqid\tgenome_seqid\tstart\tend\tstrand\tlength\tlongest\tmatched_by\n";
  for (auto& r : rows) {
    const ProteinLocus& l = r.locus;
    std::string genome_seqid = l.seqid;
    if (auto a = seqid_aliases.find(l.seqid); a != seqid_aliases.end()) genome_seqid = a->second;
    out << r.protein << '\t' << l.gene << '\t' << or_dash(l.transcript) << '\t' << or_dash(r.cds) << '\t'
        << or_dash(l.seqid) << '\t' << or_dash(l.placed() ? genome_seqid : "") << '\t'
        << (l.placed() ? std::to_string(l.start) : "—") << '\t' << (l.placed() ? std::to_string(l.end) : "—") << '\t'
        << (l.placed() ? std::string(1, l.strand) : "—") << '\t' << r.length << '\t' << (r.longest ? "yes" : "no")
        << '\t' << l.via << '\n';
  }
  return out.str();
}

}  // namespace bioagent
