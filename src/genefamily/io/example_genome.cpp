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
#include "genefamily/stages/stage_common.h"
#include "pipeline/subprocess.h"

namespace bioagent {
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

struct Gen {
  std::mt19937 rng;
  int uniform(int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); }
  std::string dna(size_t n) {
    static const char* b = "ACGT";
    std::string s(n, 'A');
    for (auto& c : s) c = b[uniform(0, 3)];
    return s;
  }
  std::string protein(size_t n) {
    std::string s(n, 'A');
    for (auto& c : s) c = kAmino[uniform(0, 19)];
    return s;
  }
  std::string back_translate(const std::string& aa) {
    std::string s;
    for (char c : aa) {
      auto it = codons().find(c);
      const auto& v = it == codons().end() ? codons().at('A') : it->second;
      s += v[size_t(uniform(0, int(v.size()) - 1))];
    }
    return s;
  }
  // A duplicate's coding sequence after point substitutions at `rate` per site (the start codon kept, no
  // stop codon made); a substitution that changes the amino acid is kept with probability `nonsyn_kept`
  // (purifying selection), so the pair has an estimable Ks near `rate` and Ka/Ks near `nonsyn_kept`.
  std::string evolve(const std::string& cds, double rate, double nonsyn_kept) {
    static const char* b = "ACGT";
    std::uniform_real_distribution<double> u(0, 1);
    std::string out = cds;
    for (size_t pos = 3; pos < out.size(); ++pos) {
      if (u(rng) >= rate) continue;
      std::string codon = out.substr(pos - pos % 3, 3);
      const std::string before = translate(codon);
      codon[pos % 3] = b[uniform(0, 3)];
      const std::string after = translate(codon);
      if (after == "*" || (after != before && u(rng) >= nonsyn_kept)) continue;
      out[pos] = codon[pos % 3];
    }
    return out;
  }
};

struct GeneDraft {
  std::string kind;  // member, decoy, random
  std::string protein;
  int alt_start = -1;  // codon index of an internal ATG giving a second isoform
  int copy_of = -1;    // index of the draft this one is a segmental copy of
  std::string cds;     // its codons (no stop); a copy's evolve from the original's
};

