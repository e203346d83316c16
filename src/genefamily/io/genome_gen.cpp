// Shared pieces of the generated genomes (genome_gen.h).
#include "genefamily/io/genome_gen.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <ostream>
#include <set>

#include "bioagent/seqio.h"
#include "genefamily/stages/stage_common.h"
#include "pipeline/subprocess.h"

namespace bioagent::gf {
namespace {

const char* kAmino = "ACDEFGHIKLMNPQRSTVWY";
// Codons for each amino acid (standard code).
const std::map<char, std::vector<const char*>>& codons() {
  static const std::map<char, std::vector<const char*>> k = {{'A', {"GCT", "GCC", "GCA", "GCG"}},
                                                             {'C', {"TGT", "TGC"}},
                                                             {'D', {"GAT", "GAC"}},
                                                             {'E', {"GAA", "GAG"}},
                                                             {'F', {"TTT", "TTC"}},
                                                             {'G', {"GGT", "GGC", "GGA", "GGG"}},
                                                             {'H', {"CAT", "CAC"}},
                                                             {'I', {"ATT", "ATC", "ATA"}},
                                                             {'K', {"AAA", "AAG"}},
                                                             {'L', {"TTA", "TTG", "CTT", "CTC", "CTA", "CTG"}},
                                                             {'M', {"ATG"}},
                                                             {'N', {"AAT", "AAC"}},
                                                             {'P', {"CCT", "CCC", "CCA", "CCG"}},
                                                             {'Q', {"CAA", "CAG"}},
                                                             {'R', {"CGT", "CGC", "CGA", "CGG", "AGA", "AGG"}},
                                                             {'S', {"TCT", "TCC", "TCA", "TCG", "AGT", "AGC"}},
                                                             {'T', {"ACT", "ACC", "ACA", "ACG"}},
                                                             {'V', {"GTT", "GTC", "GTA", "GTG"}},
                                                             {'W', {"TGG"}},
                                                             {'Y', {"TAT", "TAC"}}};
  return k;
}

}  // namespace

std::string GenomeGen::dna(size_t n) {
  static const char* b = "ACGT";
  std::string s(n, 'A');
  for (auto& c : s) c = b[uniform(0, 3)];
  return s;
}

std::string GenomeGen::protein(size_t n) {
  std::string s(n, 'A');
  for (auto& c : s) c = kAmino[uniform(0, 19)];
  return s;
}

std::string GenomeGen::back_translate(const std::string& aa) {
  std::string s;
  s.reserve(aa.size() * 3);
  for (char c : aa) {
    auto it = codons().find(c);
    const auto& v = it == codons().end() ? codons().at('A') : it->second;
    s += v[size_t(uniform(0, int(v.size()) - 1))];
  }
  return s;
}

std::string GenomeGen::evolve(const std::string& cds, double rate, double nonsyn_kept) {
  static const char* b = "ACGT";
  std::string out = cds;
  for (size_t pos = 3; pos < out.size(); ++pos) {
    if (unit() >= rate) continue;
    std::string codon = out.substr(pos - pos % 3, 3);
    const std::string before = translate(codon);
    codon[pos % 3] = b[uniform(0, 3)];
    const std::string after = translate(codon);
    if (after == "*" || (after != before && unit() >= nonsyn_kept)) continue;
    out[pos] = codon[pos % 3];
  }
  return out;
}

void lay_gene(GenomeGen& g, std::string& seq, const std::string& chr, const std::string& gene_id,
              const std::string& cds_no_stop, const std::string& protein, int alt_start, std::ostream& gff,
              std::vector<FastaRecord>& cds_out, std::vector<FastaRecord>& pep_out, const char* source) {
  std::string cds = cds_no_stop + (g.uniform(0, 1) ? "TAA" : "TGA");
  // Exons: the CDS cut into 1-5 pieces, introns GT...AG between them, UTRs around.
  int n_exons = g.uniform(1, 5);
  std::vector<size_t> cuts = {0};
  for (int k = 1; k < n_exons; ++k) cuts.push_back(size_t(g.uniform(1, int(cds.size()) - 1)));
  cuts.push_back(cds.size());
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::string utr5 = g.dna(size_t(g.uniform(40, 200))), utr3 = g.dna(size_t(g.uniform(60, 300)));
  std::string body = utr5;
  std::vector<std::pair<size_t, size_t>> cds_segs;  // [a, b) in body
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    if (k > 0) body += "GT" + g.dna(size_t(g.uniform(80, 900))) + "AG";
    cds_segs.push_back({body.size(), body.size() + cuts[k + 1] - cuts[k]});
    body += cds.substr(cuts[k], cuts[k + 1] - cuts[k]);
  }
  body += utr3;
  char strand = g.uniform(0, 1) ? '+' : '-';
  size_t gstart = seq.size();  // 0-based
  seq += strand == '+' ? body : reverse_complement(body);
  auto genomic = [&](size_t a, size_t b) {  // [a, b) in body -> 1-based inclusive genomic
    return strand == '+' ? std::pair<int64_t, int64_t>(gstart + a + 1, gstart + b)
                         : std::pair<int64_t, int64_t>(gstart + body.size() - b + 1, gstart + body.size() - a);
  };
  auto line = [&](const char* type, std::pair<int64_t, int64_t> r, const std::string& phase, const std::string& attrs) {
    gff << chr << "\t" << source << "\t" << type << '\t' << r.first << '\t' << r.second << "\t.\t" << strand << '\t'
        << phase << '\t' << attrs << '\n';
  };
  line("gene", genomic(0, body.size()), ".", "ID=" + gene_id + ";Name=" + gene_id);
  int isoforms = alt_start >= 0 ? 2 : 1;
  for (int iso = 1; iso <= isoforms; ++iso) {
    std::string tid = gene_id + "." + std::to_string(iso);
    size_t skip = iso == 1 ? 0 : size_t(alt_start) * 3;  // CDS bases before the internal ATG
    // The isoform's CDS segments: the first `skip` bases become 5' UTR.
    std::vector<std::pair<size_t, size_t>> segs;
    size_t left = skip;
    for (auto [a, b] : cds_segs) {
      if (left >= b - a) {
        left -= b - a;
        continue;
      }
      segs.push_back({a + left, b});
      left = 0;
    }
    line("mRNA", genomic(0, body.size()), ".", "ID=" + tid + ";Parent=" + gene_id);
    size_t exon_start = 0;
    for (size_t k = 0; k < cds_segs.size(); ++k) {
      size_t exon_end = k + 1 == cds_segs.size() ? body.size() : cds_segs[k].second;
      line("exon", genomic(exon_start, exon_end), ".",
           "ID=" + tid + ".exon" + std::to_string(k + 1) + ";Parent=" + tid);
      if (k + 1 < cds_segs.size()) exon_start = cds_segs[k + 1].first;
    }
    line("five_prime_UTR", genomic(0, segs.front().first), ".", "Parent=" + tid);
    size_t done = 0;
    for (auto [a, b] : segs) {
      line("CDS", genomic(a, b), std::to_string((3 - done % 3) % 3), "ID=" + tid + ".cds;Parent=" + tid);
      done += b - a;
    }
    line("three_prime_UTR", genomic(cds_segs.back().second, body.size()), ".", "Parent=" + tid);
    std::string tcds = cds.substr(skip);
    cds_out.push_back({tid, "gene=" + gene_id, tcds});
    pep_out.push_back({tid, "gene=" + gene_id, protein.substr(size_t(iso == 1 ? 0 : alt_start))});
  }
}

