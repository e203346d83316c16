// The example genome: generated chromosomes carrying genes with UTRs, exons
// and introns on both strands; family members carry domains that hmmemit
// samples from a real Pfam-style HMM, decoys carry other domains, the rest are
// random proteins. Some members have a second, shorter isoform (an internal
// start codon) so "one longest isoform per gene" is exercised; two pairs of
// members sit in tandem and a segment is duplicated, their coding sequences
// evolved from the originals so Ks is estimable. truth.json lists the members.
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "bioagent/genefamily.h"
#include "bioagent/seqio.h"
#include "genefamily/io/genome_gen.h"
#include "genefamily/stages/stage_common.h"
#include "pipeline/subprocess.h"

namespace bioagent {
namespace {

struct GeneDraft {
  std::string kind;  // member, decoy, random
  std::string protein;
  int alt_start = -1;  // codon index of an internal ATG giving a second isoform
  int copy_of = -1;    // index of the draft this one is a segmental copy of
  std::string cds;     // its codons (no stop); a copy's evolve from the original's
};

bool is_member(const GeneDraft& d) { return d.kind == "member"; }

void copy_from(gf::GenomeGen& g, GeneDraft& copy, const GeneDraft& original, double rate) {
  copy.cds = g.evolve(original.cds, rate, 0.3);
  copy.protein = translate(copy.cds);
  copy.alt_start = -1;
}

// The genes' proteins and codons, shuffled: family members (hmmemit from the
// family's HMM, every third with a second isoform), decoys, random proteins.
Result<std::vector<GeneDraft>> draft_genes(gf::GenomeGen& g, const fs::path& dir, const ExampleGenomeOptions& o) {
  std::vector<GeneDraft> drafts;
  auto members = gf::emit_detectable(o.family_hmm, o.members, o.seed, dir);
  if (!members) return members.status();
  for (size_t i = 0; i < members->size(); ++i) {
    GeneDraft d{"member", "", -1, -1, ""};
    std::string nflank = g.protein(size_t(g.uniform(30, 120)));
    if (i % 3 == 0) {  // a second isoform from an internal start codon
      d.alt_start = g.uniform(8, 20);
      nflank[size_t(d.alt_start)] = 'M';
    }
    d.protein = "M" + nflank + (*members)[i] + g.protein(size_t(g.uniform(20, 160)));
    if (d.alt_start >= 0) ++d.alt_start;  // the leading M
    drafts.push_back(d);
  }
  for (size_t h = 0; h < o.decoy_hmms.size(); ++h) {
    int n = o.decoys / int(o.decoy_hmms.size());
    auto dom = gf::emit_domains(o.decoy_hmms[h], n, o.seed + unsigned(h) + 1);
    if (!dom) return dom.status();
    for (auto& s : *dom)
      drafts.push_back({"decoy",
                        "M" + g.protein(size_t(g.uniform(20, 100))) + s + g.protein(size_t(g.uniform(20, 100))), -1, -1,
                        ""});
  }
  for (int i = 0; i < o.random_genes; ++i)
    drafts.push_back({"random", "M" + g.protein(size_t(g.uniform(120, 600))), -1, -1, ""});
  std::shuffle(drafts.begin(), drafts.end(), g.rng);
  for (auto& d : drafts) d.cds = g.back_translate(d.protein);
  return drafts;
}

// Two tandem pairs: members side by side, the second of each a copy of the
// first (a recent one at 3% substitutions per site, an older one at 8%), so
// each pair is adjacent and similar and its Ks is estimable.
void place_tandem_pairs(gf::GenomeGen& g, std::vector<GeneDraft>& drafts) {
  auto first = std::find_if(drafts.begin(), drafts.end(), is_member);
  for (double rate : {0.03, 0.08}) {
    if (first == drafts.end() || first + 1 == drafts.end()) break;
    auto next = std::find_if(first + 1, drafts.end(), is_member);
    if (next == drafts.end()) break;
    std::iter_swap(first + 1, next);
    copy_from(g, *(first + 1), *first, rate);
    first = std::find_if(first + 2, drafts.end(), is_member);
  }
}

// A segmental duplication: eight consecutive genes around a member copied,
// in order, at 15% substitutions per site, to the end of the last chromosome.
// The segment is centred on the first member (from the tenth gene on) whose eight genes lie on
// one chromosome and hold two members, else on the first member from there.
void add_segmental_copy(gf::GenomeGen& g, std::vector<GeneDraft>& drafts, int chromosomes) {
  const size_t per_chromosome = (drafts.size() + 8 + size_t(chromosomes) - 1) / size_t(chromosomes);
  auto members_in_window = [&](size_t c) {
    if (c < 3 || c + 5 > drafts.size() || (c - 3) / per_chromosome != (c + 4) / per_chromosome) return 0L;
    return long(std::count_if(drafts.begin() + long(c - 3), drafts.begin() + long(c + 5), is_member));
  };
  size_t seg = drafts.size(), first_member = drafts.size();
  for (size_t c = std::min<size_t>(10, drafts.size()); c < drafts.size(); ++c) {
    if (!is_member(drafts[c])) continue;
    if (first_member == drafts.size()) first_member = c;
    if (members_in_window(c) >= 2) {
      seg = c;
      break;
    }
  }
  if (seg == drafts.size()) seg = first_member;
  if (seg + 8 <= drafts.size() && seg >= 3) {
    for (size_t i = seg - 3; i < seg + 5; ++i) {
      GeneDraft copy = drafts[i];
      copy.copy_of = int(i);
      copy_from(g, copy, drafts[i], 0.15);
      drafts.push_back(copy);
    }
  }
}

// The genes laid on the chromosomes in order (tandem members close together), the
// genome, GFF3, CDS and protein files written; truth.json's content returned.
Result<Json> write_genome_files(gf::GenomeGen& g, const std::vector<GeneDraft>& drafts, const fs::path& dir,
                                const ExampleGenomeOptions& o) {
  std::vector<std::string> chrom(size_t(o.chromosomes));
  std::ofstream gff(dir / (o.prefix + ".gff3"));
  gff << "##gff-version 3\n";
  std::vector<FastaRecord> cds_out, pep_out;
  Json truth_members = Json::array(), truth_decoys = Json::array(), segmental = Json::array();
  std::vector<std::string> draft_gene(drafts.size());
  size_t per_chrom = (drafts.size() + chrom.size() - 1) / chrom.size();
  int gene_no = 0;
  for (size_t i = 0; i < drafts.size(); ++i) {
    const GeneDraft& d = drafts[i];
    size_t c = i / per_chrom;
    std::string& seq = chrom[c];
    bool tandem = i > 0 && i % per_chrom != 0 && is_member(d) && is_member(drafts[i - 1]);
    seq += g.dna(size_t(tandem ? g.uniform(300, 600) : g.uniform(1500, 6000)));
    gene_no += 10;
    char idbuf[32];
    std::snprintf(idbuf, sizeof idbuf, "%sg%05d", o.prefix.c_str(), gene_no);
    std::string gene_id = idbuf, chr = "Chr" + std::to_string(c + 1);
    gf::lay_gene(g, seq, chr, gene_id, d.cds, d.protein, d.alt_start, gff, cds_out, pep_out);
    draft_gene[i] = gene_id;
    if (d.copy_of >= 0) segmental.push_back(Json::array({draft_gene[size_t(d.copy_of)], gene_id}));
    if (d.kind == "member") truth_members.push_back(gene_id);
    if (d.kind == "decoy") truth_decoys.push_back(gene_id);
  }
  std::vector<FastaRecord> genome;
  for (size_t c = 0; c < chrom.size(); ++c)
    genome.push_back({"Chr" + std::to_string(c + 1), "", chrom[c] + g.dna(3000)});
  BIOAGENT_RETURN_IF_ERROR(write_fasta(dir / (o.prefix + ".genome.fasta"), genome, 80));
  BIOAGENT_RETURN_IF_ERROR(write_fasta(dir / (o.prefix + ".cds.fasta"), cds_out));
  BIOAGENT_RETURN_IF_ERROR(write_fasta(dir / (o.prefix + ".pep.fasta"), pep_out));
  return Json{{"prefix", o.prefix},
              {"family", o.family},
              {"family_hmm", o.family_hmm.string()},
              {"members", truth_members},
              {"decoys", truth_decoys},
              {"genes", gene_no / 10},
              {"segmental_pairs", segmental},
              {"note", "generated by bioagent genefamily example: not real data"}};
}

}  // namespace

Result<Json> write_example_genome(const fs::path& dir, const ExampleGenomeOptions& o) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (fs::exists(dir / (o.prefix + ".genome.fasta"), ec))
    return invalid_argument(dir.string() + " already holds " + o.prefix + ".genome.fasta; choose an empty folder");
  gf::GenomeGen g{std::mt19937(o.seed)};
  auto drafts = draft_genes(g, dir, o);
  if (!drafts) return drafts.status();
  place_tandem_pairs(g, *drafts);
  add_segmental_copy(g, *drafts, o.chromosomes);
  auto truth = write_genome_files(g, *drafts, dir, o);
  if (!truth) return truth.status();
  fs::copy_file(o.family_hmm, dir / (o.family + ".hmm"), fs::copy_options::overwrite_existing, ec);
  if (ec) return Status(ErrorCode::kInternal, "cannot copy the family HMM: " + ec.message());
  std::ofstream(dir / "truth.json") << truth->dump(2) << "\n";
  return *truth;
}

}  // namespace bioagent
