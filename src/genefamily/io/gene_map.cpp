// The gene <-> transcript <-> protein <-> CDS <-> coordinates mapping (see gene_map.h).
#include "genefamily/io/gene_map.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "genefamily/io/id_match.h"

namespace bioagent {
namespace {

// The gene's extent, else the transcript's (an mRNA without a gene row).
void place(const GffModel& gff, const std::string& gene, const std::string& tid, ProteinLocus& l) {
  l.gene = gene;
  l.transcript = tid;
  if (auto g = gff.genes.find(gene); g != gff.genes.end()) {
    l.seqid = g->second.seqid, l.strand = g->second.strand, l.start = g->second.start, l.end = g->second.end;
  } else if (auto t = gff.transcripts.find(tid); t != gff.transcripts.end()) {
    l.seqid = t->second.seqid, l.strand = t->second.strand, l.start = t->second.start, l.end = t->second.end;
  }
  if (!l.transcript.empty()) return;
  int64_t best = -1;  // a gene-level match: the gene's transcript with the longest CDS
  if (auto g = gff.genes.find(gene); g != gff.genes.end())
    for (auto& id : g->second.transcripts)
      if (auto t = gff.transcripts.find(id); t != gff.transcripts.end() && t->second.cds_length() > best)
        best = t->second.cds_length(), l.transcript = id;
}

// A protein no GFF3 record names: the gene its header names, else its id without an isoform suffix.
ProteinLocus unplaced(const std::string& id, const std::string& header_gene) {
  ProteinLocus l;
  if (!header_gene.empty()) {
    l.gene = header_gene;
    l.via = "gene in the FASTA header";
    return l;
  }
  std::string base = isoform_base(id);
  l.gene = base.empty() ? id : base;
  l.via = base.empty() ? "none" : "isoform suffix";
  return l;
}

ProteinLocus locus_of(const GffModel& gff, const IdMatch& m, const FastaRecord& r) {
  if (m.gene.empty()) return unplaced(r.id, header_gene(r.description));
  ProteinLocus l;
  place(gff, m.gene, m.transcript, l);
  l.via = m.scheme;
  return l;
}

std::string or_dash(const std::string& s) { return s.empty() ? "—" : s; }

// A few identifiers the GFF3's records are named by, to show the form the proteins should take.
std::vector<std::string> record_examples(const GffModel& gff) {
  std::vector<std::string> out;
  for (auto& [id, t] : gff.transcripts) {
    if (out.size() >= 3) break;
    std::string shown = id;
    for (auto& x : t.identifiers)
      if (x.key == "Name" || x.key == "CDS protein_id") shown += " (" + x.key + " " + x.value + ")";
    out.push_back(shown);
  }
  for (auto& [id, g] : gff.genes) {
    if (out.size() >= 3) break;
    out.push_back(id);
  }
  return out;
}

// The CDS record of each protein: the one of the same id, else the one the gene map leads to the same transcript.
void attach_cds(const GffModel& gff, const std::vector<FastaRecord>& cds, GeneMap& m) {
  if (cds.empty()) return;
  std::set<std::string> ids;
  for (auto& r : cds) ids.insert(r.id);
  const std::vector<IdMatch> where = match_records(gff, cds);
  std::map<std::string, std::string> by_transcript;  // transcript -> its first CDS record
  for (size_t i = 0; i < cds.size(); ++i)
    if (!where[i].transcript.empty()) by_transcript.emplace(where[i].transcript, cds[i].id);
  for (auto& row : m.rows) {
    if (ids.count(row.protein))
      row.cds = row.protein;
    else if (auto t = by_transcript.find(row.locus.transcript); t != by_transcript.end())
      row.cds = t->second;
    else if (ids.count(row.locus.transcript))
      row.cds = row.locus.transcript;
  }
}

}  // namespace

ProteinLocus locate_protein(const GffModel& gff, const std::string& id, const std::string& header_gene) {
  FastaRecord r{id, header_gene.empty() ? "" : "gene=" + header_gene, ""};
  const std::vector<IdMatch> m = match_records(gff, {r});
  ProteinLocus l = locus_of(gff, m[0], r);
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
  m.gff_genes = gff.genes.size();
  m.gff_transcripts = gff.transcripts.size();
  m.gff_examples = record_examples(gff);
  const std::vector<IdMatch> where = match_records(gff, proteins, &m.evidence);
  std::map<std::string, size_t> longest;  // gene -> row of its longest protein
  for (size_t i = 0; i < proteins.size(); ++i) {
    const FastaRecord& p = proteins[i];
    GeneMapRow row{p.id, locus_of(gff, where[i], p), "", int64_t(p.seq.size()), false};
    while (row.length > 0 && p.seq[size_t(row.length) - 1] == '*') --row.length;
    auto [it, fresh] = longest.emplace(row.locus.gene, m.rows.size());
    if (!fresh && m.rows[it->second].length < row.length) it->second = m.rows.size();
    m.by_protein.emplace(p.id, m.rows.size());
    m.rows.push_back(std::move(row));
  }
  for (auto& [gene, i] : longest) m.rows[i].longest = true;
  attach_cds(gff, cds, m);
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

const GeneMapRow* GeneMap::row(const std::string& protein) const {
  auto it = by_protein.find(protein);
  return it == by_protein.end() ? nullptr : &rows[it->second];
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
    if (!r.locus.placed() && unplaced.size() < 3) unplaced.push_back(r.protein);
  }
  Json fix = Json::array(), fix_zh = Json::array();
  const size_t unmapped = rows.size() - placed;
  std::string examples, forms;
  for (auto& e : unplaced) examples += (examples.empty() ? "" : ", ") + e.get<std::string>();
  for (auto& e : gff_examples) forms += (forms.empty() ? "" : ", ") + e;
  if (unmapped && (gff_genes || gff_transcripts)) {
    fix.push_back(std::to_string(unmapped) + " of " + std::to_string(rows.size()) +
                  " proteins match no identifier of the GFF3 (e.g. " + examples + "; its records are named like " +
                  forms +
                  "): name the proteins by the GFF3's mRNA IDs or Names or its CDS protein_ids, or give the GFF3 of "
                  "the same annotation; until then they have no position, structure, promoter or synteny");
    fix_zh.push_back(std::to_string(rows.size()) + " 个蛋白中有 " + std::to_string(unmapped) +
                     " 个与 GFF3 中任何标识符都不匹配（例如 " + examples + "；GFF3 的记录命名如 " + forms +
                     "）：请按 GFF3 的 mRNA ID、Name 或 CDS 的 protein_id 命名蛋白，或提供同一注释版本的 GFF3；"
                     "在此之前这些蛋白没有位置、基因结构、启动子和共线性信息");
  }
  if (!seqids_not_in_genome.empty()) {
    fix.push_back(std::to_string(seqids_not_in_genome.size()) + " GFF3 sequence names are not in the genome (e.g. " +
                  seqids_not_in_genome[0] +
                  "), not even as Chr1/1/chr01 variants: use the genome's sequence names in column 1 of the GFF3");
    fix_zh.push_back(std::to_string(seqids_not_in_genome.size()) + " 个 GFF3 序列名在基因组中不存在（例如 " +
                     seqids_not_in_genome[0] +
                     "），按 Chr1/1/chr01 等写法也找不到：请在 GFF3 第 1 列使用基因组中的序列名");
  }
  Json aliases = Json::object(), evidence_rows = Json::array();
  for (auto& [a, b] : seqid_aliases) aliases[a] = b;
  for (auto& [key, n] : evidence) evidence_rows.push_back({{"key", key}, {"proteins", n}});
  return Json{{"proteins", rows.size()},
              {"genes", genes.size()},
              {"isoforms_merged", rows.size() - genes.size()},
              {"matched_by", by},
              {"evidence", evidence_rows},
              {"gff_genes", gff_genes},
              {"gff_mrnas", gff_transcripts},
              {"placed", placed},
              {"unplaced", unmapped},
              {"unplaced_examples", unplaced},
              {"with_cds", cds_found},
              {"seqid_aliases", aliases},
              {"seqids_not_in_genome", seqids_not_in_genome},
              {"fix", fix},
              {"fix_zh", fix_zh}};
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

std::vector<std::pair<std::string, int64_t>> gff_sequence_lengths(const GffModel& gff, std::string* source) {
  std::map<std::string, int64_t> last_end;
  for (auto& [id, g] : gff.genes) last_end[g.seqid] = std::max(last_end[g.seqid], g.end);
  for (auto& [id, t] : gff.transcripts) last_end[t.seqid] = std::max(last_end[t.seqid], t.end);
  const bool stated = !gff.sequence_lengths.empty();
  if (source) *source = stated ? "sequence-region" : "last gene end";
  std::vector<std::pair<std::string, int64_t>> out;
  for (auto& s : gff.seqids) {
    auto st = gff.sequence_lengths.find(s);
    if (stated && st != gff.sequence_lengths.end())
      out.push_back({s, std::max(st->second, last_end[s])});
    else if (last_end.count(s))
      out.push_back({s, last_end[s]});
  }
  return out;
}

}  // namespace bioagent