Result<std::vector<std::string>> emit(const fs::path& hmm, int n, unsigned seed) {
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
Result<std::vector<std::string>> emit_detectable(const fs::path& hmm, int n, unsigned seed, const fs::path& scratch) {
  auto all = emit(hmm, 4 * n + 10, seed);
  if (!all) return all.status();
  std::string fasta;
  for (size_t i = 0; i < all->size(); ++i) fasta += ">s" + std::to_string(i) + "\n" + (*all)[i] + "\n";
  BIOAGENT_RETURN_IF_ERROR(gf::write_text(scratch / "emitted.fasta", fasta));
  auto c = capture({"hmmsearch", "--tblout", (scratch / "emitted.tbl").string(), "--noali", "-E", "1e-7", "-o",
                    "/dev/null", hmm.string(), (scratch / "emitted.fasta").string()},
                   120000);
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

}  // namespace

Result<Json> write_example_genome(const fs::path& dir, const ExampleGenomeOptions& o) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (fs::exists(dir / (o.prefix + ".genome.fasta"), ec))
    return invalid_argument(dir.string() + " already holds " + o.prefix + ".genome.fasta; choose an empty folder");
  Gen g{std::mt19937(o.seed)};
  std::vector<GeneDraft> drafts;
  auto members = emit_detectable(o.family_hmm, o.members, o.seed, dir);
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
    auto dom = emit(o.decoy_hmms[h], n, o.seed + unsigned(h) + 1);
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
  auto copy_from = [&](GeneDraft& copy, const GeneDraft& original, double rate) {
    copy.cds = g.evolve(original.cds, rate, 0.3);
    copy.protein = translate(copy.cds);
    copy.alt_start = -1;
  };
  // Two tandem pairs: members side by side, the second of each a copy of the
  // first (a recent one at 3% substitutions per site, an older one at 8%), so
  // each pair is adjacent and similar and its Ks is estimable.
  auto is_member = [](const GeneDraft& d) { return d.kind == "member"; };
  auto first = std::find_if(drafts.begin(), drafts.end(), is_member);
  for (double rate : {0.03, 0.08}) {
    if (first == drafts.end() || first + 1 == drafts.end()) break;
    auto next = std::find_if(first + 1, drafts.end(), is_member);
    if (next == drafts.end()) break;
    std::iter_swap(first + 1, next);
    copy_from(*(first + 1), *first, rate);
    first = std::find_if(first + 2, drafts.end(), is_member);
  }
  // A segmental duplication: eight consecutive genes around a member copied,
  // in order, at 15% substitutions per site, to the end of the last chromosome.
  // The segment is centred on the first member (from the tenth gene on) whose eight genes lie on
  // one chromosome and hold two members, else on the first member from there.
  const size_t per_chromosome = (drafts.size() + 8 + size_t(o.chromosomes) - 1) / size_t(o.chromosomes);
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
      copy_from(copy, drafts[i], 0.15);
      drafts.push_back(copy);
    }
  }

  std::vector<std::string> chrom(size_t(o.chromosomes));
  std::ofstream gff(dir / (o.prefix + ".gff3"));
  gff << "##gff-version 3\n";
  std::vector<FastaRecord> cds_out, pep_out;
  Json truth_members = Json::array(), truth_decoys = Json::array(), segmental = Json::array();
  std::vector<std::string> draft_gene(drafts.size());
  std::vector<std::string> gff_lines;
  size_t per_chrom = (drafts.size() + chrom.size() - 1) / chrom.size();
  int gene_no = 0;
  for (size_t i = 0; i < drafts.size(); ++i) {
    const GeneDraft& d = drafts[i];
    size_t c = i / per_chrom;
    std::string& seq = chrom[c];
    bool tandem = i > 0 && i % per_chrom != 0 && is_member(d) && is_member(drafts[i - 1]);
    seq += g.dna(size_t(tandem ? g.uniform(300, 600) : g.uniform(1500, 6000)));
    std::string cds = d.cds + (g.uniform(0, 1) ? "TAA" : "TGA");
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
    gene_no += 10;
    char idbuf[32];
    std::snprintf(idbuf, sizeof idbuf, "%sg%05d", o.prefix.c_str(), gene_no);
    std::string gene_id = idbuf, chr = "Chr" + std::to_string(c + 1);
    auto line = [&](const char* type, std::pair<int64_t, int64_t> r, const std::string& phase,
                    const std::string& attrs) {
      gff << chr << "\tbioagent-example\t" << type << '\t' << r.first << '\t' << r.second << "\t.\t" << strand << '\t'
          << phase << '\t' << attrs << '\n';
    };
    line("gene", genomic(0, body.size()), ".", "ID=" + gene_id + ";Name=" + gene_id);
    int isoforms = d.alt_start >= 0 ? 2 : 1;
    for (int iso = 1; iso <= isoforms; ++iso) {
      std::string tid = gene_id + "." + std::to_string(iso);
      size_t skip = iso == 1 ? 0 : size_t(d.alt_start) * 3;  // CDS bases before the internal ATG
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
      pep_out.push_back({tid, "gene=" + gene_id, d.protein.substr(size_t(iso == 1 ? 0 : d.alt_start))});
    }
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
  fs::copy_file(o.family_hmm, dir / (o.family + ".hmm"), fs::copy_options::overwrite_existing, ec);
  if (ec) return Status(ErrorCode::kInternal, "cannot copy the family HMM: " + ec.message());
  Json truth = {{"prefix", o.prefix},
                {"family", o.family},
                {"family_hmm", o.family_hmm.string()},
                {"members", truth_members},
                {"decoys", truth_decoys},
                {"genes", gene_no / 10},
                {"segmental_pairs", segmental},
                {"note", "generated by bioagent genefamily example: not real data"}};
  std::ofstream(dir / "truth.json") << truth.dump(2) << "\n";
  return truth;
}

}  // namespace bioagent