double expected_ks(double rate) { return -0.75 * std::log(1 - rate); }

Result<std::vector<std::string>> emit_domains(const fs::path& hmm, int n, unsigned seed) {
  std::error_code ec;
  if (!fs::exists(hmm, ec))
    return not_found("the HMM " + hmm.string() +
                     " is missing (Debian package hmmer-examples provides the tutorial HMMs)");
  auto c = capture({"hmmemit", "-N", std::to_string(n), "--seed", std::to_string(seed), hmm.string()}, 60000);
  if (!c) return c.status();
  if (c->exit_code != 0) return Status(ErrorCode::kToolFailed, "hmmemit failed: " + c->out.substr(0, 300));
  auto recs = parse_fasta(c->out, "hmmemit output");
  if (!recs) return recs.status();
  std::vector<std::string> out;
  for (auto& r : *recs) out.push_back(r.seq);
  return out;
}

// Family domains the model itself recognises (full-sequence E <= 1e-7, 100x below the default cut-off):
// samples from a short profile such as PF03110 (75 positions) are often too
// weak for hmmsearch, and a member no search could find is not a fair truth.
// Samples are kept in emission order, so a model whose samples all pass
// gives the same genome as plain emission.
Result<std::vector<std::string>> emit_detectable(const fs::path& hmm, int n, unsigned seed, const fs::path& scratch,
                                                 int database_size) {
  auto all = emit_domains(hmm, 4 * n + 10, seed);
  if (!all) return all.status();
  std::string fasta;
  for (size_t i = 0; i < all->size(); ++i) fasta += ">s" + std::to_string(i) + "\n" + (*all)[i] + "\n";
  BIOAGENT_RETURN_IF_ERROR(write_text(scratch / "emitted.fasta", fasta));
  std::vector<std::string> argv = {"hmmsearch", "--tblout", (scratch / "emitted.tbl").string(),
                                   "--noali",   "-E",       "1e-7"};
  if (database_size > 0)
    argv.insert(argv.end(), {"-Z", std::to_string(database_size)});  // E-values of the whole proteome
  argv.insert(argv.end(), {"-o", "/dev/null", hmm.string(), (scratch / "emitted.fasta").string()});
  auto c = capture(argv, 120000);
  if (!c) return c.status();
  if (c->exit_code != 0) return Status(ErrorCode::kToolFailed, "hmmsearch on the emitted domains failed");
  std::set<size_t> pass;
  std::ifstream tbl(scratch / "emitted.tbl");
  for (std::string line; std::getline(tbl, line);)
    if (!line.empty() && line[0] == 's') pass.insert(std::stoul(line.substr(1, line.find(' ') - 1)));
  std::error_code ec;
  fs::remove(scratch / "emitted.fasta", ec);
  fs::remove(scratch / "emitted.tbl", ec);
  std::vector<std::string> out;
  for (size_t i = 0; i < all->size() && int(out.size()) < n; ++i)
    if (pass.count(i)) out.push_back((*all)[i]);
  if (int(out.size()) < n)
    return invalid_argument(hmm.string() + " gives only " + std::to_string(out.size()) + " detectable domains of " +
                            std::to_string(all->size()) + " emitted; use a more informative HMM");
  return out;
}

}  // namespace bioagent::gf
